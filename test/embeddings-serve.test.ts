// The semantic layer in a spawned atrium: it starts after atrium serves and never delays it
// (initialize and searches are answered while the embedder has not even answered its probe:
// the stand-in endpoint holds it), then builds the tools' vectors in the background;
// atrium.search.semantic false never starts it; and `atrium doctor` says which embedder serves,
// or that the operator's endpoint is dropped and the bundled model takes over.
import { describe, it, expect, afterEach } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atriumBin, demoServer, fixture, nodeServer, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { startStandIn, type StandIn } from "./harness/embed-endpoint.js";
import { SemanticIndex } from "../glue/embeddings/semantic-index.js";

let standIn: StandIn | undefined;
let atrium: Atrium | undefined;
afterEach(async () => {
  await atrium?.close();
  atrium = undefined;
  standIn?.release();
  await standIn?.close();
  standIn = undefined;
});

/** The start deadline of a connector that never answers: the window in which an embedder started too early would show. */
const MUTE_START_MS = 3000;
const config = (search: Record<string, unknown>) => ({ mcpServers: { desk: nodeServer(demoServer) }, atrium: { search } });

describe("semantic search in a running atrium", () => {
  it("initialize and searches are answered while the embedder is still loading; the tools' vectors are built after, in the background", async () => {
    standIn = await startStandIn("ollama");
    standIn.hold(); // the embedder's first request (its probe) gets no answer until released
    atrium = await startAtrium({ config: config({ embedder: { url: standIn.url, model: "m" } }) }); // initialize, then a search per poll
    await standIn.arrived(1);
    expect(standIn.texts()).toEqual(["probe"]); // the embedder is loading: its probe is unanswered

    const found = await atrium.json("search_tools", { query: "incidents" });
    expect(found.results.map((r: { address: string }) => r.address)).toContain("desk.list_incidents");
    expect(standIn.requests).toHaveLength(1); // still loading when the search was answered

    standIn.release();
    await standIn.arrived(2); // then the catalog's tools are embedded
    expect(standIn.requests[1]!.input).toContain("list incidents (desk): List incidents. List incidents newest first, optionally filtered by status (open, investigating, resolved, closed), service or severity, one page at a time.");
  }, 60_000);

  it("the embedder is not started while a connector's first start is still going: a cold start never shares the CPU with the model", async () => {
    standIn = await startStandIn("ollama");
    standIn.hold(); // the embedder's probe gets no answer: it goes no further than asking
    // A connector that never answers initialize: its first start settles only when its start
    // deadline runs out (then it is failed: no retries).
    const mute = nodeServer(fixture("nasty-server"), { env: { FIXTURE_MUTE_INIT: "1" }, startTimeoutMs: MUTE_START_MS });
    atrium = await startAtrium({ config: { mcpServers: { desk: mute }, atrium: { connectors: { startRetries: 0 }, search: { embedder: { url: standIn.url, model: "m" } } } }, waitForConnectors: false });
    await standIn.arrived(1); // the embedder's probe
    expect(standIn.texts()).toEqual(["probe"]);
    // By the time the embedder asked, the connector's first start had settled. Had the embedder
    // started with the server, its probe would have come while the connector was still starting.
    const found = await atrium.json("search_tools", { query: "incidents" });
    expect(found.unavailable).toEqual([expect.objectContaining({ connector: "desk", state: "failed" })]);
    expect(found.unavailable[0].problem).toContain(`within ${MUTE_START_MS} ms (startTimeoutMs)`);
  }, 60_000);

  it("with atrium.search.semantic false, nothing is started: the endpoint never hears from atrium", async () => {
    standIn = await startStandIn("ollama");
    atrium = await startAtrium({ config: config({ semantic: false, embedder: { url: standIn.url, model: "m" } }) });
    await atrium.json("search_tools", { query: "incidents" });
    expect(await atrium.value("async () => (await atrium.search('incidents')).results.length > 0")).toBe(true);
    await atrium.close(); // the whole life of the process
    atrium = undefined;
    expect(standIn.requests).toEqual([]);
  }, 60_000);
});

/** `atrium doctor` on a config, run without blocking this process (the stand-in must answer). */
function doctor(cfg: unknown): Promise<{ status: number | null; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-doctor-search-"));
  writeFileSync(join(dir, "atrium.json"), JSON.stringify(cfg));
  const child = spawn(process.execPath, [atriumBin, "doctor", "--config", join(dir, "atrium.json")], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "", ATRIUM_STATE_DIR: join(dir, "state") } });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
  return new Promise((resolve) => child.on("close", (status) => {
    rmSync(dir, { recursive: true, force: true });
    resolve({ status, stdout });
  }));
}

describe("the semantic layer when atrium.search.semantic is false", () => {
  it("start() starts no worker: the state stays off and search gets no scores", () => {
    const index = new SemanticIndex({ semantic: false, embedder: null }, { entries: () => { throw new Error("the catalog is never read"); } });
    const seen: string[] = [];
    index.onStatus((s) => seen.push(s.state));
    index.start();
    index.catalogChanged();
    expect(index.status()).toEqual({ state: "off" });
    expect(index.scores(["anything"])).toBeUndefined();
    expect(seen).toEqual([]);
  });
});

describe("atrium doctor on search", () => {
  it("names the bundled model by default, and says search is lexical only when semantic is false", async () => {
    const bundled = await doctor(config({}));
    expect(bundled.stdout).toMatch(/^search: lexical \+ semantic, by the bundled model @energetic-ai\/model-embeddings-en@0\.2\.0 \(loaded in the background after atrium serve starts\)$/m);
    expect(bundled.status, bundled.stdout).toBe(0);
    const off = await doctor(config({ semantic: false }));
    expect(off.stdout).toMatch(/^search: lexical only \(atrium\.search\.semantic is false\)$/m);
    expect(off.status).toBe(0);
  }, 60_000);

  it("asks the endpoint for a vector: a working one is named with its width; a failing one is dropped for the bundled model, and doctor fails", async () => {
    standIn = await startStandIn("openai", 16);
    const ok = await doctor(config({ embedder: { url: standIn.url, model: "m" } }));
    expect(ok.stdout).toContain(`search: lexical + semantic, by the embedding endpoint ${standIn.url} (openai, model "m"): answered 16-dimension vectors`);
    expect(ok.status, ok.stdout).toBe(0);

    standIn.misbehave("status500");
    const bad = await doctor(config({ embedder: { url: standIn.url, model: "m" } }));
    expect(bad.stdout).toContain(`search: ! the embedding endpoint ${standIn.url} (openai, model "m") is dropped: answered HTTP 500`);
    expect(bad.stdout).toMatch(/^ {5}atrium serve falls back to the bundled model \(@energetic-ai\/model-embeddings-en@0\.2\.0\); fix or remove atrium\.search\.embedder$/m);
    expect(bad.status).toBe(1);
  }, 60_000);
});
