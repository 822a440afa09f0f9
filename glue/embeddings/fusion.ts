// How search combines its lexical scores with the semantic layer's cosines: each side brought to
// 0..1 for the query at hand, then a weighted sum. The one table of fusion numbers is
// FUSION_TUNING (tuning, not limits; test/architecture.test.ts allows numbers here), tuned on the
// search bench's tune half only (npm run bench:semantic) and checked on its held-out half.

export const FUSION_TUNING = {
  /**
   * Share of the fused score that comes from meaning rather than words. Lexical matching carries
   * exact names and rare words best; sentence vectors carry paraphrases that share no word with
   * the tool ("folder" for "directory"). On the tune half, 0.6 gave the best MRR (0.784) and
   * top-1 (73.9 %; 0.2 ties it with recall@10 4 points lower); from 0.7 on, tools that only read
   * alike pass the one with the query's exact words.
   */
  semanticWeight: 0.6,
} as const;

/**
 * The fused score of every tool either side scored, in 0..1:
 *   (1 - weight) × lexical / best lexical  +  weight × max(0, (cosine - median) / (best - median))
 * where median and best are the cosines of this query with every tool that has a vector. Cosines
 * of sentence vectors crowd into a narrow band (unrelated English texts are not orthogonal), so
 * the semantic side is measured from the catalog's typical tool (the median: 0) to the nearest
 * (1), and only tools nearer than the typical one add to their score. Without semantic scores
 * (the layer is off or not ready) it is the lexical score normalized, in today's order.
 *
 * A fused score says how a tool ranks within one query, not whether the query has an answer:
 * the best tool of any query the semantic side scored gets its full share. A confidence floor
 * belongs on the raw scores (the best cosine of a query with no right tool runs lower).
 */
export function fuseScores(lexical: ReadonlyMap<string, number>, semantic: ReadonlyMap<string, number> | undefined, weight: number = FUSION_TUNING.semanticWeight): Map<string, number> {
  let bestLexical = 0;
  for (const s of lexical.values()) if (s > bestLexical) bestLexical = s;
  const out = new Map<string, number>();
  const lexicalShare = semantic && semantic.size > 0 ? 1 - weight : 1;
  if (bestLexical > 0) for (const [address, s] of lexical) if (s > 0) out.set(address, lexicalShare * (s / bestLexical));
  if (!semantic || semantic.size === 0) return out;
  const cosines = [...semantic.values()].sort((a, b) => a - b);
  const median = cosines[cosines.length >> 1]!; // the middle one (the upper of two)
  const span = cosines[cosines.length - 1]! - median;
  if (!(span > 0)) return out;
  for (const [address, cosine] of semantic) {
    const meaning = (cosine - median) / span;
    if (meaning > 0) out.set(address, (out.get(address) ?? 0) + weight * meaning);
  }
  return out;
}
