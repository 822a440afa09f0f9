// `npm run bench:semantic`: the semantic layer (glue/embeddings/) on the search bench's captured
// catalogs and queries. Embeds every tool and query with the bundled model (in this process: the
// model's own cost, without the worker's messages), and prints semantic-only and hybrid (findTools
// with the cosines' evidence: the one fusion search uses) top-1, recall@3/@10 and MRR per split
// and kind (rankings here re-sort the scores findTools reports, ties by address, so they differ a
// little from bench:search's, whose figures are the ones to quote); model load time, tool embedding
// cold and warm from the disk cache, query embedding p50/p95, the cosine pass at 10,000 tools,
// RSS. Figures only; nothing here asserts. `--json` prints one JSON object.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findTools } from "../../../glue/calls/discovery.js";
import { SEARCH_PAGE_MAX } from "../../../glue/decisions/generated/spec.js";
import { loadBundledEmbedder } from "../../../glue/embeddings/bundled.js";
import type { Embedder } from "../../../glue/embeddings/embedder.js";
import { cosinesByAddress, dequantize } from "../../harness/vectors.js";
import { semanticEvidence } from "../../../glue/embeddings/evidence.js";
import { SEARCH_TUNING } from "../../../glue/catalog/search-tuning.js";
import { toolText } from "../../../glue/embeddings/tool-text.js";
import { ToolVectors, type ToolCosines } from "../../../glue/embeddings/tool-vectors.js";
import { VectorCache, vectorKey } from "../../../glue/embeddings/vector-cache.js";
import type { Catalog } from "../../../glue/catalog/catalog.js";
import { buildCatalog } from "./catalog.js";
import { KINDS, SPLITS, loadCatalogs, loadQueries, type BenchQuery, type Kind } from "./data.js";

const LARGE = 10_000;
const ROUNDS = 3; // timed passes over every query
const json = process.argv.includes("--json");

const ms = (t0: number) => performance.now() - t0;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/** Every lexical score findTools gives the query (paged through, so not only the first page). */
function lexicalScores(catalog: Catalog, query: string, semantic?: ToolCosines): Map<string, number> {
  const out = new Map<string, number>();
  for (let offset = 0; ; offset += SEARCH_PAGE_MAX) {
    const found = findTools(catalog, { query, safety: "any", limit: SEARCH_PAGE_MAX, offset }, semantic && semanticEvidence(semantic));
    for (const r of found.results) out.set(r.address, r.score);
    if (found.results.length < SEARCH_PAGE_MAX || offset + SEARCH_PAGE_MAX >= found.total) return out;
  }
}

const ranked = (scores: Map<string, number>) => [...scores].filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([a]) => a);

interface Quality { positives: number; top1: number; recall3: number; recall10: number; mrr: number; top1ByKind: Partial<Record<Kind, string>> }

function quality(queries: BenchQuery[], order: (q: BenchQuery) => string[]): Quality {
  const pos = queries.filter((q) => q.kind !== "negative");
  const rank = new Map(pos.map((q) => [q, order(q).findIndex((a) => q.expect.includes(a))]));
  const share = (xs: BenchQuery[], ok: (r: number) => boolean) => (xs.length ? xs.filter((q) => ok(rank.get(q)!)).length / xs.length : 0);
  const top1ByKind: Quality["top1ByKind"] = {};
  for (const k of KINDS.filter((k) => k !== "negative")) {
    const of = pos.filter((q) => q.kind === k);
    if (of.length) top1ByKind[k] = `${(share(of, (r) => r === 0) * 100).toFixed(1)} % /${of.length}`;
  }
  return {
    positives: pos.length,
    top1: share(pos, (r) => r === 0),
    recall3: share(pos, (r) => r >= 0 && r < 3),
    recall10: share(pos, (r) => r >= 0 && r < 10),
    mrr: pos.reduce((s, q) => s + (rank.get(q)! >= 0 ? 1 / (rank.get(q)! + 1) : 0), 0) / (pos.length || 1),
    top1ByKind,
  };
}

// ---- run --------------------------------------------------------------------------------

const catalogs = loadCatalogs();
const queries = loadQueries();
const catalog = buildCatalog(catalogs.map((c) => ({ id: c.server, tools: c.tools })));
const entries = catalog.entries().map(toolText);
const rssStart = rssMb();

let t0 = performance.now();
const model = await loadBundledEmbedder();
const loadMs = ms(t0);
const rssModel = rssMb();

let calls = 0;
const counted: Embedder = { id: model.id, dims: model.dims, embed: (texts) => { calls++; return model.embed(texts); } };
const cacheDir = mkdtempSync(join(tmpdir(), "atrium-semantic-bench-"));
const cold = new ToolVectors(counted, new VectorCache(cacheDir, model.id, model.dims));
t0 = performance.now();
const coldCounts = (await cold.update(entries))!;
const coldMs = ms(t0);
const coldCalls = calls;
t0 = performance.now();
const warmCache = new VectorCache(cacheDir, model.id, model.dims);
warmCache.load();
const warm = new ToolVectors(counted, warmCache);
const warmCounts = (await warm.update(entries))!;
const warmMs = ms(t0);
rmSync(cacheDir, { recursive: true, force: true });

// Semantic and lexical scores of every query, and the time each semantic one took.
const semantic = new Map<BenchQuery, ToolCosines>();
const lexical = new Map<BenchQuery, Map<string, number>>();
const queryMs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  for (const q of queries) {
    const t = performance.now();
    const s = await warm.scores([q.query]);
    queryMs.push(ms(t));
    if (r === 0) {
      semantic.set(q, s);
      lexical.set(q, lexicalScores(catalog, q.query));
    }
  }
}
const rssAfter = rssMb();

