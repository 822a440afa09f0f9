// Bring-your-own embedder: an operator's endpoint (atrium.search.embedder) speaking Ollama's embed
// API or an OpenAI-compatible /v1/embeddings, against a real local stand-in server. Every answer
// is read under EMBED_RESPONSE_BYTES_MAX before it is parsed and held to the width of the first;
// an error, a hang past EMBED_ENDPOINT_MS, a wrong width or count, a non-number or an oversized
// body is a rejection (the worker then drops the endpoint: embeddings-fallback.test.ts). And the
// atrium.search config that names it.
import { describe, it, expect, afterEach } from "vitest";
import { core } from "../glue/decisions/core.js";
import { validateConfig } from "../glue/config/validate.js";
import { connectEndpoint } from "../glue/embeddings/endpoint.js";
import { EMBED_ENDPOINT_MS, EMBED_RESPONSE_BYTES_MAX } from "../glue/decisions/generated/spec.js";
import { startStandIn, type StandIn } from "./harness/embed-endpoint.js";

let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

const settings = (s: StandIn, api: "ollama" | "openai") => ({ url: s.url, model: "nomic-embed-text", api, headers: { authorization: "Bearer test" } });
const length = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe("an embedding endpoint", () => {
  for (const api of ["ollama", "openai"] as const) {
    it(`${api}: POSTs {model, input}, learns the width from a probe, and answers one unit vector per text`, async () => {
      standIn = await startStandIn(api, 8);
      const e = await connectEndpoint(settings(standIn, api));
      expect(e.dims).toBe(8);
      const vectors = await e.embed(["delete a folder", "send a chat message"]);
      expect(vectors).toHaveLength(2);
      for (const v of vectors) expect(length(v)).toBeCloseTo(1);
      expect(standIn.requests.map((r) => r.model)).toEqual(["nomic-embed-text", "nomic-embed-text"]);
      expect(standIn.requests[1]!.input).toEqual(["delete a folder", "send a chat message"]);
      expect(e.id).toContain(standIn.url);
    });
  }

  it("an HTTP error is a rejection that names the status", async () => {
    standIn = await startStandIn("ollama");
    standIn.misbehave("status500");
    await expect(connectEndpoint(settings(standIn, "ollama"))).rejects.toThrow(/answered HTTP 500/);
  });

  it("a vector of another width than the endpoint's first answer, a non-number, or a wrong count is a rejection", async () => {
    standIn = await startStandIn("openai");
    const e = await connectEndpoint(settings(standIn, "openai"));
    standIn.misbehave("wrongWidth");
    await expect(e.embed(["a"])).rejects.toThrow(/9 wide, not 8/);
    standIn.misbehave("notNumbers");
    await expect(e.embed(["a"])).rejects.toThrow(/not a finite number/);
    standIn.misbehave("wrongCount");
    await expect(e.embed(["a", "b"])).rejects.toThrow(/answered 1 vectors for 2 texts/);
  });

  it("an answer in the other API's shape is a rejection", async () => {
    standIn = await startStandIn("openai");
    await expect(connectEndpoint(settings(standIn, "ollama"))).rejects.toThrow(/no "embeddings" list/);
  });

  it(`a body past EMBED_RESPONSE_BYTES_MAX (${EMBED_RESPONSE_BYTES_MAX} bytes) is cut off while it arrives, never parsed`, async () => {
    standIn = await startStandIn("ollama");
    standIn.misbehave("oversized");
    await expect(connectEndpoint(settings(standIn, "ollama"))).rejects.toThrow(new RegExp(`over ${EMBED_RESPONSE_BYTES_MAX} bytes`));
  });

  it(`an endpoint that does not answer within EMBED_ENDPOINT_MS (${EMBED_ENDPOINT_MS} ms) is a rejection`, async () => {
    standIn = await startStandIn("ollama");
    standIn.misbehave("hang");
    await expect(connectEndpoint(settings(standIn, "ollama"))).rejects.toThrow(/no answer within/);
  }, EMBED_ENDPOINT_MS * 3);
});

describe("atrium.search in atrium.json", () => {
  const c = core();
  const check = (search: unknown) => validateConfig({ mcpServers: {}, atrium: { search } }, c);

  it("semantic search is on by default with the bundled model", () => {
    const r = validateConfig({ mcpServers: {} }, c);
    expect(r.ok && r.config.search).toEqual({ semantic: true, embedder: null });
    const off = check({ semantic: false });
    expect(off.ok && off.config.search).toEqual({ semantic: false, embedder: null });
  });

  it("an embedder needs url and model; its api is read from the path (…/api/embed is Ollama) unless given", () => {
    const ollama = check({ embedder: { url: "http://localhost:11434/api/embed", model: "nomic-embed-text" } });
    expect(ollama.ok && ollama.config.search.embedder).toEqual({ url: "http://localhost:11434/api/embed", model: "nomic-embed-text", api: "ollama", headers: {} });
    const openai = check({ embedder: { url: "http://localhost:8080/v1/embeddings", model: "m", headers: { authorization: "Bearer k" } } });
    expect(openai.ok && openai.config.search.embedder).toMatchObject({ api: "openai", headers: { authorization: "Bearer k" } });
    const forced = check({ embedder: { url: "http://gpu-box:9000/embed", model: "m", api: "ollama" } });
    expect(forced.ok && forced.config.search.embedder!.api).toBe("ollama");
  });

  it("refuses a missing url or model, a bad api, a non-http url, a non-boolean semantic and unknown keys, each at its path", () => {
    const errors = (search: unknown) => { const r = check(search); return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`); };
    expect(errors({ embedder: { model: "m" } })).toEqual([expect.stringMatching(/^atrium\.search\.embedder\.url: missing/)]);
    expect(errors({ embedder: { url: "http://x/v1/embeddings" } })).toEqual([expect.stringMatching(/^atrium\.search\.embedder\.model: missing/)]);
    expect(errors({ embedder: { url: "http://x/v1/embeddings", model: "m", api: "cohere" } })).toEqual([`atrium.search.embedder.api: must be one of "ollama", "openai", got "cohere"`]);
    expect(errors({ embedder: { url: "ftp://x/embed", model: "m" } })[0]).toMatch(/^atrium\.search\.embedder\.url: must be an http/);
    expect(errors({ semantic: "yes" })).toEqual(["atrium.search.semantic: expected a boolean, got string"]);
    expect(errors({ semantik: true })).toEqual([`atrium.search.semantik: unknown key; did you mean "semantic"?`]);
    expect(errors({ embedder: { url: "http://x/api/embed", model: "m", modle: "n" } })).toEqual([`atrium.search.embedder.modle: unknown key; did you mean "model"?`]);
  });
});
