// The embedding worker's lifetime (ARCHITECTURE.md, Lifetimes): it never keeps atrium alive (a
// process whose semantic layer is ready, with the real worker and a real stand-in endpoint, exits
// by itself), and a crash of it leaves search lexical: the query in flight answers no scores,
// every later one none at once, the layer says failed, and the operator reads one line.
import { describe, it, expect, afterEach } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SemanticIndex, type SemanticStatus } from "../glue/embeddings/semantic-index.js";
import { startStandIn, type StandIn } from "./harness/embed-endpoint.js";
import { repo } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), "atrium-embed-life-")); dirs.push(d); return d; };
let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entries = [{ address: "c.list", text: "list files" }, { address: "c.read", text: "read a file" }];

describe("the embedding worker's lifetime", () => {
  it("never keeps atrium alive: a process whose semantic layer is ready ends by itself", async () => {
    standIn = await startStandIn("ollama");
    const dir = tmp();
    // The compiled SemanticIndex and its real worker (dist/), in a process of its own held open (as
    // atrium is by its stdin) until the layer is ready, then let go: nothing else is left to hold it.
    const script = `
      import { SemanticIndex } from ${JSON.stringify(join(repo, "dist/glue/embeddings/semantic-index.js"))};
      const index = new SemanticIndex({ semantic: true, embedder: { url: ${JSON.stringify(standIn.url)}, model: "m", api: "ollama", headers: {} } },
        { entries: () => ${JSON.stringify(entries)}, cacheDir: ${JSON.stringify(join(dir, "cache"))}, log: () => {} });
      const held = setInterval(() => {}, 1000);
      index.onStatus((s) => {
        if (s.state !== "ready" && s.state !== "failed") return;
        process.stdout.write(s.state + "\\n");
        if (s.state === "failed") process.stderr.write(String(s.note));
        clearInterval(held);
      });
      index.start();
    `;
    writeFileSync(join(dir, "ready-then-idle.mjs"), script);
    const child = spawn(process.execPath, [join(dir, "ready-then-idle.mjs")], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (c: Buffer) => { err += c.toString(); });
    child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
    let exit: number | null | undefined;
    child.on("exit", (code) => { exit = code; });
    await waitFor(() => exit !== undefined, "the process ended by itself");
    expect(out, err).toBe("ready\n");
    expect(exit).toBe(0);
  });

  it("a crash of the worker leaves search lexical: no scores for the query in flight or after, state failed, one line for the operator", async () => {
    // A worker that becomes ready over the tools it is sent, then throws on the first query (an uncaught error ends its thread).
    const workerPath = join(tmp(), "crashing-worker.mjs");
    writeFileSync(workerPath, `
      import { parentPort } from "node:worker_threads";
      parentPort.on("message", (m) => {
        if (m.type === "update") parentPort.postMessage({ type: "state", state: "ready", set: { generation: 1, addresses: m.entries.map((e) => e.address) }, tools: m.entries.length, embedded: m.entries.length });
        if (m.type === "scores") throw new Error("the worker crashed mid-query");
      });
    `);
    const lines: string[] = [];
    const index = new SemanticIndex({ semantic: true, embedder: null }, { entries: () => entries, cacheDir: join(tmp(), "cache"), workerPath, log: (l) => lines.push(l) });
    const states: SemanticStatus["state"][] = [];
    index.onStatus((s) => states.push(s.state));
    index.start();
    await waitFor(() => index.status().state === "ready", "the worker ready");
    const inFlight = index.scores(["list files"]);
    expect(inFlight).toBeInstanceOf(Promise);
    expect(await inFlight).toBeUndefined();
    expect(index.status()).toMatchObject({ state: "failed" });
    expect(index.scores(["list files"])).toBeUndefined();
    expect(states).toEqual(["loading", "ready", "failed"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/search ranks lexically$/);
    await index.stop();
  });
});
