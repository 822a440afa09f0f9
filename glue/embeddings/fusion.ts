// How search combines its lexical scores with the semantic layer's cosines: each side brought to
// 0..1, then a weighted sum. The one table of fusion numbers is FUSION_TUNING (tuning, not
// limits; test/architecture.test.ts allows numbers here), tuned on the search bench's tune
// half only (npm run bench:semantic) and checked on its held-out half.

export const FUSION_TUNING = {
  /**
   * Share of the fused score that comes from meaning rather than words. Lexical matching still
   * carries exact names and rare words best; sentence vectors carry paraphrases ("folder" for
   * "directory") that share no word with the tool. Below about 0.3 paraphrases stay out of the
   * first page; above about 0.6 a tool with the query's exact words loses to one that only reads
   * alike. 0.4 was the best top-1 and recall@10 of the tune half.
   */
  semanticWeight: 0.4,
  /**
   * Cosine at or below which a tool counts as unrelated: sentence vectors of unrelated English
   * texts are not orthogonal (USE lite gives about 0.1 to 0.3), so the semantic side is measured
   * from this floor, and a query no tool means scores low on it instead of lifting the nearest.
   */
  cosineFloor: 0.2,
} as const;

/**
 * The fused score of every tool either side scored: `(1 - weight) × lexical / best lexical +
 * weight × max(0, (cosine - floor) / (1 - floor))`, in 0..1. Without semantic scores (the layer
 * is off or not ready) it is the lexical score normalized alone, so the order is today's. A tool
 * only the semantic side found enters when its cosine is over the floor.
 */
export function fuseScores(lexical: ReadonlyMap<string, number>, semantic: ReadonlyMap<string, number> | undefined, weight: number = FUSION_TUNING.semanticWeight, floor: number = FUSION_TUNING.cosineFloor): Map<string, number> {
  let best = 0;
  for (const s of lexical.values()) if (s > best) best = s;
  const out = new Map<string, number>();
  const lexicalShare = semantic ? 1 - weight : 1;
  for (const [address, s] of lexical) if (s > 0 && best > 0) out.set(address, lexicalShare * (s / best));
  if (!semantic) return out;
  for (const [address, cosine] of semantic) {
    const meaning = Math.max(0, (cosine - floor) / (1 - floor));
    if (meaning > 0) out.set(address, (out.get(address) ?? 0) + weight * meaning);
  }
  return out;
}
