// Cuts stdin into newline-delimited lines without ever holding more than `maxBytes` of one
// line, and reads in the same single pass, before any JSON.parse, what the guard needs to judge
// a line it will not parse: its nesting depth and its top-level "id", "method", "result" and
// "error" members. Hand-written because no library does this: readline and split2 buffer a whole
// line (or count characters, not bytes) and know nothing of JSON; a streaming JSON parser would
// build the values we want to refuse. The scan is a byte state machine (no recursion, O(1)
// memory beyond the kept line): UTF-8 multi-byte sequences never contain the bytes `"` or `\`,
// so strings are tracked exactly on bytes.
import { TOP_KEY_BYTES_KEPT } from "../decisions/generated/spec.js";
import { ASCII } from "./encoding.js";

/** What the top level of a line showed, read without parsing it. */
interface TopLevel {
  /** A top-level "id" member was seen. */
  idKey: boolean;
  /** The id's value, when it was a complete string or safe integer of at most maxIdBytes. */
  id?: string | number;
  /** A top-level "method" member was seen. */
  method: boolean;
  /** A top-level "result" or "error" member was seen. */
  resultOrError: boolean;
}

export interface Line {
  /** Bytes of the line, without its newline. */
  bytes: number;
  /** The deepest nesting of objects and arrays in the line. */
  depth: number;
  /** The line's bytes, unless it was longer than maxBytes or deeper than maxDepth (then dropped unread). */
  text?: Buffer;
  top: TopLevel;
}

export interface LineLimits {
  /** request_line_bytes: a longer line is dropped while it is read. */
  maxBytes: number;
  /** request_depth: a deeper line is dropped while it is read. */
  maxDepth: number;
  /** Longest id token kept for an unparsed line (echo_clamp_chars): a longer one counts as unreadable. */
  maxIdBytes: number;
}

const { newline: NL, quote: QUOTE, backslash: BACKSLASH, comma: COMMA, colon: COLON } = ASCII;
const { openBrace: LBRACE, closeBrace: RBRACE, openBracket: LBRACKET, closeBracket: RBRACKET } = ASCII;
const { space: SPACE, tab: TAB, carriageReturn: CR } = ASCII;

// Where the scan is in the top-level object (only tracked at depth 1 of an object).
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const enum Top { key, inKey, colon, value, inValue, inScalar, after }
const enum Key { other, id, method, resultOrError }

class TopScanner {
  depth = 0;
  maxDepth = 0;
  private inString = false;
  private escaped = false;
  private first = true;
  private topIsObject = false;
  private state = Top.key;
  private key = Key.other;
  private keyBytes: number[] = [];
  private capturingId = false;
  private idBytes: number[] = [];
  private idTooLong = false;
  readonly top: TopLevel = { idKey: false, method: false, resultOrError: false };

  constructor(private readonly maxIdBytes: number) {}

