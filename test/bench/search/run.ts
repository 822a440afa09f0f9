// `npm run bench:search`: how well atrium's search_tools ranking finds the right tool on the
// captured catalogs of real MCP servers, and how fast it is at their real size and at 10,000
// tools, lexical only and hybrid (with the bundled model's semantic evidence). Figures only;
// nothing here asserts. `--json` prints one JSON object instead of tables. Every query goes
// through findTools, the one function behind search_tools and atrium.search.
import { findTools } from "../../../glue/calls/discovery.js";
import MiniSearch from "minisearch";
import { buildSearchIndex, paramNames } from "../../../glue/catalog/search-index.js";
import { expansions } from "../../../glue/catalog/lexicon.js";
import { stem, words } from "../../../glue/catalog/tokenize.js";
import { SEARCH_TUNING as T } from "../../../glue/catalog/search-tuning.js";
import { SEARCH_PAGE_DEFAULT } from "../../../glue/decisions/generated/spec.js";
import type { Catalog } from "../../../glue/catalog/catalog.js";
import { FIELD_KINDS, KINDS, SPLITS, loadCatalogs, loadFieldQueries, loadQueries, sharedWords, toolsByAddress, type BenchQuery, type Kind } from "./data.js";
import { buildCatalog, synthesize } from "./catalog.js";
import { loadSemantic } from "./semantic-scores.js";
import { semanticEvidence } from "../../../glue/embeddings/evidence.js";
import type { ExtraScores } from "../../../glue/catalog/search-index.js";
import { toolText } from "../../../glue/embeddings/tool-text.js";
import { ToolVectors, type ToolCosines } from "../../../glue/embeddings/tool-vectors.js";
import { VectorCache, vectorKey } from "../../../glue/embeddings/vector-cache.js";
import type { Embedder } from "../../../glue/embeddings/embedder.js";
import { dequantize } from "../../harness/vectors.js";

const LARGE = 10_000;
const SEED = 12;
const ROUNDS_REAL = 20; // timed passes over every query at the real size
const ROUNDS_LARGE = 5; // and at 10,000 tools
const BUILDS = 5; // index builds timed at 10,000 tools (after one that warms up)
const json = process.argv.includes("--json");
// `--misses=tune` lists the tune half's misses instead (what ranking work may look at).
const missSplit = process.argv.includes("--misses=tune") ? "tune" : "heldout";
// `--quick`: lexical quality only (no model, no speed, no MiniSearch), for a fast look while working.
const quick = process.argv.includes("--quick");

interface Outcome { q: BenchQuery; addresses: string[]; total: number; rank: number; weak: boolean[] } // rank -1: not in the first page

function ask(catalog: Catalog, query: string, extra?: ExtraScores) {
  return findTools(catalog, { query, safety: "any", limit: SEARCH_PAGE_DEFAULT }, extra);
}

/** A hybrid search as atrium runs it, minus the worker hop: the query's cosines, their evidence, the fused ranking. */
async function askHybrid(catalog: Catalog, vectors: ToolVectors, query: string) {
  return ask(catalog, query, semanticEvidence(await vectors.scores([query])));
}

// ---- MiniSearch, tried against the hand-written index -----------------------------------
// MiniSearch 7.2.0 (BM25+, field boosts, prefix and fuzzy matching) over the same fields, the
// same tokenizer and stemmer, the same field weights and the same lexicon expansion (expansion
// terms boosted by the same weights), with an exact name still ranked first. Only the engine
// differs, so the figures compare the engines.
const MINI_FIELDS = ["name", "title", "description", "params", "connector"] as const;
const MINI_PREFIX_CHARS = 4; // prefix matching for query words at least this long
const MINI_FUZZY = 0.2; // edit distance as a share of the word's length

