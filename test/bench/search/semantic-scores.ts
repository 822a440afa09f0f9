// The semantic layer for the search bench, in this process: the bundled model, the real
// ToolVectors and VectorCache over a catalog's tools, and the cosines of a query's phrasings
// (what the embedding worker answers search). Tool vectors are cached in the OS temp directory
// across runs (keyed by the model and the text, as atrium's own cache is), so only the first run
// pays for embedding the captured catalogs.
import { join } from "node:path";
import { tmpdir } from "node:os";
import { loadBundledEmbedder } from "../../../glue/embeddings/bundled.js";
import type { Embedder } from "../../../glue/embeddings/embedder.js";
import { toolText } from "../../../glue/embeddings/tool-text.js";
import { ToolVectors } from "../../../glue/embeddings/tool-vectors.js";
import { VectorCache } from "../../../glue/embeddings/vector-cache.js";
import type { Catalog } from "../../../glue/catalog/catalog.js";

export interface BenchSemantic {
  model: Embedder;
  loadMs: number;
  embedMs: number;
  /** Tools embedded now (the rest came from the cache). */
  embedded: number;
  vectors: ToolVectors;
  /** The tool vectors by model and text (vector-cache.ts vectorKey). */
  cache: VectorCache;
}

const benchCacheDir = () => join(tmpdir(), "atrium-bench-vectors");

export async function loadSemantic(catalog: Catalog): Promise<BenchSemantic> {
  let t0 = performance.now();
  const model = await loadBundledEmbedder();
  const loadMs = performance.now() - t0;
  const cache = new VectorCache(benchCacheDir(), model.id, model.dims);
  cache.load();
  const vectors = new ToolVectors(model, cache);
  t0 = performance.now();
  const counts = (await vectors.update(catalog.entries().map(toolText)))!;
  return { model, loadMs, embedMs: performance.now() - t0, embedded: counts.embedded, vectors, cache };
}
