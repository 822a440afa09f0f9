// Full texts of cut results, kept briefly so get_result can page them.
// Bounded in time (TTL from put) and in total UTF-8 bytes; no timers, so it never
// keeps the process alive: expiry happens lazily on put/get.
import { randomUUID } from "node:crypto";
import { utf8Length } from "./utf8.js";

export interface ResultStashOptions {
  ttlMs: number;
  maxBytes: number;
  /** Clock in ms; injectable so tests control time. */
  now?: () => number;
}

interface Entry {
  text: string;
  bytes: number;
  expiresAt: number;
}

export class ResultStash {
  // Map iteration order is insertion order, i.e. oldest first: eviction walks from the front.
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor({ ttlMs, maxBytes, now = Date.now }: ResultStashOptions) {
    if (!(Number.isFinite(ttlMs) && ttlMs > 0)) throw new RangeError(`ttlMs must be > 0, got ${ttlMs}`);
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) throw new RangeError(`maxBytes must be an integer >= 0, got ${maxBytes}`);
    this.#ttlMs = ttlMs;
    this.#maxBytes = maxBytes;
    this.#now = now;
  }

  /** Stores `text` and returns its unguessable id, or undefined if it alone exceeds maxBytes. */
  put(text: string): string | undefined {
    this.#sweep();
    const bytes = utf8Length(text);
    if (bytes > this.#maxBytes) return undefined;
    for (const [id, e] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes) break;
      this.#delete(id, e);
    }
    const id = randomUUID();
    this.#entries.set(id, { text, bytes, expiresAt: this.#now() + this.#ttlMs });
    this.#bytes += bytes;
    return id;
  }

  /** The stored text, or undefined if unknown or expired. */
  get(id: string): string | undefined {
    this.#sweep();
    const e = this.#entries.get(id);
    if (!e) return undefined;
    if (this.#now() >= e.expiresAt) {
      this.#delete(id, e); // covers a clock that stepped back past older entries
      return undefined;
    }
    return e.text;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Total UTF-8 bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  // Drops expired entries from the front; with one TTL, the oldest expire first.
  #sweep(): void {
    const now = this.#now();
    for (const [id, e] of this.#entries) {
      if (now < e.expiresAt) break;
      this.#delete(id, e);
    }
  }

  #delete(id: string, e: Entry): void {
    this.#entries.delete(id);
    this.#bytes -= e.bytes;
  }
}
