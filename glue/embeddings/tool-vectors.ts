// The semantic index itself, in the embedding worker: the tools' vectors in one contiguous block
// of int8 codes (a row per tool, in the catalog's order) with one scale per tool, from the disk
// cache when the model saw the same text before, else embedded in batches of EMBED_BATCH_TEXTS;
// and the cosines of a search's phrasings with every tool, computed in place over that block into
// one Float32Array (no vector is copied, no map is built). Embed calls take turns, and the
// embedding of a catalog yields to the event loop before each batch, so a search or a newer
// catalog waits for at most the one batch in flight.
import { EMBED_BATCH_TEXTS, EMBED_CACHE_SAVE_TOOLS, EMBED_QUERIES_MAX, EMBED_QUERY_CHARS_MAX, EMBED_TOOLS_MAX } from "../decisions/generated/spec.js";
import { quantize, type Embedder } from "./embedder.js";
import type { SemanticEntry } from "./tool-text.js";
import { vectorKey, type VectorCache } from "./vector-cache.js";

/** One embed call at a time, first come first served. */
class Turns {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(job: () => Promise<T>): Promise<T> {
    const mine = this.tail.then(job, job);
    this.tail = mine.catch(() => {});
    return mine;
  }
}

/** Lets the event loop run (messages first) before the next batch: a model's batch otherwise chains on microtasks alone. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface UpdateCounts { tools: number; cached: number; embedded: number; cacheProblem?: string }

/** How far an update is: tools with a vector now, of all. */
export interface Progress { done: number; total: number }

/** The cosines of one search with every tool of one set of vectors. */
export interface ToolCosines {
  /** Which set of vectors (ToolVectors.generation) they were computed on. */
  readonly generation: number;
  readonly addresses: readonly string[];
  /** cosines[i] is addresses[i]'s; NaN where a tool has no vector yet, or no phrasing had a letter or digit. */
  readonly cosines: Float32Array;
}

export class ToolVectors {
  private addresses: string[] = [];
  private codes = new Int8Array(0);
  /** One per tool; NaN until its vector is in. */
  private scales = new Float32Array(0);
  private filled = 0;
  private current = 0;
  private readonly turns = new Turns();

  constructor(private readonly embedder: Embedder, private readonly cache: VectorCache) {}

  /** Tools that have a vector now. */
  get size(): number {
    return this.filled;
  }

  /** The set of vectors now: each update starts a new one. */
  get generation(): number {
    return this.current;
  }

  /** The tools of this generation, in the order of their rows and of every ToolCosines. */
  get tools(): readonly string[] {
    return this.addresses;
  }

