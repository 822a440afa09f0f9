// Search ranking weights and tokenizer settings: tuning, not limits (the bounds of search, such
// as page sizes and how much of a description is indexed, are in spec/bounds.md). One table, each
// weight with what it does; change them together with test/catalog-search.test.ts, whose ranking
// cases are what they are tuned against. This file is on the numeric-literal allow-list of
// test/architecture.test.ts.

export const SEARCH_TUNING = {
  /**
   * BM25F fields, in the order search-index.ts builds them: `weight` multiplies a field's term
   * frequency, `b` is how strongly the field's length normalizes it (0: not at all). The name
   * says what a tool is; the schema's parameter names only hint.
   */
  fields: [
    { weight: 3.0, b: 0.5 }, // name
    { weight: 2.0, b: 0.5 }, // title
    { weight: 1.0, b: 0.75 }, // description
    { weight: 0.5, b: 0.5 }, // input property names
    { weight: 0.5, b: 0 }, // connector id
  ],
  /** BM25's k1: how fast repeated occurrences of a term stop adding to a field's score. */
  k1: 1.2,
  /** BM25's idf smoothing: log(1 + (n - df + s) / (df + s)). */
  idfSmoothing: 0.5,
  /** A word's exact surface form ("=incidents") counts this much of its stem's weight. */
  surfaceFactor: 0.3,
  /** A tool whose name holds every query term gains this share of the best lexical score a query can reach. */
  nameAllBoost: 0.5,
  /** An exact name or address match gains this many times the best lexical score a query can reach (plus one), so it beats anything lexical. */
  exactBoost: 2,
  /** Scores are compared and reported in thousandths. */
  scoreScale: 1000,
  /** Sort key = milli-score × rankSpan + reversed address rank: one numeric sort, exact in a double; also the most tools one index holds. */
  rankSpan: 2 ** 24,
  /** Per-document term accumulators start this large (terms) and grow by `growth`. */
  scratchTerms: 1024,
  growth: 2,
  /** Shortest word kept (one-character words carry no signal). */
  wordCharsMin: 2,
  /** Shortest word that plural stemming touches. */
  stemCharsMin: 3,
  /** Shortest word whose "-ies" becomes "-y" ("entities" → "entity"; "ties" → "tie"). */
  iesStemCharsMin: 5,
} as const;
