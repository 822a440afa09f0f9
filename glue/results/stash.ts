// Full texts of cut results, kept briefly so get_result can page them (this is the in-memory
// stash of one process; replicas share store/redis-stash.ts behind the same OwnedStash).
// Bounded in time (TTL from put) and in total UTF-8 bytes; no timers, so it never
// keeps the process alive: expiry happens lazily on put/get. Each entry belongs to the principal
// that put it: another principal's get of its id answers exactly as an id never issued (team
// mode: nothing one person leaves is visible to another). Requests hold `for(principal)`, a view
// that can name no other owner.
import { randomUUID } from "node:crypto";
import { utf8Length } from "./utf8.js";

export interface ResultStashOptions {
  ttlMs: number;
  maxBytes: number;
  /** Clock in ms; injectable so tests control time. */
  now?: () => number;
}

interface Entry {
  owner: string;
  text: string;
  bytes: number;
  expiresAt: number;
}

/** One principal's side of a stash: what a request holds (ToolContext.stash, .viewStore). */
export interface OwnedStash {
  /** Stores `text` and returns its unguessable id, or undefined if it alone exceeds the stash's bytes. */
  put(text: string): Promise<string | undefined>;
  /** The text stored under `id` by this owner, or undefined (unknown, expired, or another owner's). */
  get(id: string): Promise<string | undefined>;
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

  /** The stash as `owner` (a principal id) sees it. */
  for(owner: string): OwnedStash {
    return { put: async (text) => this.put(owner, text), get: async (id) => this.get(owner, id) };
  }

  /** Stores `text` for `owner` and returns its unguessable id, or undefined if it alone exceeds maxBytes. */
  put(owner: string, text: string): string | undefined {
    this.#sweep();
    const bytes = utf8Length(text);
    if (bytes > this.#maxBytes) return undefined;
    for (const [id, e] of this.#entries) {
      if (this.#bytes + bytes <= this.#maxBytes) break;
      this.#delete(id, e);
    }
    const id = randomUUID();
    this.#entries.set(id, { owner, text, bytes, expiresAt: this.#now() + this.#ttlMs });
    this.#bytes += bytes;
    return id;
  }

  /** The text `owner` stored under `id`, or undefined if unknown, expired or another owner's (the same answer). */
  get(owner: string, id: string): string | undefined {
    this.#sweep();
    const e = this.#entries.get(id);
    if (!e || e.owner !== owner) return undefined;
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