  feed(buf: Buffer, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      const b = buf[i];
      if (this.inString) {
        if (this.depth === 1 && this.topIsObject) this.stringByte(b);
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.depth === 1 && this.topIsObject) this.stringEnd();
        }
        continue;
      }
      switch (b) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.topIsObject) this.stringStart();
          this.first = false;
          break;
        case LBRACE:
        case LBRACKET:
          if (this.depth === 1 && this.topIsObject) this.valueStart(true);
          if (this.first) this.topIsObject = b === LBRACE;
          this.first = false;
          if (++this.depth > this.maxDepth) this.maxDepth = this.depth;
          break;
        case RBRACE:
        case RBRACKET:
          if (this.depth === 1 && this.topIsObject) this.scalarEnd();
          if (this.depth > 0) this.depth--;
          if (this.depth === 1 && this.topIsObject && this.state === Top.inValue) this.state = Top.after;
          break;
        case COMMA:
          if (this.depth === 1 && this.topIsObject) {
            this.scalarEnd();
            this.state = Top.key;
          }
          break;
        case COLON:
          if (this.depth === 1 && this.topIsObject && this.state === Top.colon) this.state = Top.value;
          break;
        case SPACE:
        case TAB:
        case CR:
        case NL:
          if (this.depth === 1 && this.topIsObject) this.scalarEnd();
          break;
        default:
          this.first = false;
          if (this.depth === 1 && this.topIsObject) {
            if (this.state === Top.value) this.valueStart(false);
            if (this.state === Top.inScalar && this.capturingId) this.capture(b);
          }
      }
    }
  }

  private stringStart(): void {
    if (this.state === Top.key) {
      this.state = Top.inKey;
      this.keyBytes.length = 0;
    } else if (this.state === Top.value) {
      this.valueStart(false);
      this.state = Top.inValue;
      if (this.capturingId) this.capture(QUOTE);
    }
  }

  private stringByte(b: number): void {
    if (this.state === Top.inKey) {
      if (this.keyBytes.length <= TOP_KEY_BYTES_KEPT) this.keyBytes.push(b);
    } else if (this.state === Top.inValue && this.capturingId) this.capture(b);
  }

  private stringEnd(): void {
    if (this.state === Top.inKey) {
      const k = String.fromCharCode(...this.keyBytes.slice(0, -1)); // without the closing quote
      this.key = k === "id" ? Key.id : k === "method" ? Key.method : k === "result" || k === "error" ? Key.resultOrError : Key.other;
      if (this.key === Key.id) this.top.idKey = true;
      else if (this.key === Key.method) this.top.method = true;
      else if (this.key === Key.resultOrError) this.top.resultOrError = true;
      this.state = Top.colon;
    } else if (this.state === Top.inValue) {
      this.finishId();
      this.state = Top.after;
    }
  }

  /** A value starts at depth 1: a container, a string (handled by stringStart) or a scalar. */
  private valueStart(container: boolean): void {
    if (this.state !== Top.value) return;
    this.capturingId = this.key === Key.id && !container;
    this.idBytes.length = 0;
    this.idTooLong = false;
    this.state = container ? Top.inValue : Top.inScalar;
  }

  private scalarEnd(): void {
    if (this.state !== Top.inScalar) return;
    this.finishId();
    this.state = Top.after;
  }

  private capture(b: number): void {
    if (this.idBytes.length < this.maxIdBytes) this.idBytes.push(b);
    else this.idTooLong = true;
  }

  private finishId(): void {
    if (!this.capturingId) return;
    this.capturingId = false;
    if (this.idTooLong || this.top.id !== undefined) return;
    const raw = Buffer.from(this.idBytes);
    let id: unknown;
    try {
      id = JSON.parse(strictUtf8.decode(raw));
    } catch {
      return;
    }
    if (typeof id === "string" || Number.isSafeInteger(id)) this.top.id = id as string | number;
  }
}

/**
 * One whole message read under a line's bounds: bytes are counted and scanned as they arrive, and
 * kept only while within maxBytes and maxDepth. A newline inside is whitespace (an HTTP body may
 * be pretty-printed); LineReader cuts stdin into lines and reads each with one of these.
 */
export class MessageReader {
  private bytes = 0;
  private parts: Buffer[] = [];
  private keeping = true;
  private readonly scanner: TopScanner;

  constructor(private readonly limits: LineLimits) {
    this.scanner = new TopScanner(limits.maxIdBytes);
  }

  /** Whether what has arrived is already past maxBytes (the rest need not be read). */
  get oversized(): boolean {
    return this.bytes > this.limits.maxBytes;
  }

  push(chunk: Buffer, start = 0, end = chunk.length): void {
    this.bytes += end - start;
    this.scanner.feed(chunk, start, end);
    if (!this.keeping) return;
    if (this.bytes > this.limits.maxBytes || this.scanner.maxDepth > this.limits.maxDepth) {
      // Bound before work: what was kept is released and the rest is only scanned.
      this.keeping = false;
      this.parts = [];
      return;
    }
    this.parts.push(chunk.subarray(start, end));
  }

  end(): Line {
    const text = !this.keeping ? undefined : this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.bytes);
    return { bytes: this.bytes, depth: this.scanner.maxDepth, top: this.scanner.top, ...(text && { text }) };
  }
}

/** Splits a byte stream into bounded lines; `onLine` gets each one, in order, synchronously. */
export class LineReader {
  private message: MessageReader;

  constructor(private readonly limits: LineLimits, private readonly onLine: (line: Line) => void) {
    this.message = new MessageReader(limits);
  }

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(NL, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (end > pos) this.message.push(chunk, pos, end);
      if (nl === -1) return;
      const line = this.message.end();
      this.message = new MessageReader(this.limits);
      this.onLine(line);
      pos = nl + 1;
    }
  }
}
