// Lexical search over the whole catalog: BM25F over weighted fields, built once into flat
// postings so a query touches only the documents that share a term with it.
import type { CatalogEntry, Safety } from "./entry.js";
import { stem, words } from "./tokenize.js";
import { expansions, spellOut } from "./lexicon.js";
import { isJsonObject } from "../support/json-object.js";
import { SEARCH_TUNING as T } from "./search-tuning.js";
import { SEARCH_DESCRIPTION_INDEX_CHARS, SEARCH_PAGE_DEFAULT, SEARCH_PAGE_MAX, SEARCH_PARAM_DEPTH_MAX, SEARCH_PARAM_NAMES_MAX, SEARCH_PHRASINGS_MAX, SEARCH_QUERY_WORDS_MAX } from "../decisions/generated/spec.js";

export interface SearchQuery {
  query: string;
  /** More phrasings of the same need: each is ranked, then the rankings are fused (RRF). */
  queries?: readonly string[];
  connector?: string;
  safety?: Safety | "any";
  offset?: number;
  limit?: number;
}

interface SearchRow {
  entry: CatalogEntry;
  /** 0–1: how much of the query the tool matched (1: its exact name); 0 when listing. */
  score: number;
  /** Below the confidence floor (search-tuning.ts weakFloor): probably not what was asked for. */
  weak: boolean;
}

/**
 * Scores from another source, the semantic layer: tool address → evidence in 0–1. fuse() blends
 * them into the lexical score with search-tuning.ts `semanticWeight`; a tool that only this source
 * found becomes a candidate when its evidence reaches `semanticCandidateFloor`.
 */
export type ExtraScores = ReadonlyMap<string, number>;

export interface SearchResult {
  total: number;
  rows: SearchRow[];
}

/** A term's slice of the shared posting arrays, and its inverse document frequency. */
interface Term {
  start: number;
  end: number;
  idf: number;
  /** Some tool has the term in its name or title, not only in a description. */
  named: boolean;
}

export interface SearchIndex {
  readonly entries: readonly CatalogEntry[];
  readonly terms: ReadonlyMap<string, Term>;
  readonly postDoc: Int32Array;
  readonly postWeight: Float64Array; // saturated, length-normalized term weight (IDF applied at query)
  readonly postInName: Uint8Array; // 1 when the term occurs in the tool name
  readonly postStrong: Uint8Array; // 1 when the term occurs in the tool name or title (not only mentioned)
  readonly docConnector: Int32Array; // doc → its connector's number
  readonly connectorsByTerm: ReadonlyMap<string, readonly number[]>; // a stemmed word of a connector id → the connectors whose id holds it
  readonly byName: ReadonlyMap<string, number[]>; // lowercased name → docs
  readonly names: readonly string[]; // doc → lowercased name (prefix matches)
  readonly byAddress: ReadonlyMap<string, number[]>; // lowercased address → docs
  readonly addressRank: Int32Array; // doc → position in address order (the tie-break)
  readonly rankDoc: Int32Array; // the inverse
  readonly browseOrder: Int32Array; // connector, then name, then input order
  // Scratch for one query at a time (search is synchronous), so a query never
  // allocates or clears anything proportional to the catalog.
  readonly scratch: { score: Float64Array; nameHits: Int32Array; seen: Uint8Array; touched: Int32Array; best: Float64Array; bestDocs: Int32Array };
}

// Field weights and the other ranking weights: search-tuning.ts.
const FIELDS = T.fields;
const NAME_FIELD = 0;
const TITLE_FIELD = 1;
const K1 = T.k1;
// A word also indexes its exact surface form ("=incidents") when that differs from its stem,
// so "incidents" prefers list_incidents over get_incident while still matching both.
const SURFACE = "=";
// The most tools one index holds.
const RANK_SPAN = T.rankSpan;

/** Parameter names of an untrusted schema, bounded in depth and count. @internal exported for the search bench. */
export function paramNames(schema: unknown): string[] {
  const names: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > SEARCH_PARAM_DEPTH_MAX || !isJsonObject(node)) return;
    const props = node.properties;
    if (isJsonObject(props)) {
      for (const key of Object.keys(props)) {
        if (names.length >= SEARCH_PARAM_NAMES_MAX) return;
        names.push(key);
        walk(props[key], depth + 1);
      }
    }
    walk(node.items, depth + 1);
  };
  try {
    walk(schema, 0);
  } catch {
    // A hostile schema only loses its parameter hints.
  }
  return names;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");

