// Search and a connector that is still starting (issue 18, item 2). With the Inspector CLI (a
// fresh atrium per call) every search came back "No tool in any connector matched": the search
// ran before any connector had started. Now search_tools, atrium.search and atrium.describe that
// name a connector wait for it (bounded by its start deadline), as call_tool does; a search
// across all connectors answers from those that are ready and says first, plainly, which are
// still starting and how to ask again. A fixture server that is slow to answer initialize.
import { describe, it, expect, afterAll } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { demoServer, fixture, nodeServer, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-starting-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh atrium, called at once (no wait for its connectors), as the Inspector CLI runs it. */
async function freshCall<T>(config: unknown, call: (a: Atrium) => Promise<T>): Promise<T> {
  const a = await startAtrium({ config, waitForConnectors: false });
  try { return await call(a); } finally { await a.close(); }
}
const slowly = { mcpServers: { slow: nodeServer(fixture("slow-start-server"), { env: { SLOW_START_MS: "800" } }) } };

describe("a search naming a connector waits for its start", () => {
  it("search_tools with connector, first call of a fresh atrium: the slow connector's tools, nothing unavailable", async () => {
    const found = await freshCall(slowly, (a) => a.json("search_tools", { query: "", connector: "slow" }));
    expect(found.results.map((r: any) => r.address).sort()).toEqual(["slow.count_pebbles", "slow.peek_pebbles"]);
    expect(found.unavailable).toBeUndefined();
    expect(found.hint).toBeUndefined();
  });

  it("a program's atrium.search with a connector and atrium.describe of an address wait the same way", async () => {
    const v = await freshCall(slowly, (a) => a.value(`async () => {
      const found = await atrium.search("peek pebbles", { connector: "slow" });
      const described = await atrium.describe("slow.peek_pebbles");
      return { first: found.results[0] && found.results[0].address, described: described.ok && described.address };
    }`));
    expect(v).toEqual({ first: "slow.peek_pebbles", described: "slow.peek_pebbles" });
  });

  it("a search naming no connector does not wait: it answers at once from the ready ones", async () => {
    const gate = join(dir, "gate-fresh");
    const found = await freshCall({ mcpServers: { slow: nodeServer(fixture("slow-start-server"), { env: { SLOW_GATE: gate } }) } }, (a) => a.json("search_tools", { query: "pebbles" }));
    expect(found.results).toEqual([]);
    expect(found.starting).toContain("slow");
  });
});

describe("a search across all connectors while one is still starting", () => {
  const gate = join(dir, "gate");
  let a: Atrium;
  afterAll(async () => { await a?.close(); });

  it("says first and plainly which connectors are still starting and how to ask again, and answers from the ready ones", async () => {
    a = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer), slow: nodeServer(fixture("slow-start-server"), { env: { SLOW_GATE: gate } }) } }, waitForConnectors: false });
    await waitFor(async () => (await a.json("search_tools", { query: "", connector: "desk", limit: 1 })).total > 0, "desk ready");
    const r = await a.call("search_tools", { query: "incident" });
    const text = (r.content[0] as { text: string }).text;
    expect(text.startsWith('{"starting":')).toBe(true);
    const found = r.structuredContent as any;
    expect(found.starting).toMatch(/^Still starting: slow\b/);
    expect(found.starting).toContain('connector: "slow"');
    expect(found.results[0].address).toMatch(/^desk\./);
  });

  it("finding nothing is not worded as \"no such tool\" while a connector is still starting", async () => {
    const found = await a.json("search_tools", { query: "peek pebbles" });
    expect(found.total).toBe(0);
    expect(found.hint.message).not.toContain("No tool in any connector matched");
    expect(found.hint.message).toContain("slow");
    expect(found.hint.message).toContain("still starting");
  });

  it("once the connector is up, the same search finds its tool and says nothing is starting", async () => {
    const waiting = a.json("search_tools", { query: "peek pebbles", connector: "slow" });
    writeFileSync(gate, "");
    const named = await waiting;
    expect(named.results[0].address).toBe("slow.peek_pebbles");
    const all = await a.json("search_tools", { query: "peek pebbles" });
    expect(all.starting).toBeUndefined();
    expect(all.results[0].address).toBe("slow.peek_pebbles");
  });
});