// The cosine pass alone at 10,000 tools: the real vectors repeated (embedding 10,000 texts is the
// tool cost above times the count; this is the per-query cost that grows with the catalog), in
// ToolVectors' own block, the query's embedding given (its cost is the query row above).
const base = entries.map((e) => dequantize(warmCache.get(vectorKey(model.id, e.text))!));
const largeEntries = Array.from({ length: LARGE }, (_, i) => ({ address: `t.${i}`, text: `${i}` }));
const [probe] = await model.embed(["find the open pull requests of a repository"]);
const given: Embedder = { id: "given", dims: model.dims, embed: (texts) => Promise.resolve(texts.map((t) => (/^\d+$/.test(t) ? base[Number(t) % base.length]! : probe!))) };
const large = new ToolVectors(given, new VectorCache(undefined, "given", model.dims));
await large.update(largeEntries);
const cosineMs: number[] = [];
for (let r = 0; r < ROUNDS * 10; r++) {
  const t = performance.now();
  await large.scores(["the query"]);
  cosineMs.push(ms(t));
}

const splitsOf = (qs: BenchQuery[]) => Object.fromEntries([...SPLITS, "all"].map((s) => [s, qs.filter((q) => s === "all" || q.split === s)]));
const bySplit = splitsOf(queries);
const lexicalOnly = (q: BenchQuery) => ranked(lexical.get(q)!);
const semanticOnly = (q: BenchQuery) => ranked(cosinesByAddress(semantic.get(q)!));
const hybrid = (q: BenchQuery) => ranked(lexicalScores(catalog, q.query, semantic.get(q)!));
const table = (order: (q: BenchQuery) => string[]) => Object.fromEntries(Object.entries(bySplit).map(([s, qs]) => [s, quality(qs, order)]));

const negatives = queries.filter((q) => q.kind === "negative");
const bestCosine = (qs: BenchQuery[]) => qs.map((q) => Math.max(...cosinesByAddress(semantic.get(q)!).values()));
const report = {
  catalog: { servers: catalogs.length, tools: entries.length, queries: queries.length },
  model: { id: model.id, dims: model.dims, loadMs },
  tools: { coldMs, coldPerToolMs: coldMs / coldCounts.embedded, coldEmbedCalls: coldCalls, warmMs, warmEmbedded: warmCounts.embedded, warmCached: warmCounts.cached },
  query: { p50: quantile(queryMs, 0.5), p95: quantile(queryMs, 0.95), samples: queryMs.length, cosinePassAt10k: { tools: large.size, p50: quantile(cosineMs, 0.5), p95: quantile(cosineMs, 0.95) } },
  rssMb: { start: rssStart, afterModel: rssModel, afterQueries: rssAfter },
  lexical: table(lexicalOnly),
  semantic: table(semanticOnly),
  hybrid: { weight: SEARCH_TUNING.semanticWeight, ...table(hybrid) },
  bestCosine: { negativesMedian: quantile(bestCosine(negatives), 0.5), positivesMedian: quantile(bestCosine(queries.filter((q) => q.kind !== "negative")), 0.5) },
};

if (json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const cols = [...SPLITS, "all"] as const;
  const block = (title: string, t: Record<string, Quality>) => [
    title,
    `  ${"".padEnd(22)}${cols.map((c) => c.padStart(12)).join("")}`,
    ...([["top-1", (q: Quality) => pct(q.top1)], ["recall@3", (q: Quality) => pct(q.recall3)], ["recall@10", (q: Quality) => pct(q.recall10)], ["MRR", (q: Quality) => q.mrr.toFixed(3)]] as const).map(([l, f]) => `  ${l.padEnd(22)}${cols.map((c) => f(t[c]!).padStart(12)).join("")}`),
    ...KINDS.filter((k) => k !== "negative").map((k) => `  ${`  ${k}: top-1`.padEnd(22)}${cols.map((c) => (t[c]!.top1ByKind[k] ?? "-").padStart(12)).join("")}`),
  ];
  const lines = [
    `semantic layer on ${catalogs.length} captured MCP servers (${entries.length} tools), ${queries.length} queries; model ${model.id} (${model.dims} dims)`,
    ...block("lexical only (today's findTools)", report.lexical),
    ...block("semantic only (cosine)", report.semantic),
    ...block(`hybrid (findTools with semantic evidence, weight ${SEARCH_TUNING.semanticWeight})`, report.hybrid as unknown as Record<string, Quality>),
    "",
    `best cosine of a query with any tool, median: negatives ${report.bestCosine.negativesMedian.toFixed(3)}, positives ${report.bestCosine.positivesMedian.toFixed(3)}`,
    "",
    "speed and memory",
    `  model load                      ${loadMs.toFixed(0)} ms`,
    `  tools embedded cold             ${coldMs.toFixed(0)} ms for ${coldCounts.embedded} tools (${report.tools.coldPerToolMs.toFixed(1)} ms a tool, ${coldCalls} calls)`,
    `  tools from the disk cache       ${warmMs.toFixed(0)} ms (${warmCounts.cached} cached, ${warmCounts.embedded} embedded)`,
    `  query (embed + cosine, ${entries.length} tools)  p50 ${report.query.p50.toFixed(1)} ms   p95 ${report.query.p95.toFixed(1)} ms   (${queryMs.length} queries)`,
    `  cosine pass at ${large.size} tools      p50 ${report.query.cosinePassAt10k.p50.toFixed(2)} ms   p95 ${report.query.cosinePassAt10k.p95.toFixed(2)} ms`,
    `  RSS                             ${rssStart.toFixed(0)} MB at start, ${rssModel.toFixed(0)} MB with the model, ${rssAfter.toFixed(0)} MB after the queries`,
  ];
  console.log(lines.join("\n"));
}
