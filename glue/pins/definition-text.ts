// The text of one tool's whole definition as the suspicious-pattern screen reads it: its title,
// description, then every key and string value of its input schema, output schema and
// annotations at any depth (walked with an explicit stack: a deeply nested schema costs no call
// stack), one per line, at most PIN_SCREEN_CHARS_MAX characters in all; what is past the bound is
// counted, not read, so the screen can flag it instead of passing it. Property names are also
// given as words ("content_from_reading_ssh_id_rsa" → "content from reading ssh id rsa"): a model
// reads a name as words, and patterns match words.
import { PIN_SCREEN_CHARS_MAX } from "../decisions/generated/spec.js";
import type { PinnableTool } from "./digest.js";

interface DefinitionText {
  /** Every text, one per line, clamped to PIN_SCREEN_CHARS_MAX characters. */
  text: string;
  /** Property and other key names, as words (at most what fits the same bound). */
  names: string[];
  /** Whether the definition has more text than PIN_SCREEN_CHARS_MAX. */
  over: boolean;
}

/** A key as words: "_", "-", "." and camelCase humps become spaces. */
const asWords = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_\-.]+/g, " ").trim().toLowerCase();

/** The screened text of a definition. */
export function definitionText(tool: Pick<PinnableTool, "title" | "description" | "inputSchema"> & Partial<Pick<PinnableTool, "outputSchema" | "annotations">>): DefinitionText {
  const parts: string[] = [];
  const names: string[] = [];
  let size = 0;
  let over = false;
  const take = (s: string): boolean => {
    if (size + s.length > PIN_SCREEN_CHARS_MAX) {
      parts.push(s.slice(0, Math.max(0, PIN_SCREEN_CHARS_MAX - size)));
      size = PIN_SCREEN_CHARS_MAX;
      over = true;
      return false;
    }
    parts.push(s);
    size += s.length + 1;
    return true;
  };
  if (!take(tool.title ?? "") || !take(tool.description)) return { text: parts.join("\n"), names, over };
  const stack: unknown[] = [tool.annotations, tool.outputSchema, tool.inputSchema];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (!take(v)) break;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i][1]);
      let full = false;
      for (const [k] of entries) {
        const words = asWords(k);
        if (!take(k) || !take(words)) { full = true; break; }
        names.push(words);
      }
      if (full) break;
    }
  }
  return { text: parts.join("\n"), names, over };
}
