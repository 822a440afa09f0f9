// The one escaper for text a server or a program wrote that a person or the model is shown
// (approval questions, terminal output of `atrium auth`, error messages): every character that
// can move the cursor, rewrite a line, run a terminal sequence or reorder what is read — C0
// controls (ESC, BEL, CR…), DEL, C1 controls (NEL U+0085, CSI U+009B…), bidi embeddings,
// overrides, isolates and marks, zero-width characters, line and paragraph separators — becomes
// a visible escape (`\u202E`), never the raw character. An ESC/CSI/OSC sequence is thus inert:
// its introducer is shown as `\u001B` and the rest is plain text.
import { HEX_RADIX, UNICODE_ESCAPE_HEX_DIGITS } from "../encoding.js";

/** C0, DEL, C1; bidi marks, embeddings, overrides, isolates (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069); zero-width (U+200B–U+200D, U+2060, U+FEFF); U+2028–U+2029. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g;
/** The same set but line breaks and tabs, which text laid out on lines (program source, a multi-line message) keeps. */
// eslint-disable-next-line no-control-regex
const UNSAFE_KEEPING_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g;
const visible = (c: string) => `\\u${c.charCodeAt(0).toString(HEX_RADIX).toUpperCase().padStart(UNICODE_ESCAPE_HEX_DIGITS, "0")}`;

/** Whether `s` holds a character that `escapeShown` would escape. */
export const hasUnsafeText = (s: string): boolean => new RegExp(UNSAFE.source).test(s);

/** `s` with every unsafe character shown as a visible escape; `keepLines` keeps `\n` and `\t` (text laid out on lines). */
export function escapeShown(s: string, opts: { keepLines?: boolean } = {}): string {
  return s.replace(opts.keepLines ? UNSAFE_KEEPING_LINES : UNSAFE, visible);
}

/** `s` on one line: each run of spaces, tabs and line breaks is one space, and everything else unsafe is escaped. */
export const escapeOneLine = (s: string): string => escapeShown(s.replace(/[ \t\n\r\v\f]+/g, " "));