function miniIndex(catalog: Catalog): { search: (query: string) => { addresses: string[]; total: number } } {
  const entries = catalog.entries();
  const mini = new MiniSearch({
    fields: [...MINI_FIELDS],
    idField: "address",
    tokenize: (text) => words(text),
    processTerm: (term) => stem(term.toLowerCase()),
    searchOptions: { boost: Object.fromEntries(MINI_FIELDS.map((f, i) => [f, T.fields[i]!.weight])), combineWith: "OR" },
  });
  mini.addAll(entries.map((e) => ({ address: e.address, name: e.name, title: e.title ?? "", description: e.description, params: paramNames(e.inputSchema).join(" "), connector: e.connectorId })));
  const byName = new Map<string, string[]>();
  for (const e of entries) for (const k of [e.name.toLowerCase(), e.address.toLowerCase()]) byName.set(k, [...(byName.get(k) ?? []), e.address]);
  return {
    search(query) {
      const own = words(query).map(stem);
      const expanded = expansions(own);
      const boost = new Map<string, number>(own.map((t) => [t, 1]));
      for (const x of expanded) if (!boost.has(x.term)) boost.set(x.term, T.expansionWeight);
      const terms = [...boost.keys()];
      const hits = terms.length === 0 ? [] : mini.search(terms.join(" "), {
        boostTerm: (term) => boost.get(term) ?? 1,
        prefix: (term) => term.length >= MINI_PREFIX_CHARS,
        fuzzy: (term) => (term.length >= MINI_PREFIX_CHARS ? MINI_FUZZY : false),
      });
      const exact = byName.get(query.trim().toLowerCase()) ?? [];
      const addresses = [...exact, ...hits.map((h) => h.id as string).filter((a) => !exact.includes(a))];
      return { addresses: addresses.slice(0, SEARCH_PAGE_DEFAULT), total: addresses.length };
    },
  };
}

function judgeMini(mini: ReturnType<typeof miniIndex>, queries: BenchQuery[]): Outcome[] {
  return queries.map((q) => {
    const { addresses, total } = mini.search(q.query);
    return { q, addresses, total, rank: addresses.findIndex((a) => q.expect.includes(a)), weak: addresses.map(() => false) };
  });
}

function judge(catalog: Catalog, queries: BenchQuery[], cosines?: Map<BenchQuery, ToolCosines>): Outcome[] {
  return queries.map((q) => {
    const found = ask(catalog, q.query, cosines && semanticEvidence(cosines.get(q)!));
    const addresses = found.results.map((r) => r.address);
    return { q, addresses, total: found.total, rank: addresses.findIndex((a) => q.expect.includes(a)), weak: found.results.map((r) => r.weak === true) };
  });
}

interface Quality {
  positives: number; top1: number; recall3: number; recall10: number; mrr: number;
  negatives: number; negativesEmpty: number; negativesWeak: number; rightWeak: number;
  top1ByKind: Partial<Record<Kind, { n: number; share: number }>>;
}

function quality(outcomes: Outcome[]): Quality {
  const pos = outcomes.filter((o) => o.q.kind !== "negative");
  const neg = outcomes.filter((o) => o.q.kind === "negative");
  const share = (xs: Outcome[], ok: (o: Outcome) => boolean) => (xs.length === 0 ? 0 : xs.filter(ok).length / xs.length);
  const top1ByKind: Quality["top1ByKind"] = {};
  for (const k of [...new Set([...KINDS, ...FIELD_KINDS])]) {
    const of = outcomes.filter((o) => o.q.kind === k);
    if (of.length > 0) top1ByKind[k] = { n: of.length, share: k === "negative" ? share(of, (o) => o.total === 0) : share(of, (o) => o.rank === 0) };
  }
  return {
    positives: pos.length,
    top1: share(pos, (o) => o.rank === 0),
    recall3: share(pos, (o) => o.rank >= 0 && o.rank < 3),
    recall10: share(pos, (o) => o.rank >= 0 && o.rank < 10),
    mrr: pos.length === 0 ? 0 : pos.reduce((s, o) => s + (o.rank >= 0 ? 1 / (o.rank + 1) : 0), 0) / pos.length,
    negatives: neg.length,
    negativesEmpty: share(neg, (o) => o.total === 0),
    negativesWeak: share(neg, (o) => o.total === 0 || o.weak.every((w) => w)),
    rightWeak: share(pos, (o) => o.rank >= 0 && o.weak[o.rank]!),
    top1ByKind,
  };
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

function latency(catalog: Catalog, queries: BenchQuery[], rounds: number) {
  for (const q of queries) ask(catalog, q.query); // warm (and build the index)
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = process.hrtime.bigint();
      ask(catalog, q.query);
      samples.push(ms(t0));
    }
  }
  return { p50: quantile(samples, 0.5), p95: quantile(samples, 0.95), samples: samples.length };
}

