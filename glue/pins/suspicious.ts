// Suspicious tool definitions, flagged at pin time (spec/pins.md N6): text aimed at the model
// rather than describing the tool, invisible or bidirectional characters (the patterns and their
// reasons are data: suspicious-patterns.json), and a description longer than
// PIN_DESCRIPTION_CHARS_MAX. Judged on the title, the description and the text of the input
// schema (parameter descriptions are read by the model too), each clamped before matching.
import data from "./suspicious-patterns.json" with { type: "json" };
import { PIN_DESCRIPTION_CHARS_MAX } from "../decisions/generated/spec.js";
import type { PinnableTool } from "./digest.js";

interface Pattern { id: string; pattern: string; reason: string }
const PATTERNS = (data.patterns as Pattern[]).map((p) => ({ id: p.id, reason: p.reason, re: new RegExp(p.pattern, "iu") }));

/** One flag: which pattern (or "too_long") and why. */
export interface Flag { id: string; reason: string }

/** The flags a tool's definition raises; none for an ordinary tool. */
export function flagsOf(tool: Pick<PinnableTool, "title" | "description" | "inputSchema">): Flag[] {
  const flags: Flag[] = [];
  if (tool.description.length > PIN_DESCRIPTION_CHARS_MAX) flags.push({ id: "too_long", reason: `its description is ${tool.description.length} characters, over ${PIN_DESCRIPTION_CHARS_MAX}` });
  const schemaText = JSON.stringify(tool.inputSchema ?? null) ?? "";
  const texts = [tool.title ?? "", tool.description, schemaText].map((t) => t.slice(0, PIN_DESCRIPTION_CHARS_MAX));
  for (const p of PATTERNS) if (texts.some((t) => p.re.test(t))) flags.push({ id: p.id, reason: p.reason });
  return flags;
}
