// The one-line description the model sees in a search row.
import type { CatalogEntry } from "./entry.js";
import { clipAtWord } from "../support/text/clip.js";
import { TOOL_SUMMARY_CHARS_MAX } from "../decisions/generated/spec.js";


const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();

/** The first sentence (or paragraph) of the text, whitespace collapsed. */
function firstSentence(text: string): string {
  const paragraph = text.trim().split(/\n\s*\n/, 1)[0] ?? "";
  const flat = collapse(paragraph);
  // A sentence ends at . ! ? followed by space and a capital, digit or quote, or the end;
  // "e.g. foo" and "v1.2" therefore do not end it.
  const m = /[.!?](?=\s+[\p{Lu}\p{N}"'`(\[]|$)/u.exec(flat);
  return m ? flat.slice(0, m.index + 1) : flat;
}

export function shortDescription(entry: Pick<CatalogEntry, "name" | "description" | "title">): string {
  for (const source of [entry.description, entry.title]) {
    if (typeof source !== "string") continue;
    const s = firstSentence(source);
    if (s.length > 0) return clipAtWord(s, TOOL_SUMMARY_CHARS_MAX);
  }
  return clipAtWord(collapse(entry.name), TOOL_SUMMARY_CHARS_MAX);
}