function fieldWords(e: CatalogEntry): string[][] {
  return [
    words(text(e.name)),
    words(text(e.title)),
    words(text(e.description).slice(0, SEARCH_DESCRIPTION_INDEX_CHARS)),
    words(paramNames(e.inputSchema).join(" ")),
    words(text(e.connectorId)),
  ];
}

const codeUnitCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function pushTo(map: Map<string, number[]>, key: string, doc: number): void {
  const list = map.get(key);
  if (list) list.push(doc);
  else map.set(key, [doc]);
}

function sortedDocs(n: number, compare: (a: number, b: number) => number): Int32Array {
  return Int32Array.from(Array.from({ length: n }, (_, i) => i).sort((a, b) => compare(a, b) || a - b));
}

export function buildSearchIndex(entries: CatalogEntry[]): SearchIndex {
  const docs = entries.slice();
  const n = docs.length;
  if (n >= RANK_SPAN) throw new RangeError(`catalog too large to index: ${n} entries`);
  const fields = docs.map(fieldWords);
  const avgLen = FIELDS.map((_, f) => (n > 0 ? fields.reduce((sum, fw) => sum + fw[f]!.length, 0) / n : 0));

  // Every distinct word maps once to its stem term and (if different) its surface term,
  // so the per-word work below is one map lookup and array arithmetic.
  const termIds = new Map<string, number>();
  const termId = (t: string): number => {
    let id = termIds.get(t);
    if (id === undefined) termIds.set(t, (id = termIds.size));
    return id;
  };
  const wordIds = new Map<string, number>();
  const wordStem: number[] = [];
  const wordSurface: number[] = []; // -1 when the word is its own stem
  const wordId = (w: string): number => {
    let id = wordIds.get(w);
    if (id === undefined) {
      wordIds.set(w, (id = wordStem.length));
      const t = stem(w);
      wordStem.push(termId(t));
      wordSurface.push(t === w ? -1 : termId(SURFACE + w));
    }
    return id;
  };

  // Pass 1: one (term, doc, weight, inName) row per distinct term of each doc.
  const rowTerm: number[] = [];
  const rowDoc: number[] = [];
  const rowWeight: number[] = [];
  const rowInName: number[] = [];
  const rowStrong: number[] = [];
  const byName = new Map<string, number[]>();
  const byAddress = new Map<string, number[]>();
  // Dense per-doc accumulators by term id (grown by doubling; a sparse JS array would go slow).
  let tf = new Float64Array(T.scratchTerms);
  let inName = new Uint8Array(T.scratchTerms);
  let strong = new Uint8Array(T.scratchTerms);
  const docTerms: number[] = [];
  const add = (t: number, unit: number, name: boolean, named: boolean): void => {
    if (t >= tf.length) {
      const size = Math.max(t + 1, tf.length * T.growth);
      const grownTf = new Float64Array(size);
      grownTf.set(tf);
      tf = grownTf;
      const grownName = new Uint8Array(size);
      grownName.set(inName);
      inName = grownName;
      const grownStrong = new Uint8Array(size);
      grownStrong.set(strong);
      strong = grownStrong;
    }
    if (tf[t] === 0) docTerms.push(t);
    tf[t] += unit;
    if (name) inName[t] = 1;
    if (named) strong[t] = 1;
  };
  for (let d = 0; d < n; d++) {
    pushTo(byName, text(docs[d]!.name).toLowerCase(), d);
    pushTo(byAddress, text(docs[d]!.address).toLowerCase(), d);
    // BM25F: per-field tf, length-normalized and weighted, summed, then saturated once.
    for (let f = 0; f < FIELDS.length; f++) {
      const list = fields[d]![f]!;
      if (list.length === 0) continue;
      const { weight, b } = FIELDS[f]!;
      const unit = weight / (1 - b + (b * list.length) / avgLen[f]!);
      const named = f === NAME_FIELD || f === TITLE_FIELD;
      for (const w of list) {
        const id = wordId(w);
        add(wordStem[id]!, unit, f === NAME_FIELD, named);
        if (wordSurface[id]! >= 0) add(wordSurface[id]!, unit, false, named);
      }
    }
    for (const t of docTerms) {
      const w = tf[t]!;
      rowTerm.push(t);
      rowDoc.push(d);
      rowWeight.push((w * (K1 + 1)) / (w + K1));
      rowInName.push(inName[t]!);
      rowStrong.push(strong[t]!);
      tf[t] = 0;
      inName[t] = 0;
      strong[t] = 0;
    }
    docTerms.length = 0;
  }

  // Pass 2: counting sort of the rows by term into shared typed arrays (docs stay ascending).
  const df = new Int32Array(termIds.size);
  for (const id of rowTerm) df[id]!++;
  const start = new Int32Array(termIds.size + 1);
  for (let id = 0; id < df.length; id++) start[id + 1] = start[id]! + df[id]!;
  const fill = start.slice(0, df.length);
  const postDoc = new Int32Array(rowTerm.length);
  const postWeight = new Float64Array(rowTerm.length);
  const postInName = new Uint8Array(rowTerm.length);
  const postStrong = new Uint8Array(rowTerm.length);
  for (let r = 0; r < rowTerm.length; r++) {
    const at = fill[rowTerm[r]!]!++;
    postDoc[at] = rowDoc[r]!;
    postWeight[at] = rowWeight[r]!;
    postInName[at] = rowInName[r]!;
    postStrong[at] = rowStrong[r]!;
  }
  const named = new Uint8Array(termIds.size);
  for (let r = 0; r < rowTerm.length; r++) if (rowStrong[r] === 1) named[rowTerm[r]!] = 1;
  const terms = new Map<string, Term>();
  for (const [t, id] of termIds) {
    terms.set(t, { start: start[id]!, end: start[id + 1]!, idf: Math.log(1 + (n - df[id]! + T.idfSmoothing) / (df[id]! + T.idfSmoothing)), named: named[id] === 1 });
  }

  // Connectors by the words of their ids, so a query naming one ("…on github") can favour its tools.
  const connectorNumbers = new Map<string, number>();
  const docConnector = Int32Array.from(docs, (e) => {
    const id = text(e.connectorId);
    let c = connectorNumbers.get(id);
    if (c === undefined) connectorNumbers.set(id, (c = connectorNumbers.size));
    return c;
  });
  const connectorsByTerm = new Map<string, number[]>();
  for (const [id, c] of connectorNumbers) for (const t of new Set(words(id).map(stem))) pushTo(connectorsByTerm, t, c);

  const rankDoc = sortedDocs(n, (a, b) => codeUnitCompare(text(docs[a]!.address), text(docs[b]!.address)));
  const addressRank = new Int32Array(n);
  rankDoc.forEach((d, rank) => (addressRank[d] = rank));
  const browseOrder = sortedDocs(
    n,
    (a, b) => codeUnitCompare(text(docs[a]!.connectorId), text(docs[b]!.connectorId)) || codeUnitCompare(text(docs[a]!.name), text(docs[b]!.name)),
  );

  return {
    entries: docs,
    terms,
    postDoc,
    postWeight,
    postInName,
    postStrong,
    docConnector,
    connectorsByTerm,
    byName,
    names: docs.map((e) => text(e.name).toLowerCase()),
    byAddress,
    addressRank,
    rankDoc,
    browseOrder,
    scratch: { score: new Float64Array(n), nameHits: new Int32Array(n), seen: new Uint8Array(n), touched: new Int32Array(n), best: new Float64Array(n), bestDocs: new Int32Array(n) },
  };
}

