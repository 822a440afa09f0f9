// Secret redaction of a downstream's answer (docs/reference.md, "Secret redaction"): every
// credential in its strings is replaced by `[redacted:<kind>]` before anything measures, stashes,
// projects or returns it. calls/invoke.ts runs it on every tool result (content and
// structuredContent) and every resources/read answer (contents) of a connector whose
// `redactSecrets` is not false.
//
// Every string is read, objects and arrays to any depth, except binary payloads of content blocks
// (the base64 `data` of an image or audio block, a resource's `blob`). A string is read with the
// name of the field it is in before it, as JSON writes it (`"SecretAccessKey": "…"`), since some
// credentials are known by their name. A string that is a JSON document (a text block holding
// JSON, say) is read with its escaped strings decoded and stays the same JSON, only its redacted
// values rewritten (json-text.ts). All the strings of one answer are laid out as one text and read
// in one scan (scan.ts), both in turns of SECRET_SCAN_PASS_CHARS: the cost is linear in the
// answer's size, and only the strings a finding falls in are rebuilt.
import type { Finding } from "./findings.js";
import { findSecrets } from "./scan.js";
import { readJson, rewriteJson, type JsonReading } from "./json-text.js";
import { SECRET_SCAN_PASS_CHARS } from "../../decisions/generated/spec.js";

/** A tool result with every credential in its content and structuredContent replaced; the same object when there was none. */
export function redactToolResult<T extends { content: unknown; structuredContent?: unknown }>(result: T): Promise<T> {
  return redactFields(result, [["content", true], ["structuredContent", false]]);
}

/** A resources/read answer with every credential in the text of its contents replaced; the same object when there was none. */
export function redactResourceAnswer<T extends Record<string, unknown>>(answer: T): Promise<T> {
  return redactFields(answer, [["contents", true]]);
}

/** [field, whether binary payloads inside it are skipped]. */
type Field<T> = readonly [keyof T & string, boolean];

async function redactFields<T extends object>(holder: T, fields: readonly Field<T>[]): Promise<T> {
  const record = holder as Record<string, unknown>;
  const strings: string[] = [];
  const keys: (string | undefined)[] = [];
  for (const [field, binary] of fields) mapStrings(record[field], undefined, binary, (s, key) => { strings.push(s); keys.push(key); return s; });
  const reading = new Reading();
  // Laid out in turns of about one scan pass each, like the scan itself: a large answer does not hold other requests up.
  for (let i = 0, turn = SECRET_SCAN_PASS_CHARS; i < strings.length; i++) {
    reading.add(strings[i]!, keys[i]);
    if (reading.laidChars() < turn) continue;
    turn = reading.laidChars() + SECRET_SCAN_PASS_CHARS;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const replaced = await reading.redacted();
  if (replaced.size === 0) return holder;
  let next = 0;
  const out = { ...record };
  for (const [field, binary] of fields) {
    if (field in record) out[field] = mapStrings(record[field], undefined, binary, (s) => replaced.get(next++) ?? s);
  }
  return out as T;
}

/**
 * Calls `fn` on every string of `value` in one fixed order (its field's name, or for an array
 * item the array's), and returns `value` with each string replaced by what `fn` returned:
 * the same object or array wherever nothing inside it changed.
 */
function mapStrings(value: unknown, key: string | undefined, binary: boolean, fn: (s: string, key: string | undefined) => string): unknown {
  if (typeof value === "string") return fn(value, key);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const n = mapStrings(item, key, binary, fn);
      if (n !== item) (out ??= value.slice())[i] = n;
    });
    return out ?? value;
  }
  if (value === null || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(obj)) {
    if (binary && isBinaryPayload(obj, k)) continue;
    const n = mapStrings(obj[k], k, binary, fn);
    // defineProperty: a field named __proto__ stays a field.
    if (n !== obj[k]) Object.defineProperty((out ??= { ...obj }), k, { value: n, enumerable: true, writable: true, configurable: true });
  }
  return out ?? value;
}

const isBinaryPayload = (holder: Record<string, unknown>, key: string) => key === "blob" || (key === "data" && (holder.type === "image" || holder.type === "audio"));

/** One string as laid out in the scan text: where its reading starts and ends, and how a JSON document was read. */
interface Laid { text: string; start: number; end: number; json?: JsonReading }

/** The strings of one answer, laid out as one text to scan, and put back together once it is scanned. */
class Reading {
  private readonly pieces: string[] = [];
  private length = 0;
  private readonly strings: Laid[] = [];
  /** `"name": "` for each field name met, written once. */
  private readonly names = new Map<string, string>();

  /** Lays out one string after its field's name, as JSON writes it (`"name": "…"`), and a line break. */
  add(text: string, key: string | undefined): void {
    const json = readJson(text);
    const body = json?.text ?? text;
    const before = key === undefined ? "\"" : this.nameOf(key);
    const start = this.length + before.length;
    this.pieces.push(before, body, AFTER);
    this.length = start + body.length + AFTER.length;
    this.strings.push({ text, start, end: start + body.length, json });
  }

  laidChars(): number {
    return this.length;
  }

  private nameOf(key: string): string {
    let before = this.names.get(key);
    if (before === undefined) this.names.set(key, (before = `${JSON.stringify(key)}: "`));
    return before;
  }

  /** The redacted text of each string that held a credential, by its place in the order added. */
  async redacted(): Promise<Map<number, string>> {
    const scanned = this.pieces.join("");
    const findings = await findSecrets(scanned);
    const out = new Map<number, string>();
    // Only the strings a finding falls in are visited: a binary search from each finding.
    for (let f = 0, i = 0; f < findings.length && i < this.strings.length; ) {
      const laid = this.strings[i]!;
      if (findings[f]!.end <= laid.start) { f++; continue; }
      if (findings[f]!.start >= laid.end) { i = this.firstEndingAfter(findings[f]!.start, i + 1); continue; }
      const { text, start, json } = laid;
      const from = f;
      const value = json
        ? rewriteJson(text, json, (a, b) => replaced(scanned, start + a, start + b, findings, from))
        : replaced(scanned, start, laid.end, findings, from);
      if (value !== undefined) out.set(i, value);
      i++;
    }
    return out;
  }

  /** The first string from `lo` whose reading ends after `at`. */
  private firstEndingAfter(at: number, lo: number): number {
    let hi = this.strings.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.strings[mid]!.end <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const AFTER = "\"\n";

/** scanned[start, end) with each finding inside it replaced by its marker; undefined when none falls inside (findings before `first` end before it). */
function replaced(scanned: string, start: number, end: number, findings: Finding[], first: number): string | undefined {
  while (first < findings.length && findings[first]!.end <= start) first++;
  if (first >= findings.length || findings[first]!.start >= end) return undefined;
  const out: string[] = [];
  let at = start;
  for (let i = first; i < findings.length && findings[i]!.start < end; i++) {
    const f = findings[i]!;
    out.push(scanned.slice(at, Math.max(f.start, start)), `[redacted:${f.kind}]`);
    at = Math.min(f.end, end);
  }
  out.push(scanned.slice(at, end));
  return out.join("");
}