async function latencyHybrid(catalog: Catalog, vectors: ToolVectors, queries: BenchQuery[], rounds: number) {
  for (const q of queries) await askHybrid(catalog, vectors, q.query); // warm
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = process.hrtime.bigint();
      await askHybrid(catalog, vectors, q.query);
      samples.push(ms(t0));
    }
  }
  return { p50: quantile(samples, 0.5), p95: quantile(samples, 0.95), samples: samples.length };
}

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

// ---- run --------------------------------------------------------------------------------

const catalogs = loadCatalogs();
const queries = loadQueries();
const fieldQueries = loadFieldQueries();

// The data first: a query naming a tool that does not exist, or a "paraphrase" sharing a word
// with its tool, would make the figures lie.
const captured = toolsByAddress(catalogs);
const faults: string[] = [];
for (const q of [...queries, ...fieldQueries]) {
  for (const a of q.expect) {
    const tool = captured.get(a);
    if (!tool) faults.push(`${q.id}: no tool ${a} in the catalogs`);
    else if (q.kind === "paraphrase" && sharedWords(q.query, tool).length > 0) faults.push(`${q.id}: the paraphrase "${q.query}" shares ${sharedWords(q.query, tool).join(", ")} with ${a}`);
  }
}
if (faults.length > 0) {
  console.error(`bench:search: the query data is unsound:\n  ${faults.join("\n  ")}`);
  process.exit(1);
}
const real = buildCatalog(catalogs.map((c) => ({ id: c.server, tools: c.tools })));
const realTools = real.entries().length;

// Columns: the two halves of queries.json, both together ("all"), and the field set apart.
const COLUMNS = [...SPLITS, "all", "field"] as const;
const inColumn = (o: Outcome, c: (typeof COLUMNS)[number]) => (c === "all" ? o.q.split !== "field" : o.q.split === c);
const outcomes = judge(real, [...queries, ...fieldQueries]);
const splitQuality = (os: Outcome[]) => Object.fromEntries(COLUMNS.map((c) => [c, quality(os.filter((o) => inColumn(o, c)))]));
const bySplit = splitQuality(outcomes);
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const kindRows = [...KINDS, ...FIELD_KINDS.filter((k) => k !== "negative")];
const qualityLines = (title: string, sets: Record<string, Quality>[]) => {
  const row = (label: string, f: (q: Quality) => string) => `  ${label.padEnd(26)}${sets.map((set) => COLUMNS.map((c) => f(set[c]!).padStart(12)).join("")).join("   ")}`;
  return [
    title,
    `  ${"".padEnd(26)}${sets.map(() => COLUMNS.map((c) => c.padStart(12)).join("")).join("   ")}`,
    row("positive queries", (q) => String(q.positives)),
    row("top-1", (q) => pct(q.top1)),
    row("recall@3", (q) => pct(q.recall3)),
    row("recall@10", (q) => pct(q.recall10)),
    row("MRR (first page)", (q) => q.mrr.toFixed(3)),
    row("negative queries", (q) => String(q.negatives)),
    row("negatives answered empty", (q) => pct(q.negativesEmpty)),
    row("negatives weak or empty", (q) => pct(q.negativesWeak)),
    row("right answers marked weak", (q) => pct(q.rightWeak)),
    ...kindRows.map((k) => row(k === "negative" ? "  negative: empty" : `  ${k}: top-1`, (q) => (q.top1ByKind[k] ? `${pct(q.top1ByKind[k]!.share)} /${q.top1ByKind[k]!.n}` : "-"))),
  ];
};
if (quick) {
  const missesNow = outcomes.filter((o) => o.q.split === missSplit && (o.q.kind === "negative" ? o.total > 0 && !o.weak.every((w) => w) : o.rank !== 0));
  console.log([
    ...qualityLines(`search_tools lexical ranking on ${catalogs.length} captured MCP servers (${realTools} tools), ${queries.length} queries and ${fieldQueries.length} in the field set (--quick: no model, no speed)`, [bySplit]),
    "",
    `${missSplit} misses (${missesNow.length})`,
    ...missesNow.map((o) => `  ${o.q.id} [${o.q.kind}] "${o.q.query}" → ${o.addresses[0] ?? "(nothing)"}${o.rank > 0 ? ` (expected at ${o.rank + 1})` : ""} → ${o.q.expect.join(" | ") || "(nothing: a negative)"}`),
  ].join("\n"));
  process.exit(0);
}

