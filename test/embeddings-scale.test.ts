// Search's semantic layer at scale: the tool vectors are kept as int8 codes (a quarter of float32,
// on disk and in the worker) and scored in place into one Float32Array whose cosines stay within
// a hair of the float ones; the embedding of a catalog goes in batches that yield, so a search
// sent to the worker mid-embedding is answered before the embedding ends (proved by the order of
// the worker's messages, the real bundled model embedding); the worker says how far it is after
// each batch; and the vector file is written as the embedding goes, so `atrium doctor` can say
// how far atrium serve is ("semantic: 512/600 tools embedded") and a restart resumes from there.
import { describe, it, expect, afterEach } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { embedWorkerPath } from "../glue/support/paths.js";
import { VectorCache, vectorKey } from "../glue/embeddings/vector-cache.js";
import { ToolVectors } from "../glue/embeddings/tool-vectors.js";
import { unitLength, type Embedder } from "../glue/embeddings/embedder.js";
import { EMBED_BATCH_TEXTS, EMBED_CACHE_SAVE_TOOLS } from "../glue/decisions/generated/spec.js";
import type { FromWorker } from "../glue/embeddings/protocol.js";
import { mulberry32 } from "./harness/prng.js";
import { waitFor } from "./harness/until.js";
import { atriumBin, fixture, nodeServer, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { startStandIn, type StandIn } from "./harness/embed-endpoint.js";

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), "atrium-scale-")); dirs.push(d); return d; };
let standIn: StandIn | undefined;
let atrium: Atrium | undefined;
let worker: Worker | undefined;
afterEach(async () => {
  await worker?.terminate();
  worker = undefined;
  await atrium?.close();
  atrium = undefined;
  await standIn?.close();
  standIn = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Unit vectors drawn from a fixed seed, and an embedder that answers them by text ("t<i>"). */
function randomVectors(count: number, dims: number): { vectors: Float32Array[]; embedder: Embedder } {
  const pick = mulberry32(7);
  const vectors = Array.from({ length: count + 1 }, () => unitLength(Float32Array.from({ length: dims }, () => pick() - 0.5)));
  const embedder: Embedder = { id: "given", dims, embed: (texts) => Promise.resolve(texts.map((t) => vectors[t === "query" ? count : Number(t.slice(1))]!)) };
  return { vectors, embedder };
}

describe("tool vectors kept compactly", () => {
  it("the vector file holds int8 codes and a scale per vector: a 512-wide vector takes 516 bytes and its key, not 2,048", () => {
    const dir = tmp();
    const dims = 512;
    const count = 100;
    const { vectors } = randomVectors(count, dims);
    const cache = new VectorCache(dir, "model-a", dims);
    const keys = vectors.slice(0, count).map((v, i) => {
      const key = vectorKey("model-a", `t${i}`);
      cache.put(key, v);
      return key;
    });
    expect(cache.save(keys)).toBeUndefined();
    const [file] = readdirSync(dir);
    const perKeyInHeader = JSON.stringify(keys[0]).length + 1;
    expect(statSync(join(dir, file!)).size).toBeLessThan(count * (dims + 4 + perKeyInHeader) + 200);
    const again = new VectorCache(dir, "model-a", dims);
    expect(again.load()).toBe(count);
    expect(again.get(keys[3]!)!.codes).toEqual(cache.get(keys[3]!)!.codes);
  });

  it("scores every tool in place into one Float32Array in the catalog's order, each cosine within 0.01 of the float one", async () => {
    const dims = 512;
    const count = 203; // not a multiple of the four rows scored per pass
    const { vectors, embedder } = randomVectors(count, dims);
    const index = new ToolVectors(embedder, new VectorCache(undefined, "given", dims));
    await index.update(Array.from({ length: count }, (_, i) => ({ address: `c.t${i}`, text: `t${i}` })));
    const got = await index.scores(["query"]);
    expect(got.cosines).toBeInstanceOf(Float32Array);
    expect(got.addresses).toEqual(Array.from({ length: count }, (_, i) => `c.t${i}`));
    const q = vectors[count]!;
    for (let i = 0; i < count; i++) {
      let exact = 0;
      for (let k = 0; k < dims; k++) exact += q[k]! * vectors[i]![k]!;
      expect(Math.abs(got.cosines[i]! - exact), `tool ${i}`).toBeLessThan(0.01);
    }
  });
});

describe("embedding a catalog with the bundled model, in the worker", () => {
  it("answers a search sent mid-embedding before the embedding ends, and says how far it is after each batch", async () => {
    const total = EMBED_BATCH_TEXTS * 3;
    const entries = Array.from({ length: total }, (_, i) => ({ address: `c.t${i}`, text: `tool number ${i}: reads the record ${i} of a table` }));
    const seen: FromWorker[] = [];
    worker = new Worker(embedWorkerPath, { workerData: { cacheDir: join(tmp(), "embeddings") }, stdout: true, stderr: true });
    worker.stdout.resume();
    worker.stderr.resume();
    let asked = false;
    const ready = new Promise<void>((resolve, reject) => worker!.on("message", (m: FromWorker) => {
      seen.push(m);
      if (m.type === "state" && m.state === "loading" && m.embedder && !asked && (asked = true)) worker!.postMessage({ type: "scores", id: 1, queries: ["read a record"] }); // the model is in: the batches begin
      if (m.type === "state" && m.state === "ready") resolve();
      if (m.type === "state" && m.state === "failed") reject(new Error(m.note));
    }));
    worker.postMessage({ type: "update", entries });
    await ready;
    const order = seen.map((m) => (m.type === "scores" ? "search answered" : m.state === "ready" ? "ready" : m.progress ? `${m.progress.done}/${m.progress.total}` : m.state));
    expect(order.indexOf("search answered"), order.join(", ")).toBeGreaterThan(-1);
    expect(order.indexOf("search answered"), order.join(", ")).toBeLessThan(order.indexOf("ready"));
    expect(order.filter((o) => o.includes("/")), "progress after each batch but the last").toEqual([`${EMBED_BATCH_TEXTS}/${total}`, `${EMBED_BATCH_TEXTS * 2}/${total}`]);
  }, 120_000);
});

/** `atrium doctor` on `cfg` with `stateDir`, run without blocking this process (the stand-in must answer). */
function doctor(cfg: unknown, stateDir: string): Promise<{ status: number | null; stdout: string }> {
  const dir = tmp();
  writeFileSync(join(dir, "atrium.json"), JSON.stringify(cfg));
  const child = spawn(process.execPath, [atriumBin, "doctor", "--config", join(dir, "atrium.json")], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "", ATRIUM_STATE_DIR: stateDir } });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout })));
}

