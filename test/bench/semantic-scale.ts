// The scale rows of `npm run bench`: search's semantic layer as atrium serves it (the real
// SemanticIndex, its embedding worker and the bundled model, a fresh vector cache) at the search
// bench's captured catalogs (304 tools) and at 10,000 synthesized tools (search/catalog.ts). Each
// size runs in a child process of its own so its RSS is its own: RSS with the catalog searched
// lexically, the first embedding's time (start to every vector in), RSS once it is in, and the
// query p50/p95 of a lexical and of a hybrid search (searchCatalog, the worker's hop included).
// Figures only; nothing here asserts. Run alone: `node dist/test/bench/semantic-scale.js [tools]`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findTools, searchCatalog } from "../../glue/calls/discovery.js";
import { SemanticIndex, type SemanticStatus } from "../../glue/embeddings/semantic-index.js";
import { toolText } from "../../glue/embeddings/tool-text.js";
import { SEARCH_PAGE_DEFAULT } from "../../glue/decisions/generated/spec.js";
import { buildCatalog, synthesize } from "./search/catalog.js";
import { loadCatalogs, loadQueries } from "./search/data.js";
import { stats, type Stats } from "./stats.js";

const SIZES = [304, 10_000];
const SEED = 12;
const ROUNDS = 3; // timed passes over every bench query

interface ScaleFigures {
  tools: number;
  embedMs: number;
  rssLexicalMb: number;
  rssSemanticMb: number;
  lexical: Stats;
  hybrid: Stats;
  hybridAnswered: number;
}

const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/** One size, in this process. */
async function measure(size: number): Promise<ScaleFigures> {
  const catalogs = loadCatalogs();
  const queries = loadQueries();
  const catalog = buildCatalog(synthesize(catalogs, size, SEED));
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
  const cacheDir = mkdtempSync(join(tmpdir(), "atrium-scale-bench-"));
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
    let hybridAnswered = 0;
    for (let r = 0; r <= ROUNDS; r++) {
      for (const q of queries) {
        const t = performance.now();
        const found = await searchCatalog(catalog, semantic, { query: q.query, safety: "any", limit: SEARCH_PAGE_DEFAULT });
        if (r === 0) continue; // warm-up
        hybridMs.push(performance.now() - t);
        if (found.ranking === "hybrid") hybridAnswered++;
      }
    }
    return { tools, embedMs, rssLexicalMb, rssSemanticMb, lexical: stats(lexicalMs), hybrid: stats(hybridMs), hybridAnswered };
  } finally {
    await semantic.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

type Row = [string, Stats, string];
const once = (x: number): Stats => ({ median: x, p95: x, n: 1 });

/** Every size, each in a child process; the rows and a note per size. */
export async function benchSemanticScale(sizes = SIZES): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const size of sizes) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), String(size), "--json"], { encoding: "utf8", maxBuffer: 2 ** 24, stdio: ["ignore", "pipe", "inherit"] });
    const f = JSON.parse(out) as ScaleFigures;
    rows.push(
      [`${f.tools} tools: first embedding (start → every vector in)`, once(f.embedMs / 1000), "s"],
      [`${f.tools} tools: lexical query`, f.lexical, "ms"],
      [`${f.tools} tools: hybrid query (worker hop included)`, f.hybrid, "ms"],
    );
    notes.push(`${f.tools} tools: ${(f.embedMs / f.tools).toFixed(1)} ms a tool to embed; RSS ${f.rssLexicalMb.toFixed(0)} MB searched lexically, ${f.rssSemanticMb.toFixed(0)} MB with the model and every vector in (+${(f.rssSemanticMb - f.rssLexicalMb).toFixed(0)} MB); ${f.hybridAnswered}/${f.hybrid.n} queries answered hybrid`);
  }
  return { rows, notes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const size = Number(process.argv[2] ?? SIZES[0]);
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(await measure(size)));
  } else {
    const { table } = await import("./stats.js");
    const r = await benchSemanticScale([size]);
    console.log(table("search's semantic layer at scale", r.rows));
    for (const n of r.notes) console.log(`  ${n}`);
  }
}