// Hybrid: the bundled model in this process (tool vectors cached in the OS temp directory across runs).
const rssBeforeModel = process.memoryUsage().rss / 2 ** 20;
const semantic = await loadSemantic(real);
const cosines = new Map<BenchQuery, ToolCosines>();
for (const q of [...queries, ...fieldQueries]) cosines.set(q, await semantic.vectors.scores([q.query]));
const hybridOutcomes = judge(real, [...queries, ...fieldQueries], cosines);
const hybridBySplit = splitQuality(hybridOutcomes);
const latencyHybridReal = await latencyHybrid(real, semantic.vectors, queries, ROUNDS_LARGE);

const latencyReal = latency(real, queries, ROUNDS_REAL);
const heapBefore = heapMb();
const largeConnectors = synthesize(catalogs, LARGE, SEED);
const large = buildCatalog(largeConnectors);
large.index();
const heapAfter = heapMb();
const largeTools = large.entries().length;
const latencyLarge = latency(large, queries, ROUNDS_LARGE);
// Hybrid at 10,000 tools: each copied tool gets the vector of the captured tool it copies (the
// model would take 40–90 ms a tool to embed them; a perturbed name barely moves a vector), so
// what is measured is the per-query cost that grows with the catalog: the query's embedding, the
// cosine pass over 10,000 vectors, the evidence and the fused ranking.
const realByAddress = new Map(real.entries().map((e) => [e.address, e]));
const vectorOf = (address: string) => dequantize(semantic.cache.get(vectorKey(semantic.model.id, toolText(realByAddress.get(address)!).text))!);
const sourceOf = new Map<string, Float32Array>();
for (const k of largeConnectors) {
  const from = catalogs.find((c) => c.server === k.id.replace(/-r\d+$/, ""))!;
  k.tools.forEach((t, i) => sourceOf.set(`${k.id}.${t.name}`, vectorOf(`${from.server}.${from.tools[i]!.name}`)));
}
const copiedTexts = new Map(large.entries().map((e) => [toolText(e).text, sourceOf.get(e.address)!]));
const reuse: Embedder = { id: semantic.model.id, dims: semantic.model.dims, embed: (texts) => (copiedTexts.has(texts[0]!) ? Promise.resolve(texts.map((t) => copiedTexts.get(t)!)) : semantic.model.embed(texts)) };
const largeVectors = new ToolVectors(reuse, new VectorCache(undefined, semantic.model.id, semantic.model.dims));
await largeVectors.update(large.entries().map(toolText));
const latencyHybridLarge = await latencyHybrid(large, largeVectors, queries, ROUNDS_LARGE);
const rssHybridLarge = process.memoryUsage().rss / 2 ** 20;
const classify: number[] = [];
const index: number[] = [];
for (let i = 0; i <= BUILDS; i++) {
  const fresh = buildCatalog(largeConnectors);
  const t0 = process.hrtime.bigint();
  const entries = fresh.entries(); // every tool classified through the decision core
  const t1 = process.hrtime.bigint();
  buildSearchIndex(entries); // what Catalog.index() builds on the first search after a change
  if (i === 0) continue; // the first build only warms up
  classify.push(Number(t1 - t0) / 1e6);
  index.push(ms(t1));
}

