// How the semantic layer's cosines become evidence search can fuse (search-index.ts fuse(), with
// search-tuning.ts `semanticWeight`, the one table of ranking weights). Cosines of sentence vectors
// crowd into a narrow band (unrelated English texts are not orthogonal), so a tool's cosine is
// measured from the catalog's typical tool for this query (the median: 0) toward an identical
// text (cosine 1: evidence 1). Only tools nearer than the typical one get any evidence. The scale
// is the same for every query, so a query whose nearest tool is still far (one no tool answers)
// stays low, and the weak floor can be read off the fused score.
// Tools without a cosine (NaN: no vector yet, or no phrasing with a letter) get none.
import type { ExtraScores } from "../catalog/search-index.js";
import type { ToolCosines } from "./tool-vectors.js";

/** address → evidence in 0–1, for the tools nearer the query than the catalog's median tool. */
export function semanticEvidence({ addresses, cosines }: ToolCosines): ExtraScores {
  const out = new Map<string, number>();
  const sorted = cosines.filter((c) => !Number.isNaN(c)).sort();
  if (sorted.length === 0) return out;
  const median = sorted[sorted.length >> 1]!; // the middle one (the upper of two)
  const span = 1 - median;
  if (!(span > 0)) return out;
  cosines.forEach((cosine, i) => {
    const e = (cosine - median) / span;
    if (e > 0) out.set(addresses[i]!, Math.min(1, e));
  });
  return out;
}
