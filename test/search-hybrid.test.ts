// Hybrid search end to end, in a spawned atrium over stdio: a search made before the semantic
// layer is ready is answered at once, ranked by words (ranking "lexical"); once the tools' vectors
// are in, answers are fused (ranking "hybrid"; a cursor keeps the ranking of the page it came
// from) and a paraphrase that shares no word with its tool
// finds it; search_tools and a program's atrium.search give the same ranking; semantic false is
// lexical for good; an endpoint that hangs or answers vectors of another width is dropped for the
// bundled model, with a line on stderr and in doctor, and search stays lexical meanwhile.
import { describe, it, expect, afterAll, afterEach } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atriumBin, demoServer, nodeServer, npmBin, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { startStandIn, type StandIn } from "./harness/embed-endpoint.js";
import { waitForValue } from "./harness/until.js";

let standIn: StandIn | undefined;
let atrium: Atrium | undefined;
afterAll(() => rmSync(files, { recursive: true, force: true }));
afterEach(async () => {
  await atrium?.close();
  atrium = undefined;
  standIn?.release();
  await standIn?.close();
  standIn = undefined;
});

// The demo desk beside two real servers (a files server and a knowledge graph), so the catalog's
// median tool is an unrelated one, as in a real setup.
const files = mkdtempSync(join(tmpdir(), "atrium-hybrid-files-"));
const config = (search: Record<string, unknown> = {}) => ({
  mcpServers: {
    desk: nodeServer(demoServer),
    fs: { command: npmBin("mcp-server-filesystem"), args: [files] },
    memory: { command: npmBin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(files, "memory.jsonl") } },
  },
  atrium: { search },
});
const addresses = (found: { results: { address: string }[] }) => found.results.map((r) => r.address);

/** The tests that wait for the bundled model to embed the catalog: how long that takes depends on how busy the machine is. */
const MODEL_TEST_MS = 240_000;
/** Searches until the answer is hybrid (the vectors are in), for as long as such a test may run. */
const untilHybrid = (a: Atrium, query: string): Promise<any> =>
  waitForValue(async () => {
    const found = await a.json("search_tools", { query });
    return found.ranking === "hybrid" ? found : undefined;
  }, `a hybrid answer to "${query}" (the vectors in)`, MODEL_TEST_MS);

// Shares no word with the tool's name, title or description ("List every service with its owning
// team, tier and current status."), nor a lexicon expansion of one: only meaning links them.
const PARAPHRASE = "which squad owns each system";
const TOOL = "desk.list_services";