// MiniSearch on the same catalogs: quality, latency at 10,000 tools, build time at 10,000 tools.
const miniReal = miniIndex(real);
const miniBySplit = Object.fromEntries([...SPLITS, "all"].map((s) => [s, quality(judgeMini(miniReal, queries).filter((o) => s === "all" || o.q.split === s))]));
const miniBuilds: number[] = [];
let miniLarge = miniIndex(large);
for (let i = 0; i < BUILDS; i++) {
  const t0 = process.hrtime.bigint();
  miniLarge = miniIndex(large);
  miniBuilds.push(ms(t0));
}
for (const q of queries) miniLarge.search(q.query);
const miniSamples: number[] = [];
for (let r = 0; r < ROUNDS_LARGE; r++) {
  for (const q of queries) {
    const t0 = process.hrtime.bigint();
    miniLarge.search(q.query);
    miniSamples.push(ms(t0));
  }
}
const miniSpeed = { p50: quantile(miniSamples, 0.5), p95: quantile(miniSamples, 0.95), buildMs: quantile(miniBuilds, 0.5) };

const missesOf = (outcomes: Outcome[]) => outcomes
  .filter((o) => o.q.split === missSplit && (o.q.kind === "negative" ? o.total > 0 && !o.weak.every((w) => w) : o.rank !== 0))
  .map((o) => ({ id: o.q.id, kind: o.q.kind, query: o.q.query, first: o.addresses[0] ?? null, rank: o.rank >= 0 ? o.rank + 1 : null, expect: o.q.expect }));
const misses = missesOf(outcomes);
const hybridMisses = missesOf(hybridOutcomes);

const report = {
  catalog: { servers: catalogs.length, tools: realTools, queries: queries.length, fieldQueries: fieldQueries.length },
  quality: bySplit,
  hybridQuality: hybridBySplit,
  latency: {
    real: { tools: realTools, ...latencyReal },
    large: { tools: largeTools, connectors: largeConnectors.length, ...latencyLarge },
  },
  hybrid: {
    model: { id: semantic.model.id, dims: semantic.model.dims, loadMs: semantic.loadMs },
    toolsEmbedded: { tools: realTools, embeddedNow: semantic.embedded, ms: semantic.embedMs },
    latency: { real: { tools: realTools, ...latencyHybridReal }, large: { tools: largeTools, ...latencyHybridLarge } },
    rssMb: { beforeModel: rssBeforeModel, afterLargeVectors: rssHybridLarge },
  },
  build: { tools: largeTools, indexMs: quantile(index, 0.5), classifyMs: quantile(classify, 0.5), runs: BUILDS },
  heap: { gcExposed: gc !== undefined, beforeMb: heapBefore, afterLargeIndexMb: heapAfter, largeIndexMb: heapAfter - heapBefore },
  minisearch: { quality: miniBySplit, large: { tools: largeTools, ...miniSpeed } },
  misses: { split: missSplit, list: misses, hybrid: hybridMisses },
};
void large.version; // keep the large catalog alive until the heap was read

