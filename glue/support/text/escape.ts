// The one escaper for text a server or a program wrote that a person or the model is shown
// (approval questions, terminal output of `atrium auth`, error messages): every character that
// can move the cursor, rewrite a line, run a terminal sequence or reorder what is read — C0
// controls (ESC, BEL, CR…), DEL, C1 controls (NEL U+0085, CSI U+009B…), bidi embeddings,
// overrides, isolates and marks, zero-width and tag characters, line and paragraph separators —
// becomes a visible escape (`\u202E`), never the raw character. An ESC/CSI/OSC sequence is thus inert:
// its introducer is shown as `\u001B` and the rest is plain text. And, for a listed tool's title and
// description as they enter the catalog (`stripTerminalSequences`), the sequences removed whole: search
// rows, describe and the question's title never carry them (pins read the definition as listed, and
// flag a sequence there).
import { HEX_RADIX, UNICODE_ESCAPE_HEX_DIGITS } from "../encoding.js";

/**
 * Control characters (Unicode Cc: C0, DEL, C1) and format characters (Cf: bidi marks,
 * embeddings, overrides and isolates, zero-width characters, the BOM, invisible tag characters),
 * and the line and paragraph separators U+2028 and U+2029.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
/** The same set but line breaks and tabs, which text laid out on lines (program source, a multi-line message) keeps. */
const UNSAFE_KEEPING_LINES = /(?![\n\t])[\p{Cc}\p{Cf}\u2028\u2029]/gu;
/** `\u202E` for a character of the BMP, `\u{E0041}` beyond it. */
const visible = (c: string) => {
  const hex = c.codePointAt(0)!.toString(HEX_RADIX).toUpperCase();
  return hex.length <= UNICODE_ESCAPE_HEX_DIGITS ? `\\u${hex.padStart(UNICODE_ESCAPE_HEX_DIGITS, "0")}` : `\\u{${hex}}`;
};

/** Whether `s` holds a character that `escapeShown` would escape. */
export const hasUnsafeText = (s: string): boolean => new RegExp(UNSAFE.source, "u").test(s);

/** `s` with every unsafe character shown as a visible escape; `keepLines` keeps `\n` and `\t` (text laid out on lines). */
export function escapeShown(s: string, opts: { keepLines?: boolean } = {}): string {
  return s.replace(opts.keepLines ? UNSAFE_KEEPING_LINES : UNSAFE, visible);
}

/** `s` on one line: each run of spaces, tabs and line breaks is one space, and everything else unsafe is escaped. */
export const escapeOneLine = (s: string): string => escapeShown(s.replace(/[ \t\n\r\v\f]+/g, " "));

/** CSI (ESC [ … final), OSC (ESC ] … BEL or ESC backslash), or ESC and one more character, and the 8-bit CSI. */
const TERMINAL_SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)?|\u001b[\s\S]?|\u009b[0-?]*[ -/]*[@-~]/g;
/** C0 and C1 controls other than tab, newline, carriage return. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** `s` without terminal escape sequences and control characters (linear in its length); what is left is shown through `escapeShown`. */
export const stripTerminalSequences = (s: string): string => s.replace(TERMINAL_SEQUENCES, "").replace(CONTROLS, "");