describe("hybrid search in a running atrium", () => {
  it("a search before the embedder is ready is answered at once, lexically; after the vectors are in it is hybrid", async () => {
    standIn = await startStandIn("ollama");
    standIn.hold(); // the embedder's probe gets no answer: the layer is loading
    atrium = await startAtrium({ config: config({ embedder: { url: standIn.url, model: "m" } }) });
    await standIn.arrived(1);
    const before = await atrium.json("search_tools", { query: "incidents" });
    expect(before.ranking).toBe("lexical");
    expect(addresses(before)).toContain("desk.list_incidents");
    expect(standIn.requests).toHaveLength(1); // answered while the probe is still unanswered

    const firstPage = await atrium.json("search_tools", { query: "incidents", limit: 1 });
    expect(firstPage.ranking).toBe("lexical");

    standIn.release();
    const after = await untilHybrid(atrium, "incidents");
    expect(after.ranking).toBe("hybrid");
    expect(addresses(after)).toContain("desk.list_incidents");
    // A page after a lexical one stays lexical: the list being paged is never reordered under it.
    const secondPage = await atrium.json("search_tools", { query: "incidents", limit: 1, cursor: firstPage.nextCursor });
    expect(secondPage.ranking).toBe("lexical");
    expect(addresses(secondPage)).toEqual([addresses(before)[1]]);
    const hybridNext = await atrium.json("search_tools", { query: "incidents", limit: 1, cursor: (await atrium.json("search_tools", { query: "incidents", limit: 1 })).nextCursor });
    expect(hybridNext.ranking).toBe("hybrid");
  }, MODEL_TEST_MS);

  it("with the bundled model, a paraphrase that shares no word with its tool ranks it first once the vectors are in; a program's atrium.search ranks the same", async () => {
    atrium = await startAtrium({ config: config() });
    const found = await untilHybrid(atrium, PARAPHRASE);
    expect(found.ranking).toBe("hybrid");
    expect(addresses(found)[0]).toBe(TOOL);
    const inProgram = await atrium.value(`async () => atrium.search(${JSON.stringify(PARAPHRASE)})`);
    expect(inProgram.ranking).toBe("hybrid");
    expect(inProgram.results.map((r: { address: string; score: number }) => [r.address, r.score])).toEqual(found.results.map((r: { address: string; score: number }) => [r.address, r.score]));
  }, MODEL_TEST_MS);

  it("with atrium.search.semantic false, every answer is lexical and the paraphrase's tool is not first", async () => {
    atrium = await startAtrium({ config: config({ semantic: false }) });
    const found = await atrium.json("search_tools", { query: PARAPHRASE });
    expect(found.ranking).toBe("lexical");
    expect(addresses(found)[0]).not.toBe(TOOL);
    const inProgram = await atrium.value(`async () => atrium.search(${JSON.stringify(PARAPHRASE)})`);
    expect(inProgram.ranking).toBe("lexical");
  }, 60_000);

  it("an endpoint that answers vectors of another width is dropped for the bundled model, logged once; search is lexical meanwhile, then hybrid", async () => {
    standIn = await startStandIn("openai");
    standIn.misbehave("wrongWidth", 1); // the probe is fine, the tools' vectors are one wider
    atrium = await startAtrium({ config: config({ embedder: { url: standIn.url, model: "m" } }) });
    const first = await atrium.json("search_tools", { query: "incidents" });
    expect(first.ranking).toBe("lexical");
    const later = await untilHybrid(atrium, PARAPHRASE);
    expect(later.ranking).toBe("hybrid");
    expect(addresses(later)[0]).toBe(TOOL); // the bundled model's meaning, not the stand-in's letters
    expect(atrium.stderr().match(/embedding endpoint .* dropped/g)).toHaveLength(1);
  }, MODEL_TEST_MS);

  it("an endpoint that hangs is dropped after EMBED_ENDPOINT_MS; search answers lexically at once meanwhile", async () => {
    standIn = await startStandIn("ollama");
    standIn.misbehave("hang");
    atrium = await startAtrium({ config: config({ embedder: { url: standIn.url, model: "m" } }) });
    const first = await atrium.json("search_tools", { query: "incidents" });
    expect(first.ranking).toBe("lexical");
    expect(addresses(first)).toContain("desk.list_incidents");
    const later = await untilHybrid(atrium, PARAPHRASE);
    expect(later.ranking).toBe("hybrid");
    expect(atrium.stderr()).toMatch(/embedding endpoint .* dropped/);
  }, MODEL_TEST_MS);
});

describe("doctor and a hanging endpoint", () => {
  it("says the endpoint is dropped for the bundled model, and exits 1", async () => {
    standIn = await startStandIn("ollama");
    standIn.misbehave("hang");
    const dir = mkdtempSync(join(tmpdir(), "atrium-doctor-hybrid-"));
    writeFileSync(join(dir, "atrium.json"), JSON.stringify(config({ embedder: { url: standIn.url, model: "m" } })));
    const child = spawn(process.execPath, [atriumBin, "doctor", "--config", join(dir, "atrium.json")], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "", ATRIUM_STATE_DIR: join(dir, "state") } });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    rmSync(dir, { recursive: true, force: true });
    expect(stdout).toMatch(/search: .*dropped/);
    expect(status).toBe(1);
  }, 60_000);
});
