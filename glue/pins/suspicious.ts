// Suspicious tool definitions, flagged at pin time (spec/pins.md N6): text aimed at the model
// rather than describing the tool, control, escape, invisible or bidirectional characters (the
// patterns and their reasons are data: suspicious-patterns.json; a pattern `on` "names" reads
// property names, as words, only), a description longer than PIN_DESCRIPTION_CHARS_MAX, and a
// definition with more text than PIN_SCREEN_CHARS_MAX (flagged, never passed unread). Judged on
// the whole definition (glue/pins/definition-text.ts): title, description, and every key and
// string of the input and output schemas and the annotations, at any depth.
import data from "./suspicious-patterns.json" with { type: "json" };
import { PIN_DESCRIPTION_CHARS_MAX, PIN_SCREEN_CHARS_MAX } from "../decisions/generated/spec.js";
import type { PinnableTool } from "./digest.js";
import { definitionText } from "./definition-text.js";

interface Pattern { id: string; pattern: string; reason: string; on?: string }
const PATTERNS = (data.patterns as Pattern[]).map((p) => ({ id: p.id, reason: p.reason, names: p.on === "names", re: new RegExp(p.pattern, "iu") }));

/** One flag: which pattern (or "too_long", "too_large") and why. */
export interface Flag { id: string; reason: string }

/** The flags a tool's definition raises; none for an ordinary tool. */
export function flagsOf(tool: Pick<PinnableTool, "title" | "description" | "inputSchema"> & Partial<Pick<PinnableTool, "outputSchema" | "annotations">>): Flag[] {
  const flags: Flag[] = [];
  if (tool.description.length > PIN_DESCRIPTION_CHARS_MAX) flags.push({ id: "too_long", reason: `its description is ${tool.description.length} characters, over ${PIN_DESCRIPTION_CHARS_MAX}` });
  const { text, names, over } = definitionText(tool);
  if (over) flags.push({ id: "too_large", reason: `its definition has more than ${PIN_SCREEN_CHARS_MAX} characters of text; atrium screens no more than that` });
  for (const p of PATTERNS) if (p.names ? names.some((n) => p.re.test(n)) : p.re.test(text)) flags.push({ id: p.id, reason: p.reason });
  return flags;
}
