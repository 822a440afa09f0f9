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
    { weight: 0.7, b: 0.75 }, // description
    { weight: 0.5, b: 0.5 }, // input property names
    { weight: 0.5, b: 0 }, // connector id
  ],
  /** BM25's k1: how fast repeated occurrences of a term stop adding to a field's score. */
  k1: 1.2,
  /** BM25's idf smoothing: log(1 + (n - df + s) / (df + s)). */
  idfSmoothing: 0.5,
  /**
   * A query word a tool only mentions (in its description, parameter names or connector id, not
   * its name or title) counts at most this share of a full match: a one-word query answered only
   * by mentions stays under weakFloor.
   */
  mentionShare: 0.3,
  /**
   * When a query word names a connector ("…on github"), the other connectors' tools keep this
   * share of their value (server-then-tool routing): the named connector's twin of a tool wins.
   */
  otherConnectorFactor: 0.75,
  /** Share of a term's uncapped BM25F weight added beside its capped gain: orders tools that match equally well. */
  tieBreak: 0.05,
  /** A word's exact surface form ("=incidents") counts this much of its stem's weight. */
  surfaceFactor: 0.3,
  /** A tool whose name holds every query term gains this share of what the query can reach. */
  nameAllBoost: 0.5,
  /** A query that starts a tool's name (at least prefixCharsMin characters, no spaces) gains this share; an exact name still ranks above. */
  prefixBoost: 1,
  prefixCharsMin: 3,
  /**
   * What one query term matched once in a tool's name counts toward the 0–1 score's denominator
   * (times the term's idf): about what such a match weighs after BM25 saturation, so a tool
   * matching every word in its name scores near 1 and one matching a single minor word scores low.
   */
  fullMatch: 1.5,
  /** An exact name or address match is ranked this far above any other value, so it beats anything lexical. */
  exactTier: 1000,
  /**
   * A lexicon expansion term (lexicon.json) counts this much of a query word: less than the
   * query's own words, enough to break a tie between siblings ("submit" → create_*).
   */
  expansionWeight: 0.7,
  /** The same, when some tool has the word it expands in its name or title (the catalog speaks the word). */
  expansionWeightNamed: 0.5,
  /** The same, when the word it expands is one no tool in the catalog uses (its only way in). */
  expansionWeightUnknown: 0.9,
  /**
   * Results scoring below this (0–1) are marked weak: tuned on the bench's tune split so most
   * questions no tool answers come back weak or empty while right answers stay above it. Read off
   * the fused score when the ranking is hybrid (its evidence is on a fixed scale, so a query whose
   * nearest tool is far stays low): on the tune half 0.35 kept 7 of 8 negatives weak or empty,
   * 0.3 only 6.
   */
  weakFloor: 0.35,
  /**
   * Reciprocal rank fusion of several phrasings: 1 / (rrfK + rank). 60 is the value the method was
   * published with; a larger k flattens the gap between first and tenth, so agreement between
   * phrasings counts more than any one phrasing's top.
   */
  rrfK: 60,
  /**
   * Share of a tool's score that comes from meaning rather than words, when the semantic layer
   * scored the query (fuse() in search-index.ts; its evidence is the cosine measured from the
   * catalog's median tool, glue/embeddings/evidence.ts). Lexical matching carries exact names and
   * rare words best; sentence vectors carry paraphrases that share no word with the tool. Swept
   * 0.15–0.7 on the bench's tune half (npm run bench:search): 0.2 gave the best top-1 (80.4 %),
   * recall@10 (93.5 %) and MRR (0.848); from 0.3 on, tools that only read alike pass the one with
   * the query's own words.
   */
  semanticWeight: 0.2,
  /**
   * A tool that only the semantic layer found (no shared word) is a candidate from this evidence
   * (0–1) up, so a query no tool answers can still come back empty. 0.2 and 0.3 ranked alike on
   * the tune half; 0.4 lost recall.
   */
  semanticCandidateFloor: 0.3,
  /** Scores are compared and reported in thousandths. */
  scoreScale: 1000,
  /** The most tools one index holds. */
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
