// Several phrasings over real stdio: search_tools `queries` and a program's atrium.search([...])
// rank each phrasing and fuse them; the bound on phrasings, the typed error for an unknown
// connector filter and the hint on an empty answer reach the caller on both paths.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { startAtrium, nodeServer, demoServer, type Atrium } from "./harness/atrium-client.js";
import { SEARCH_PHRASINGS_MAX } from "../glue/decisions/generated/spec.js";

let a: Atrium;
beforeAll(async () => {
  a = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer), ghost: { command: "mcp-server-does-not-exist" } }, atrium: { connectors: { startRetries: 0 } } } });
});
afterAll(async () => { await a.close(); });

const addresses = (found: { results: { address: string }[] }) => found.results.map((r) => r.address);

describe("search_tools with several phrasings", () => {
  it("its description tells the model to pass two or three phrasings", async () => {
    const { tools } = await a.client.listTools();
    const t = tools.find((x) => x.name === "search_tools")!;
    expect(t.description).toContain("two or three phrasings");
    expect(JSON.stringify(t.inputSchema)).toContain("queries");
  });

  it("fuses the phrasings: a tool either one finds is in the answer, each with a 0-1 score", async () => {
    const metrics = addresses(await a.json("search_tools", { query: "service metrics" }))[0];
    const incidents = addresses(await a.json("search_tools", { query: "close incident" }))[0];
    const fused = await a.json("search_tools", { query: "service metrics", queries: ["close incident"] });
    // Each phrasing's best is near the top; a tool both phrasings rank second may sit between them.
    expect(addresses(fused).slice(0, 3)).toEqual(expect.arrayContaining([metrics, incidents]));
    for (const r of fused.results) expect(r.score).toBeGreaterThanOrEqual(0), expect(r.score).toBeLessThanOrEqual(1);
  });

  it("refuses more than SEARCH_PHRASINGS_MAX phrasings with a typed error", async () => {
    const r = await a.call("search_tools", { query: "incident", queries: Array.from({ length: SEARCH_PHRASINGS_MAX }, () => "incident") });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.structuredContent ?? r.content)).toContain("invalid_args");
  });

  it("an unknown connector filter is invalid_args naming the known connectors", async () => {
    const r = await a.call("search_tools", { query: "incident", connector: "pager" });
    expect(r.isError).toBe(true);
    const text = JSON.stringify(r.structuredContent ?? r.content);
    expect(text).toContain("invalid_args");
    expect(text).toContain("desk");
    expect(text).toContain("ghost");
  });

  it("an answer with nothing carries a hint and the unavailable connectors", async () => {
    const found = await a.json("search_tools", { query: "bake a chocolate cake" });
    expect(found.total).toBe(0);
    expect(found.hint.connectors).toContain("desk");
    expect(found.unavailable.map((u: { connector: string }) => u.connector)).toEqual(["ghost"]);
  });
});

describe("atrium.search in programs", () => {
  it("takes an array of phrasings and answers like search_tools with queries", async () => {
    const direct = await a.json("search_tools", { query: "", queries: ["service metrics", "close incident"] });
    const fromProgram = await a.value(`async () => atrium.search(["service metrics", "close incident"])`);
    expect(addresses(fromProgram)).toEqual(addresses(direct));
    expect(fromProgram.unavailable).toEqual(direct.unavailable);
  });

  it("refuses an empty array, too many phrasings or a phrasing that is not a string, typed and catchable", async () => {
    const many = JSON.stringify(Array.from({ length: SEARCH_PHRASINGS_MAX + 1 }, () => "incident"));
    const v = await a.value(`async () => {
      const codes = [];
      for (const q of [[], ${many}, ["incident", 42]]) {
        try { await atrium.search(q); codes.push("ran"); } catch (e) { codes.push(e.code); }
      }
      return codes;
    }`);
    expect(v).toEqual(["invalid_args", "invalid_args", "invalid_args"]);
  });

  it("a phrasing longer than search_query_chars is refused before any work", async () => {
    const v = await a.value(`async () => { try { await atrium.search(["incident", "x".repeat(100000)]); return "ran"; } catch (e) { return [e.code, e.details && e.details.budget]; } }`);
    expect(v).toEqual(["budget_exceeded", "search_query_chars"]);
  });

  it("an unknown connector filter is a typed error in a program too, and an empty answer has a hint", async () => {
    const v = await a.value(`async () => {
      let code;
      try { await atrium.search("incident", { connector: "pager" }); } catch (e) { code = e.code; }
      const empty = await atrium.search(["bake a chocolate cake", "water the plants"]);
      return { code, total: empty.total, hint: typeof empty.hint.message };
    }`);
    expect(v).toEqual({ code: "invalid_args", total: 0, hint: "string" });
  });
});
