// A string that is a JSON document (a text block holding JSON, say), as the secret scan reads it
// and as its redaction rewrites it: read with its escaped strings decoded (a credential written
// `https:\/\/user:pass@…` is read as the URL it is), and rewritten value by value, so that it
// stays the same JSON: only the string values a finding falls in are replaced, by the JSON of
// their redacted text; field names, numbers and layout are kept as they were.
//
// Only a text that parses as a JSON object or array is read this way, so every quote that is not
// escaped opens or closes a string. Reading it costs one JSON.parse and one pass over its quotes;
// a document without a backslash is read as it is.

/** One string token whose text differs once decoded: [from, to) in the document, [at, at + length) in its reading. */
interface Decoded { from: number; to: number; at: number; length: number }

/** The document as the scan reads it (`text`), and where that differs from the document. */
export interface JsonReading { text: string; decoded: Decoded[] }

/** How `text` is read when it is a JSON object or array; undefined when it is not one. */
export function readJson(text: string): JsonReading | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try { JSON.parse(text); } catch { return undefined; }
  let backslash = text.indexOf("\\");
  if (backslash < 0) return { text, decoded: [] };
  const out: string[] = [];
  const decoded: Decoded[] = [];
  let copied = 0;
  let length = 0;
  for (const lex = new Lexer(text); lex.next(); ) {
    if (backslash < lex.open) backslash = text.indexOf("\\", lex.open);
    if (backslash < 0) break;
    if (backslash > lex.close) continue;
    const value = `"${JSON.parse(text.slice(lex.open, lex.close + 1)) as string}"`;
    out.push(text.slice(copied, lex.open), value);
    length += lex.open - copied;
    decoded.push({ from: lex.open, to: lex.close + 1, at: length, length: value.length });
    length += value.length;
    copied = lex.close + 1;
  }
  out.push(text.slice(copied));
  return { text: out.join(""), decoded };
}

/**
 * The document with every string value a finding falls in replaced by the JSON of its text with
 * those findings replaced (`redact`, given the span of the value's text in the reading); undefined
 * when no finding falls in a value. Names of fields are never rewritten.
 */
export function rewriteJson(text: string, reading: JsonReading, redact: (start: number, end: number) => string | undefined): string | undefined {
  const out: string[] = [];
  let copied = 0;
  let shift = 0;
  let d = 0;
  for (const lex = new Lexer(text); lex.next(); ) {
    const dec = reading.decoded[d];
    const isDecoded = dec !== undefined && dec.from === lex.open;
    const start = isDecoded ? dec.at + 1 : lex.open + 1 + shift;
    const end = isDecoded ? dec.at + dec.length - 1 : lex.close + shift;
    if (isDecoded) { shift += dec.length - (dec.to - dec.from); d++; }
    if (lex.isName()) continue;
    const value = redact(start, end);
    if (value === undefined) continue;
    out.push(text.slice(copied, lex.open), JSON.stringify(value));
    copied = lex.close + 1;
  }
  if (out.length === 0) return undefined;
  out.push(text.slice(copied));
  return out.join("");
}

const JSON_SPACE = " \t\n\r";

/** The string tokens of a valid JSON text, in order: each from its opening quote (`open`) to its closing one (`close`). */
class Lexer {
  open = -1;
  close = -1;
  constructor(private readonly text: string) {}

  next(): boolean {
    this.open = this.text.indexOf("\"", this.close + 1);
    if (this.open < 0) return false;
    this.close = this.text.indexOf("\"", this.open + 1);
    while (this.escaped(this.close)) this.close = this.text.indexOf("\"", this.close + 1);
    return true;
  }

  /** Whether this token names a field (a colon follows it). */
  isName(): boolean {
    let at = this.close + 1;
    while (at < this.text.length && JSON_SPACE.includes(this.text[at]!)) at++;
    return this.text[at] === ":";
  }

  /** Whether the quote at `at` is escaped (an odd number of backslashes before it). */
  private escaped(at: number): boolean {
    let b = at - 1;
    while (this.text[b] === "\\") b--;
    return ((at - 1 - b) & 1) === 1;
  }
}
