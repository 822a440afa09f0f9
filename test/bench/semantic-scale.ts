// The scale rows of `npm run bench`: search's semantic layer as atrium serves it (the real
// SemanticIndex, its embedding worker and the bundled model, a fresh vector cache) at the search
// bench's captured catalogs (304 tools) and at 10,000 synthesized tools (search/catalog.ts). Each
// size runs in a child process of its own so its RSS is its own: RSS with the catalog searched
// lexically, the first embedding's time (start to every vector in), RSS once it is in, and the
// query p50/p95 of a lexical and of a hybrid search (searchCatalog, the worker's hop included).
// `--warm`: the vector file is laid out before the start, each copied tool with the vector of the
// captured tool it copies (from the file the cold run at the captured size left), so the
// worker only loads the model and the file: RSS and query figures at 10,000 tools without the
// minutes a cold first embedding takes on a shared machine (its ms a tool is the 304-tool row's).
// Figures only; nothing here asserts. Run alone: `node dist/test/bench/semantic-scale.js [tools] [--warm]`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findTools, searchCatalog } from "../../glue/calls/discovery.js";
import { SemanticIndex, type SemanticStatus } from "../../glue/embeddings/semantic-index.js";
import { toolText } from "../../glue/embeddings/tool-text.js";
import { bundledModelFiles } from "../../glue/embeddings/bundled.js";
import { dequantize } from "../harness/vectors.js";
import { VectorCache, vectorKey } from "../../glue/embeddings/vector-cache.js";
import type { Catalog } from "../../glue/catalog/catalog.js";
import { SEARCH_PAGE_DEFAULT } from "../../glue/decisions/generated/spec.js";
import { buildCatalog, synthesize, type BenchConnector } from "./search/catalog.js";
import { loadCatalogs, loadQueries, type CapturedCatalog } from "./search/data.js";
import { stats, type Stats } from "./stats.js";

const SIZES = [304, 10_000];
const SEED = 12;
const ROUNDS = 3; // timed passes over every bench query

const BUNDLED_DIMS = 512;
/** A cold run's vector directory: emptied when it starts, left behind for a warm run to lay out from. */
const coldDir = (tools: number) => join(tmpdir(), `atrium-scale-bench-${tools}`);

/** Lays out the vector file for `catalog`: each tool with the vector of the captured tool it copies; false when the captured size's cold run left none. */
function layOut(cacheDir: string, catalog: Catalog, connectors: BenchConnector[], catalogs: CapturedCatalog[]): boolean {
  const model = bundledModelFiles();
  if (!model.ok) return false;
  const captured = buildCatalog(catalogs.map((c) => ({ id: c.server, tools: c.tools })));
  const real = new VectorCache(coldDir(captured.entries().length), model.id, BUNDLED_DIMS);
  real.load();
  const realText = new Map(captured.entries().map((e) => [e.address, toolText(e).text]));
  const sourceOf = new Map<string, string>();
  for (const k of connectors) {
    const from = catalogs.find((c) => c.server === k.id.replace(/-r\d+$/, ""))!;
    k.tools.forEach((t, i) => sourceOf.set(`${k.id}.${t.name}`, `${from.server}.${from.tools[i]!.name}`));
  }
  const cache = new VectorCache(cacheDir, model.id, BUNDLED_DIMS);
  const keys: string[] = [];
  for (const e of catalog.entries()) {
    const v = real.get(vectorKey(model.id, realText.get(sourceOf.get(e.address)!)!));
    if (!v) return false;
    const key = vectorKey(model.id, toolText(e).text);
    cache.put(key, dequantize(v));
    keys.push(key);
  }
  return cache.save(keys) === undefined;
}

interface ScaleFigures {
  tools: number;
  warm: boolean;
  embedMs: number;
  rssLexicalMb: number;
  rssSemanticMb: number;
  lexical: Stats;
  hybrid: Stats;
  /** The worker's part alone: SemanticIndex.scores, from the ask to the cosines on this thread. */
  scores: Stats;
  hybridAnswered: number;
}