function page(q: SearchQuery): { offset: number; limit: number } {
  const int = (v: unknown, dflt: number): number => (typeof v === "number" && Number.isFinite(v) ? Math.floor(v) : dflt);
  return {
    offset: Math.max(0, int(q.offset, 0)),
    limit: Math.min(SEARCH_PAGE_MAX, Math.max(1, int(q.limit, SEARCH_PAGE_DEFAULT))),
  };
}

/** Strip wrapping quotes or backticks so `"list_incidents"` still counts as an exact name. */
const exactKey = (query: string): string => query.trim().replace(/^["'`]+|["'`]+$/g, "").toLowerCase();

/** One phrasing's ranking: every matching doc, best first, with its 0–1 score. */
interface Ranked { docs: Int32Array; scores: Float64Array }

/**
 * The one fusion of lexical and semantic scores: a doc's lexical value (its score relative to what
 * the query could reach, not clipped) blended with its semantic evidence in 0–1, weighted by
 * `semanticWeight`. With no evidence for the doc the semantic part counts 0.
 * @internal exported for its tests.
 */
export function fuse(lexical: number, extra: number | undefined): number {
  return (1 - T.semanticWeight) * lexical + T.semanticWeight * (extra ?? 0);
}

/**
 * A query word that is a connector's id word however it is cased ("GitHub" for the connector
 * github) is kept whole, not split at its camel hump, so it can name its connector.
 */
const connectorWordsWhole = (index: SearchIndex, query: string): string =>
  query.replace(/[\p{L}\p{N}]+/gu, (w) => (w !== w.toLowerCase() && index.connectorsByTerm.has(stem(w.toLowerCase())) ? w.toLowerCase() : w));

/** Rank one phrasing. `passes` filters by connector and safety. */
function rankPhrasing(index: SearchIndex, query: string, passes: (d: number) => boolean, extra: ExtraScores | undefined): Ranked {
  const entries = index.entries;
  // Sorted unique terms: the float sum is then independent of query word order.
  const qWords = spellOut(words(connectorWordsWhole(index, query)).slice(0, SEARCH_QUERY_WORDS_MAX)).slice(0, SEARCH_QUERY_WORDS_MAX);
  const qStems = qWords.map(stem);
  const qTerms = [...new Set(qStems)].sort(codeUnitCompare);
  const qSurface = [...new Set(qWords.filter((w) => stem(w) !== w).map((w) => SURFACE + w))].sort(codeUnitCompare);
  // What a tool matching one query term once in its name would score (its share of the 0–1
  // score's denominator). A word no tool uses counts as the rarest term there could be.
  const n = entries.length;
  const unseenIdf = Math.log(1 + (n + T.idfSmoothing) / T.idfSmoothing);
  const share = (t: string): number => (index.terms.get(t)?.idf ?? unseenIdf) * T.fullMatch;
  // Concepts: each distinct query word with the lexicon terms it stands for, or a phrase's terms.
  // A doc earns, per concept, the best of its own word (full weight) and the expansion terms
  // (less), never their sum, so a long description full of synonyms gains nothing extra.
  // A word the catalog never uses leans on its expansions more.
  // A word some tool names (in its name or title) leans on its expansions least: there, a tool
  // named by a synonym ("drop" for "delete") is more likely another thing.
  const known = (from: number, to: number): boolean => qStems.slice(from, to).some((t) => index.terms.has(t));
  const named = (from: number, to: number): boolean => qStems.slice(from, to).some((t) => index.terms.get(t)?.named === true);
  const concepts = new Map<string, { members: { term: string; factor: number }[]; share: number }>();
  for (const t of qTerms) concepts.set(t, { members: [{ term: t, factor: 1 }], share: share(t) });
  for (const x of expansions(qStems)) {
    const isKnown = known(x.from, x.to);
    // A phrase member's single words ("file" of "file a bug") stand in only for a word the catalog lacks.
    if (x.fromPhrase && isKnown) continue;
    const factor = named(x.from, x.to) ? T.expansionWeightNamed : isKnown ? T.expansionWeight : T.expansionWeightUnknown;
    const span = qStems.slice(x.from, x.to);
    const key = span.length === 1 ? span[0]! : SURFACE + span.join(" ");
    const concept = concepts.get(key) ?? { members: [], share: [...new Set(span)].reduce((sum, t) => sum + share(t), 0) };
    concept.members.push({ term: x.term, factor });
    concepts.set(key, concept);
  }
  const conceptOrder = [...concepts.keys()].sort(codeUnitCompare);

  // A query word that names a connector ("…on github", "…in slack") routes: that connector's tools
  // count the word as fully matched, every other tool keeps `otherConnectorFactor` of its value.
  // A query of connector words alone is no routing, only words.
  const routing = qTerms.filter((t) => index.connectorsByTerm.has(t));
  const routeShare = new Map<number, { share: number; terms: number }>();
  if (routing.length < qTerms.length) {
    for (const t of routing) {
      for (const c of index.connectorsByTerm.get(t)!) {
        const r = routeShare.get(c) ?? { share: 0, terms: 0 };
        r.share += share(t);
        r.terms++;
        routeShare.set(c, r);
      }
    }
  }
  const routes = new Set(routeShare.size > 0 ? routing : []);

  const { score, nameHits, seen, touched } = index.scratch;
  let touchedCount = 0;
  const touch = (d: number): void => {
    if (seen[d] === 0) {
      seen[d] = 1;
      touched[touchedCount++] = d;
    }
  };
  // What a tool matching every word of the query, once each in its name, would score: the
  // denominator of the 0–1 score.
  let reachable = 0;
  for (const t of qTerms) reachable += share(t);
  // One posting's gain for a concept with this share: its BM25F weight, capped at the share (times
  // the member's factor), and at `mentionShare` of it when the term is only mentioned (description,
  // parameters, connector id), not in the name or title. So one strongly matched word cannot make up
  // for the others, and a word a tool merely mentions is no match of what the tool is.
  // A sliver of the uncapped weight (`tieBreak`) still orders tools that match equally well.
  const gainOf = (i: number, idf: number, factor: number, conceptShare: number): number => {
    const raw = idf * index.postWeight[i]!;
    return Math.min(raw, factor * conceptShare * (index.postStrong[i] === 1 ? 1 : T.mentionShare)) + T.tieBreak * raw;
  };
  const accumulate = (t: string, factor: number, conceptShare: number): void => {
    const term = index.terms.get(t);
    if (!term) return;
    const idf = factor * term.idf;
    for (let i = term.start; i < term.end; i++) {
      const d = index.postDoc[i]!;
      touch(d);
      score[d] += gainOf(i, idf, factor, conceptShare);
    }
  };
  // One concept: a doc's best term of the concept counts; `best` is reset after each concept.
  const { best, bestDocs } = index.scratch;
  const accumulateConcept = (concept: string): void => {
    const { members, share: conceptShare } = concepts.get(concept)!;
    const routed = routes.has(concept);
    let count = 0;
    for (const { term: t, factor } of members) {
      const term = index.terms.get(t);
      if (!term) continue;
      const idf = factor * term.idf;
      for (let i = term.start; i < term.end; i++) {
        const d = index.postDoc[i]!;
        touch(d);
        if (routed && routeShare.has(index.docConnector[d]!)) continue; // counted whole below
        const gain = gainOf(i, idf, factor, conceptShare);
        if (best[d] === 0) bestDocs[count++] = d;
        if (gain > best[d]!) {
          score[d] += gain - best[d]!;
          best[d] = gain;
        }
        if (factor === 1) nameHits[d] += index.postInName[i]!;
      }
    }
    for (let i = 0; i < count; i++) best[bestDocs[i]!] = 0;
  };

  const key = exactKey(query);
  const exact = new Set([...(index.byName.get(key) ?? []), ...(index.byAddress.get(key) ?? [])]);
  // A query that is the start of a tool name ("create_pull") is nearly as good as the name.
  const prefixed = new Set<number>();
  if (key.length >= T.prefixCharsMin && !/\s/.test(key)) index.names.forEach((name, d) => { if (name.startsWith(key) && !exact.has(d)) prefixed.add(d); });
  let keys: Float64Array;
  let total = 0;
  try {
    for (const c of conceptOrder) accumulateConcept(c);
    for (const t of qSurface) accumulate(t, T.surfaceFactor, share(stem(t.slice(SURFACE.length))));
    for (const d of exact) touch(d);
    for (const d of prefixed) touch(d);
    if (extra) {
      for (const [address, e] of extra) if (e >= T.semanticCandidateFloor) for (const d of index.byAddress.get(address.toLowerCase()) ?? []) touch(d);
    }
    keys = new Float64Array(touchedCount);
    for (let i = 0; i < touchedCount; i++) {
      const d = touched[i]!;
      if (!passes(d)) continue;
      let s = score[d]!;
      const route = routeShare.get(index.docConnector[d]!);
      if (route) s += route.share;
      if (qTerms.length > 0 && nameHits[d] + (route?.terms ?? 0) === qTerms.length) s += T.nameAllBoost * reachable;
      if (prefixed.has(d)) s += T.prefixBoost * reachable;
      if (routeShare.size > 0 && !route) s *= T.otherConnectorFactor;
      const lexical = reachable > 0 ? s / reachable : 0;
      const value = extra ? fuse(lexical, extra.get(text(entries[d]!.address))) : lexical;
      // An exact name or address outranks anything lexical (and scores 1).
      keys[total++] = sortKey(index, d, exact.has(d) ? T.exactTier + value : value);
    }
  } finally {
    for (let i = 0; i < touchedCount; i++) {
      const d = touched[i]!;
      score[d] = 0;
      nameHits[d] = 0;
      seen[d] = 0;
    }
  }
  // Ascending numeric sort; read from the end: best value first, then address ascending.
  const sorted = keys.subarray(0, total).sort();
  const ranked: Ranked = { docs: new Int32Array(total), scores: new Float64Array(total) };
  for (let i = 0; i < total; i++) {
    const k = sorted[total - 1 - i]!;
    const milli = Math.floor(k / RANK_SPAN);
    ranked.docs[i] = index.rankDoc[RANK_SPAN - 1 - (k - milli * RANK_SPAN)]!;
    ranked.scores[i] = milli >= T.exactTier * T.scoreScale ? 1 : Math.min(1, milli / T.scoreScale);
  }
  return ranked;
}

/** Sort key = value in thousandths × RANK_SPAN + reversed address rank: one numeric sort, exact in a double. */
const sortKey = (index: SearchIndex, d: number, value: number): number => Math.round(value * T.scoreScale) * RANK_SPAN + (RANK_SPAN - 1 - index.addressRank[d]!);

/**
 * Reciprocal rank fusion: a doc's fused value is the sum over phrasings of 1 / (k + its rank),
 * so a tool that any phrasing puts near the top rises, and one that several agree on rises most.
 * Its score is the best it reached in any phrasing.
 */
function fuseRankings(index: SearchIndex, rankings: readonly Ranked[]): Ranked {
  const fused = new Map<number, { rrf: number; score: number }>();
  for (const r of rankings) {
    for (let rank = 0; rank < r.docs.length; rank++) {
      const d = r.docs[rank]!;
      const f = fused.get(d) ?? { rrf: 0, score: 0 };
      f.rrf += 1 / (T.rrfK + rank + 1);
      f.score = Math.max(f.score, r.scores[rank]!);
      fused.set(d, f);
    }
  }
  // Fused values are at most phrasings / (k + 1): scaled by k, they compare in the same thousandths.
  const order = [...fused].sort(([a, fa], [b, fb]) => sortKey(index, b, fb.rrf * T.rrfK) - sortKey(index, a, fa.rrf * T.rrfK));
  return { docs: Int32Array.from(order, ([d]) => d), scores: Float64Array.from(order, ([, f]) => f.score) };
}

export function searchIndex(index: SearchIndex, q: SearchQuery, extra?: ExtraScores): SearchResult {
  const { offset, limit } = page(q);
  const safety = q.safety ?? "any";
  const entries = index.entries;
  const passes = (d: number): boolean => {
    const e = entries[d]!;
    return (q.connector === undefined || e.connectorId === q.connector) && (safety === "any" || e.safety === safety);
  };

  const phrasings = [q.query, ...(Array.isArray(q.queries) ? q.queries : [])]
    .filter((p): p is string => typeof p === "string" && p.trim() !== "")
    .slice(0, SEARCH_PHRASINGS_MAX);
  if (phrasings.length === 0) {
    const hits: number[] = [];
    for (const d of index.browseOrder) if (passes(d)) hits.push(d);
    return { total: hits.length, rows: hits.slice(offset, offset + limit).map((d) => ({ entry: entries[d]!, score: 0, weak: false })) };
  }
  const rankings = phrasings.map((p) => rankPhrasing(index, p, passes, extra));
  const ranked = rankings.length === 1 ? rankings[0]! : fuseRankings(index, rankings);
  const rows: SearchRow[] = [];
  for (let i = offset; i < ranked.docs.length && rows.length < limit; i++) {
    const s = ranked.scores[i]!;
    rows.push({ entry: entries[ranked.docs[i]!]!, score: Math.round(s * T.scoreScale) / T.scoreScale, weak: s < T.weakFloor });
  }
  return { total: ranked.docs.length, rows };
}