describe("how far the embedding is, in atrium doctor", () => {
  it(`atrium serve writes the vector file every EMBED_CACHE_SAVE_TOOLS (${EMBED_CACHE_SAVE_TOOLS}) tools: stopped mid-catalog, doctor says how many are embedded; once all are, it says so`, async () => {
    const tools = EMBED_CACHE_SAVE_TOOLS + EMBED_BATCH_TEXTS * 5 + 8;
    standIn = await startStandIn("ollama");
    const stateDir = join(tmp(), "state");
    const cfg = { mcpServers: { many: nodeServer(fixture("many-tools-server"), { env: { FIXTURE_TOOL_COUNT: String(tools) } }) }, atrium: { search: { embedder: { url: standIn.url, model: "m" } } } };
    const savedAfter = EMBED_CACHE_SAVE_TOOLS / EMBED_BATCH_TEXTS; // batches (requests after the probe) before the first write
    standIn.misbehave("hang", savedAfter + 1); // the batch after the write never answers
    atrium = await startAtrium({ config: cfg, env: { ATRIUM_STATE_DIR: stateDir } });
    await standIn.arrived(savedAfter + 2); // the probe, the batches up to the write, and the hanging one
    await atrium.close();
    atrium = undefined;
    standIn.misbehave(undefined);

    const partway = await doctor(cfg, stateDir);
    expect(partway.stdout).toMatch(new RegExp(`^ {5}semantic: ${EMBED_CACHE_SAVE_TOOLS}/${tools} tools embedded; atrium serve embeds the rest in the background`, "m"));

    // A restart resumes: only the rest is embedded, then doctor counts every tool.
    const before = standIn.texts().length;
    atrium = await startAtrium({ config: cfg, env: { ATRIUM_STATE_DIR: stateDir } });
    const a = atrium;
    await waitFor(async () => (await a.json("search_tools", { query: "list issues" })).ranking === "hybrid", "every vector in after the restart", 60_000);
    const embeddedAgain = standIn.texts().slice(before).filter((t) => t !== "probe" && t !== "list issues"); // not its probe, nor the search's phrasing
    expect(embeddedAgain).toHaveLength(tools - EMBED_CACHE_SAVE_TOOLS); // only the tools not in the file
    await atrium.close();
    atrium = undefined;
    const done = await doctor(cfg, stateDir);
    expect(done.stdout).toMatch(new RegExp(`^ {5}semantic: ${tools}/${tools} tools embedded$`, "m"));
    expect(done.status, done.stdout).toBe(0);
  }, 120_000);
});
