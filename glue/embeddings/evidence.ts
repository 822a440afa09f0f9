// How the semantic layer's cosines become evidence search can fuse (search-index.ts fuse(), with
// search-tuning.ts `semanticWeight`, the one table of ranking weights). Cosines of sentence vectors
// crowd into a narrow band (unrelated English texts are not orthogonal), so a tool's cosine is
// measured from the catalog's typical tool for this query (the median: 0) toward an identical
// text (cosine 1: evidence 1). Only tools nearer than the typical one get any evidence. The scale
// is the same for every query, so a query whose nearest tool is still far (one no tool answers)
// stays low, and the weak floor can be read off the fused score.
import type { ExtraScores } from "../catalog/search-index.js";

/** address → evidence in 0–1, for the tools nearer the query than the catalog's median tool. */
export function semanticEvidence(cosines: ReadonlyMap<string, number>): ExtraScores {
  const out = new Map<string, number>();
  if (cosines.size === 0) return out;
  const sorted = Float64Array.from(cosines.values()).sort();
  const median = sorted[sorted.length >> 1]!; // the middle one (the upper of two)
  const span = 1 - median;
  if (!(span > 0)) return out;
  for (const [address, cosine] of cosines) {
    const e = (cosine - median) / span;
    if (e > 0) out.set(address, Math.min(1, e));
  }
  return out;
}