const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/** One size, in this process. */
async function measure(size: number, warm: boolean): Promise<ScaleFigures> {
  const catalogs = loadCatalogs();
  const queries = loadQueries();
  const connectors = synthesize(catalogs, size, SEED);
  const catalog = buildCatalog(connectors);
  const tools = catalog.entries().length;
  const lexicalMs: number[] = [];
  for (let r = 0; r <= ROUNDS; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      findTools(catalog, { query: q.query, safety: "any", limit: SEARCH_PAGE_DEFAULT });
      if (r > 0) lexicalMs.push(performance.now() - t0); // the first pass builds the index and warms up
    }
  }
  const rssLexicalMb = rssMb();
  const cacheDir = warm ? mkdtempSync(join(tmpdir(), "atrium-scale-bench-")) : coldDir(tools);
  if (!warm) rmSync(coldDir(tools), { recursive: true, force: true }); // cold: nothing cached
  if (warm && !layOut(cacheDir, catalog, connectors, catalogs)) throw new Error(`--warm needs the vectors a cold run at the captured size leaves: run this at ${loadCatalogs().reduce((n, c) => n + c.tools.length, 0)} tools first`);
  const semantic = new SemanticIndex({ semantic: true, embedder: null }, { entries: () => catalog.entries().map(toolText), cacheDir, log: () => {} });
  try {
    const ready = new Promise<SemanticStatus>((resolve) => semantic.onStatus((s) => (s.state === "ready" || s.state === "failed") && resolve(s)));
    const t0 = performance.now();
    semantic.start();
    const settled = await ready;
    const embedMs = performance.now() - t0;
    if (settled.state !== "ready") throw new Error(`the semantic layer failed: ${settled.note}`);
    const rssSemanticMb = rssMb();
    const hybridMs: number[] = [];
    const scoresMs: number[] = [];
    let hybridAnswered = 0;
    for (let r = 0; r <= ROUNDS; r++) {
      for (const q of queries) {
        const t0 = performance.now();
        await semantic.scores([q.query]);
        if (r > 0) scoresMs.push(performance.now() - t0);
        const t = performance.now();
        const found = await searchCatalog(catalog, semantic, { query: q.query, safety: "any", limit: SEARCH_PAGE_DEFAULT });
        if (r === 0) continue; // warm-up
        hybridMs.push(performance.now() - t);
        if (found.ranking === "hybrid") hybridAnswered++;
      }
    }
    return { tools, warm, embedMs, rssLexicalMb, rssSemanticMb, lexical: stats(lexicalMs), hybrid: stats(hybridMs), scores: stats(scoresMs), hybridAnswered };
  } finally {
    await semantic.stop();
    if (warm) rmSync(cacheDir, { recursive: true, force: true });
  }
}

type Row = [string, Stats, string];
const once = (x: number): Stats => ({ median: x, p95: x, n: 1 });

/** Every size, each in a child process; the rows and a note per size. */
export async function benchSemanticScale(runs: { size: number; warm: boolean }[] = SIZES.map((size) => ({ size, warm: size > SIZES[0]! }))): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const { size, warm } of runs) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), String(size), "--json", ...(warm ? ["--warm"] : [])], { encoding: "utf8", maxBuffer: 2 ** 24, stdio: ["ignore", "pipe", "inherit"] });
    const f = JSON.parse(out) as ScaleFigures;
    rows.push(
      [`${f.tools} tools: ${f.warm ? "start from a laid-out vector file → ready" : "first embedding (start → every vector in)"}`, once(f.embedMs / 1000), "s"],
      [`${f.tools} tools: lexical query`, f.lexical, "ms"],
      [`${f.tools} tools: hybrid query (worker hop included)`, f.hybrid, "ms"],
      [`${f.tools} tools:   of which the worker's cosines (embed the query, score every tool, hop back)`, f.scores, "ms"],
    );
    notes.push(`${f.tools} tools: ${f.warm ? "vectors from the file" : `${(f.embedMs / f.tools).toFixed(1)} ms a tool to embed`}; RSS ${f.rssLexicalMb.toFixed(0)} MB searched lexically, ${f.rssSemanticMb.toFixed(0)} MB with the model and every vector in (+${(f.rssSemanticMb - f.rssLexicalMb).toFixed(0)} MB); ${f.hybridAnswered}/${f.hybrid.n} queries answered hybrid`);
  }
  return { rows, notes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const size = Number(process.argv[2] ?? SIZES[0]);
  const warm = process.argv.includes("--warm");
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(await measure(size, warm)));
  } else {
    const { table } = await import("./stats.js");
    const r = await benchSemanticScale([{ size, warm }]);
    console.log(table("search's semantic layer at scale", r.rows));
    for (const n of r.notes) console.log(`  ${n}`);
  }
}
