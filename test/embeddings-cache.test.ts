// Tool vectors on disk: a restart embeds only new or changed tools (counted at a real stand-in
// endpoint, through the real worker), the files are private and written whole, a damaged file
// is ignored, and a file never passes EMBED_CACHE_BYTES_MAX (the least recently seen go first).
import { describe, it, expect, afterEach } from "vitest";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SemanticIndex, type SemanticStatus } from "../glue/embeddings/semantic-index.js";
import { VectorCache, vectorKey } from "../glue/embeddings/vector-cache.js";
import { EMBED_CACHE_BYTES_MAX, EMBED_DIMS_MAX } from "../glue/decisions/generated/spec.js";
import type { SemanticEntry } from "../glue/embeddings/tool-text.js";
import { cosinesByAddress } from "./harness/vectors.js";
import { startStandIn, type StandIn } from "./harness/embed-endpoint.js";

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), "atrium-vectors-")); dirs.push(d); return d; };
let standIn: StandIn | undefined;
const indexes: SemanticIndex[] = [];
afterEach(async () => {
  for (const i of indexes.splice(0)) await i.stop();
  await standIn?.close();
  standIn = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A started index over `entries` with the stand-in as its embedder; resolves once it is ready. */
async function readyIndex(s: StandIn, cacheDir: string, entries: SemanticEntry[]): Promise<{ index: SemanticIndex; status: SemanticStatus }> {
  const index = new SemanticIndex({ semantic: true, embedder: { url: s.url, model: "m", api: "ollama", headers: {} } }, { entries: () => entries, cacheDir, log: () => {} });
  indexes.push(index);
  const ready = new Promise<SemanticStatus>((resolve, reject) => index.onStatus((st) => (st.state === "ready" ? resolve(st) : st.state === "failed" ? reject(new Error(st.note)) : undefined)));
  index.start();
  return { index, status: await ready };
}

const tools = (texts: string[]) => texts.map((text, i) => ({ address: `c.t${i}`, text }));

describe("the tool vector cache", () => {
  it("after a restart, only new or changed tools are embedded again; unchanged ones come from disk", async () => {
    standIn = await startStandIn("ollama");
    const cacheDir = join(tmp(), "embeddings");
    const first = await readyIndex(standIn, cacheDir, tools(["list files", "read a file", "delete a file"]));
    expect(first.status).toMatchObject({ tools: 3, embedded: 3 });
    expect(standIn.texts()).toEqual(["probe", "list files", "read a file", "delete a file"]);
    await first.index.stop();

    // A new process: same model, one tool changed, one added.
    const before = standIn.texts().length;
    const second = await readyIndex(standIn, cacheDir, tools(["list files", "read a whole file", "delete a file", "move a file"]));
    expect(second.status).toMatchObject({ tools: 4, embedded: 2 });
    expect(standIn.texts().slice(before)).toEqual(["probe", "read a whole file", "move a file"]);
    // And the scores cover every tool.
    expect([...cosinesByAddress((await second.index.scores(["files"]))!).keys()].sort()).toEqual(["c.t0", "c.t1", "c.t2", "c.t3"]);
  });

  it("while a catalog change's new tools are embedded, scores are not offered (search is lexical), then cover every tool", async () => {
    standIn = await startStandIn("ollama");
    const { index } = await readyIndex(standIn, join(tmp(), "embeddings"), tools(["list files"]));
    const states: string[] = [];
    index.onStatus((st) => states.push(st.state));
    standIn.hold();
    const loading = new Promise<void>((r) => index.onStatus((st) => st.state === "loading" && r()));
    index.update(tools(["list files", "read a file"]));
    await loading;
    expect(index.scores(["files"])).toBeUndefined();
    const ready = new Promise<void>((r) => index.onStatus((st) => st.state === "ready" && r()));
    standIn.release();
    await ready;
    expect(states).toEqual(["loading", "ready"]);
    expect([...cosinesByAddress((await index.scores(["files"]))!).keys()].sort()).toEqual(["c.t0", "c.t1"]);
  });

  it("keeps its files private (directory 0700, files 0600) and leaves no temporary file behind", async () => {
    standIn = await startStandIn("openai");
    const cacheDir = join(tmp(), "embeddings");
    await readyIndex(standIn, cacheDir, tools(["list files"]));
    const files = readdirSync(cacheDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.vec$/);
    if (process.platform !== "win32") {
      expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
      expect(statSync(join(cacheDir, files[0]!)).mode & 0o777).toBe(0o600);
    }
  });

  it("ignores a damaged or foreign file (and embeds again) instead of trusting it", () => {
    const dir = tmp();
    const cache = new VectorCache(dir, "model-a", 4);
    cache.put(vectorKey("model-a", "x"), Float32Array.from([1, 0, 0, 0]));
    expect(cache.save([vectorKey("model-a", "x")])).toBeUndefined();
    expect(new VectorCache(dir, "model-a", 4).load()).toBe(1);
    expect(new VectorCache(dir, "model-a", 8).load(), "another width").toBe(0);
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), Buffer.from("not a vector file at all"));
    expect(new VectorCache(dir, "model-a", 4).load()).toBe(0);
  });

  it(`never writes more than EMBED_CACHE_BYTES_MAX (${EMBED_CACHE_BYTES_MAX} bytes): the tools of the catalog now stay, the least recently seen go`, () => {
    const dir = tmp();
    const dims = EMBED_DIMS_MAX;
    const fit = Math.floor(EMBED_CACHE_BYTES_MAX / (dims + 4 + 67)); // int8 codes, a float32 scale and the key in the header each
    const cache = new VectorCache(dir, "wide", dims);
    const keys = Array.from({ length: fit + 10 }, (_, i) => vectorKey("wide", `tool ${i}`));
    for (const k of keys) cache.put(k, new Float32Array(dims).fill(1));
    const live = keys.slice(0, 5); // the oldest entries, but the catalog still has them
    expect(cache.save(live)).toBeUndefined();
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).size).toBeLessThanOrEqual(EMBED_CACHE_BYTES_MAX);
    const again = new VectorCache(dir, "wide", dims);
    const kept = again.load();
    expect(kept).toBeGreaterThan(fit - 20);
    expect(kept).toBeLessThan(keys.length);
    for (const k of live) expect(again.get(k), "a live tool").toBeDefined();
    expect(again.get(keys[5]!), "the least recently seen").toBeUndefined();
  });
});