  /**
   * Makes `entries` the indexed tools: a removed tool leaves at once, a cached one is in at once,
   * the others as their batch is embedded (`progress` hears at the start and after each batch;
   * the cache file is written every EMBED_CACHE_SAVE_TOOLS embedded tools and at the end).
   * Answers the counts when every vector is in, undefined when a newer update took over first;
   * rejects when the embedder fails.
   */
  async update(entries: SemanticEntry[], progress: (p: Progress & { toEmbed: number }) => void = () => {}): Promise<UpdateCounts | undefined> {
    const generation = ++this.current;
    const tools = entries.slice(0, EMBED_TOOLS_MAX);
    const dims = this.embedder.dims;
    const codes = new Int8Array(tools.length * dims);
    const scales = new Float32Array(tools.length).fill(Number.NaN);
    const missing: { row: number; key: string; text: string }[] = [];
    const keys: string[] = [];
    tools.forEach(({ text }, row) => {
      const key = vectorKey(this.embedder.id, text);
      keys.push(key);
      const cached = this.cache.get(key);
      if (!cached) return void missing.push({ row, key, text });
      codes.set(cached.codes, row * dims);
      scales[row] = cached.scale;
    });
    this.addresses = tools.map((t) => t.address);
    this.codes = codes;
    this.scales = scales;
    this.filled = tools.length - missing.length;
    progress({ done: this.filled, total: tools.length, toEmbed: missing.length });
    let unsaved = 0;
    let cacheProblem: string | undefined;
    for (let i = 0; i < missing.length; i += EMBED_BATCH_TEXTS) {
      await nextTurn();
      if (generation !== this.current) return undefined;
      const batch = missing.slice(i, i + EMBED_BATCH_TEXTS);
      const vectors = await this.turns.run(() => this.embedder.embed(batch.map((m) => m.text)));
      batch.forEach((m, j) => {
        const v = vectors[j];
        if (!v || v.length !== dims) throw new Error(`the embedder answered a vector ${v?.length ?? 0} wide for a ${dims}-wide index`);
        const kept = this.cache.put(m.key, v);
        codes.set(kept.codes, m.row * dims);
        scales[m.row] = kept.scale;
      });
      if (generation !== this.current) return undefined;
      this.filled += batch.length;
      unsaved += batch.length;
      if (unsaved >= EMBED_CACHE_SAVE_TOOLS && this.filled < tools.length) {
        unsaved = 0;
        cacheProblem = this.cache.save(keys);
      }
      progress({ done: this.filled, total: tools.length, toEmbed: missing.length - i - batch.length });
    }
    // The cache's vectors become views of this block (held once; the file's bytes and each batch's own arrays can go).
    keys.forEach((key, row) => this.cache.hold(key, { codes: codes.subarray(row * dims, (row + 1) * dims), scale: scales[row]! }));
    if (missing.length === 0) return { tools: tools.length, cached: tools.length, embedded: 0 }; // the file already holds them all
    cacheProblem = this.cache.save(keys) ?? cacheProblem;
    return { tools: tools.length, cached: tools.length - missing.length, embedded: missing.length, ...(cacheProblem && { cacheProblem }) };
  }

  /**
   * Every tool's best cosine with any of the phrasings (the first EMBED_QUERIES_MAX, each cut to
   * EMBED_QUERY_CHARS_MAX); all NaN when no phrasing has a letter or digit.
   */
  async scores(queries: string[]): Promise<ToolCosines> {
    const phrasings = queries.slice(0, EMBED_QUERIES_MAX).map((q) => q.slice(0, EMBED_QUERY_CHARS_MAX).trim()).filter((q) => /[\p{L}\p{N}]/u.test(q));
    const asked = phrasings.length === 0 ? [] : await this.turns.run(() => this.embedder.embed(phrasings));
    const out = new Float32Array(this.addresses.length).fill(Number.NaN);
    asked.forEach((q, i) => nearest(quantize(q), this.codes, this.scales, out, i === 0));
    return { generation: this.current, addresses: this.addresses, cosines: out };
  }
}

/**
 * Each tool's cosine with the query `q` (both int8: integer sums, exact) into `out`, keeping the
 * larger of it and what is there unless `first`. Four rows per pass over the query: four
 * independent sums keep the CPU's multiply-adds overlapped.
 */
function nearest(q: { codes: Int8Array; scale: number }, codes: Int8Array, scales: Float32Array, out: Float32Array, first: boolean): void {
  const n = q.codes.length;
  const qc = Int32Array.from(q.codes);
  const rows = scales.length;
  const keep = (row: number, sum: number) => {
    const cosine = sum * q.scale * scales[row]!;
    out[row] = first ? cosine : Math.max(out[row]!, cosine);
  };
  let row = 0;
  while (row < rows) {
    // The last pass of a catalog whose size is not a multiple of four repeats its first row.
    const ra = row++;
    const rb = row < rows ? row++ : ra;
    const rc = row < rows ? row++ : ra;
    const rd = row < rows ? row++ : ra;
    const a = ra * n, b = rb * n, c = rc * n, d = rd * n;
    let sa = 0, sb = 0, sc = 0, sd = 0;
    for (let i = 0; i < n; i++) {
      const x = qc[i]!;
      sa = (sa + x * codes[a + i]!) | 0;
      sb = (sb + x * codes[b + i]!) | 0;
      sc = (sc + x * codes[c + i]!) | 0;
      sd = (sd + x * codes[d + i]!) | 0;
    }
    keep(ra, sa);
    keep(rb, sb);
    keep(rc, sc);
    keep(rd, sd);
  }
}