if (json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const cols = [...SPLITS, "all"] as const;
  const lines = [
    ...qualityLines(`search_tools ranking on ${catalogs.length} captured MCP servers (${realTools} tools), ${queries.length} queries and ${fieldQueries.length} in the field set: lexical only`, [bySplit]),
    "",
    ...qualityLines(`hybrid (semantic weight ${T.semanticWeight}, ${semantic.model.id})`, [hybridBySplit]),
    "",
    "speed",
    `  query latency at ${realTools} tools        p50 ${latencyReal.p50.toFixed(3)} ms   p95 ${latencyReal.p95.toFixed(3)} ms   (${latencyReal.samples} queries)`,
    `  query latency at ${largeTools} tools      p50 ${latencyLarge.p50.toFixed(3)} ms   p95 ${latencyLarge.p95.toFixed(3)} ms   (${latencyLarge.samples} queries)`,
    `  index build at ${largeTools} tools        ${report.build.indexMs.toFixed(1)} ms, after ${report.build.classifyMs.toFixed(1)} ms classifying the tools (medians of ${BUILDS})`,
    `  hybrid query at ${realTools} tools         p50 ${latencyHybridReal.p50.toFixed(3)} ms   p95 ${latencyHybridReal.p95.toFixed(3)} ms   (embed the query, cosines, evidence, fused ranking; in process, no worker hop)`,
    `  hybrid query at ${largeTools} tools       p50 ${latencyHybridLarge.p50.toFixed(3)} ms   p95 ${latencyHybridLarge.p95.toFixed(3)} ms`,
    `  model load ${semantic.loadMs.toFixed(0)} ms; ${realTools} tool vectors in ${semantic.embedMs.toFixed(0)} ms (${semantic.embedded} embedded now, the rest from the cache)`,
    `  RSS ${rssBeforeModel.toFixed(0)} MB before the model, ${rssHybridLarge.toFixed(0)} MB with it and ${largeTools} tool vectors`,
    `  heap used after building at ${largeTools} tools   ${heapAfter.toFixed(1)} MB (${(heapAfter - heapBefore).toFixed(1)} MB for their listings, catalog and index)${gc ? "" : "  (run with --expose-gc for exact figures)"}`,
    "",
    `MiniSearch 7.2.0 on the same fields, tokenizer, stemmer, weights and lexicon (top-1 / recall@10 / MRR; negatives empty)`,
    ...cols.map((c) => `  ${c.padEnd(8)} top-1 ${pct(miniBySplit[c]!.top1)}   recall@10 ${pct(miniBySplit[c]!.recall10)}   MRR ${miniBySplit[c]!.mrr.toFixed(3)}   negatives empty ${pct(miniBySplit[c]!.negativesEmpty)}   ${KINDS.filter((k) => k !== "negative").map((k) => `${k} ${pct(miniBySplit[c]!.top1ByKind[k]!.share)}`).join(", ")}`),
    `  at ${largeTools} tools: query p50 ${miniSpeed.p50.toFixed(3)} ms   p95 ${miniSpeed.p95.toFixed(3)} ms; index build ${miniSpeed.buildMs.toFixed(1)} ms (median of ${BUILDS})`,
    "",
    `${missSplit} misses (${misses.length}): query → what came first → expected`,
    ...misses.map((m) => `  ${m.id} [${m.kind}] "${m.query}" → ${m.first ?? "(nothing)"}${m.rank ? ` (expected at ${m.rank})` : ""} → ${m.expect.length ? m.expect.join(" | ") : "(nothing: a negative)"}`),
    "",
    `${missSplit} misses, hybrid (${hybridMisses.length})`,
    ...hybridMisses.map((m) => `  ${m.id} [${m.kind}] "${m.query}" → ${m.first ?? "(nothing)"}${m.rank ? ` (expected at ${m.rank})` : ""} → ${m.expect.length ? m.expect.join(" | ") : "(nothing: a negative)"}`),
  ];
  console.log(lines.join("\n"));
}
