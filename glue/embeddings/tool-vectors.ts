// The semantic index itself, in the embedding worker: one unit vector per tool address (from the
// disk cache when the model saw the same text before, else embedded in batches), and the cosine
// of each tool with a search's phrasings. Embed calls take turns, so a query waits for at most the
// one batch of tool texts in flight.
import { EMBED_BATCH_TEXTS, EMBED_QUERIES_MAX, EMBED_QUERY_CHARS_MAX, EMBED_TOOLS_MAX } from "../decisions/generated/spec.js";
import type { Embedder } from "./embedder.js";
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

export interface UpdateCounts { tools: number; cached: number; embedded: number; cacheProblem?: string }

export class ToolVectors {
  private vectors = new Map<string, Float32Array>();
  private generation = 0;
  private readonly turns = new Turns();

  constructor(private readonly embedder: Embedder, private readonly cache: VectorCache) {}

  /** Tools that have a vector now. */
  get size(): number {
    return this.vectors.size;
  }

  /**
   * Makes `entries` the indexed tools: a removed tool leaves at once, a cached one is in at once,
   * the others as their batch is embedded (`toEmbed` hears first how many that is). Answers the
   * counts when every vector is in, undefined when a newer update took over first; rejects when
   * the embedder fails.
   */
  async update(entries: SemanticEntry[], toEmbed: (count: number) => void = () => {}): Promise<UpdateCounts | undefined> {
    const generation = ++this.generation;
    const tools = entries.slice(0, EMBED_TOOLS_MAX);
    const next = new Map<string, Float32Array>();
    const missing: { address: string; key: string; text: string }[] = [];
    const keys: string[] = [];
    for (const { address, text } of tools) {
      const key = vectorKey(this.embedder.id, text);
      keys.push(key);
      const cached = this.cache.get(key);
      if (cached) next.set(address, cached);
      else missing.push({ address, key, text });
    }
    this.vectors = next;
    toEmbed(missing.length);
    for (let i = 0; i < missing.length; i += EMBED_BATCH_TEXTS) {
      if (generation !== this.generation) return undefined;
      const batch = missing.slice(i, i + EMBED_BATCH_TEXTS);
      const vectors = await this.turns.run(() => this.embedder.embed(batch.map((m) => m.text)));
      batch.forEach((m, j) => {
        this.cache.put(m.key, vectors[j]!);
        if (generation === this.generation) this.vectors.set(m.address, vectors[j]!);
      });
    }
    if (generation !== this.generation) return undefined;
    if (missing.length === 0) return { tools: tools.length, cached: tools.length, embedded: 0 }; // the file already holds them all
    const cacheProblem = this.cache.save(keys);
    return { tools: tools.length, cached: tools.length - missing.length, embedded: missing.length, ...(cacheProblem && { cacheProblem }) };
  }

  /**
   * address → the best cosine of the tool with any of the phrasings (the first EMBED_QUERIES_MAX,
   * each cut to EMBED_QUERY_CHARS_MAX); an empty map when no phrasing has a letter or digit.
   */
  async scores(queries: string[]): Promise<Map<string, number>> {
    const phrasings = queries.slice(0, EMBED_QUERIES_MAX).map((q) => q.slice(0, EMBED_QUERY_CHARS_MAX).trim()).filter((q) => /[\p{L}\p{N}]/u.test(q));
    const out = new Map<string, number>();
    if (phrasings.length === 0) return out;
    const asked = await this.turns.run(() => this.embedder.embed(phrasings));
    const tools = [...this.vectors];
    for (const q of asked) nearest(q, tools, out);
    return out;
  }
}

/**
 * Sets each tool's cosine with `q` in `out`, keeping the larger where one is there already (the
 * phrasing nearest the tool). Four tools per pass over the query: four independent sums keep the
 * CPU's multiply-adds overlapped, about twice as fast as one dot product after another.
 */
function nearest(q: Float32Array, tools: readonly [string, Float32Array][], out: Map<string, number>): void {
  const n = q.length;
  const keep = (address: string, cosine: number) => {
    const was = out.get(address);
    if (was === undefined || cosine > was) out.set(address, cosine);
  };
  let k = 0;
  while (k < tools.length) {
    const a = tools[k++]!;
    const b = tools[k++] ?? a;
    const c = tools[k++] ?? a;
    const d = tools[k++] ?? a;
    const va = a[1], vb = b[1], vc = c[1], vd = d[1];
    let sa = 0, sb = 0, sc = 0, sd = 0;
    for (let i = 0; i < n; i++) {
      const x = q[i]!;
      sa += x * va[i]!;
      sb += x * vb[i]!;
      sc += x * vc[i]!;
      sd += x * vd[i]!;
    }
    keep(a[0], sa);
    keep(b[0], sb);
    keep(c[0], sc);
    keep(d[0], sd);
  }
}
