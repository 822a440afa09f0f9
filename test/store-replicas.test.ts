// Two `atrium serve --http` replicas on one real redis-server (atrium.store), no stickiness: a
// client whose requests alternate between them works on both revisions. A 2025-11-25 session
// opened on one is served by the other (its initialize replayed there), a result stashed through
// one is paged through the other, a session ended on one is ended on both, and a store that stops
// answering turns /readyz to 503 and requests into retryable 503s until it is back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpAtrium, connectHttp, type HttpAtrium } from "./harness/atrium-http.js";
import { fixture, nodeServer, programValue } from "./harness/atrium-client.js";
import { startRedis, type TestRedis } from "./harness/redis.js";
import { waitFor } from "./harness/until.js";

let redis: TestRedis;
let a: HttpAtrium;
let b: HttpAtrium;
beforeAll(async () => {
  redis = await startRedis();
  const config = {
    mcpServers: { echo: nodeServer(fixture("nasty-server"), { maxResultBytes: 50_000 }) },
    atrium: { log: { enabled: false }, search: { semantic: false }, store: { url: redis.url, keyPrefix: "replicas:" } },
  };
  [a, b] = await Promise.all([startHttpAtrium({ config }), startHttpAtrium({ config })]);
  for (const r of [a, b]) await waitFor(async () => (await fetch(`${r.base}/readyz`)).status === 200, "each replica ready");
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

/** A fetch that sends each request to the next replica in turn (a balancer with no stickiness), counting where each went. */
function alternating() {
  const served = { a: 0, b: 0 };
  let next = 0;
  const fetchFn = (input: string | URL | Request, init?: RequestInit) => {
    const to = next++ % 2 === 0 ? a : b;
    served[to === a ? "a" : "b"]++;
    const u = new URL(input instanceof Request ? input.url : input.toString());
    return fetch(`${to.base}${u.pathname}${u.search}`, init);
  };
  return { served, fetchFn };
}

describe("replicas on one store, no stickiness", () => {
  it("a 2025-11-25 session opened on one replica is served by the other, request after request", async () => {
    const { served, fetchFn } = alternating();
    const c = await connectHttp(a.url, { revision: "2025-11-25", fetch: fetchFn });
    try {
      for (let i = 0; i < 4; i++) expect((await c.client.listTools()).tools.map((t) => t.name)).toContain("execute_code");
      await waitFor(async () => ((await c.call("search_tools", { query: "echo", limit: 5 })).structuredContent as { total?: number } | undefined)?.total !== 0, "echo listed");
      expect(programValue(await c.call("execute_code", { code: "return (await echo.echo({ s: 'hi' }))" }))).toBeTruthy();
      expect(served.a).toBeGreaterThan(2);
      expect(served.b).toBeGreaterThan(2);
    } finally {
      await c.close();
    }
  }, 60_000);

  it("a session ended through one replica is ended on the other: its id answers 404 there", async () => {
    const c = await connectHttp(a.url, { revision: "2025-11-25" });
    const sid = c.transport.sessionId!;
    await c.client.listTools();
    const ended = await fetch(b.url, { method: "DELETE", headers: { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" } });
    expect(ended.status).toBe(200);
    const after = await fetch(a.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" }, body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }) });
    expect(after.status).toBe(404);
    await c.close();
  }, 60_000);

  it("a result cut and stashed through one replica is paged through the other (2026-07-28)", async () => {
    const viaA = await connectHttp(a.url, { revision: "2026-07-28" });
    const viaB = await connectHttp(b.url, { revision: "2026-07-28" });
    try {
      await waitFor(async () => ((await viaA.call("search_tools", { query: "echo", limit: 5 })).structuredContent as { total?: number } | undefined)?.total !== 0, "echo listed");
      const big = await viaA.call("call_tool", { address: "echo.echo", args: { s: "x".repeat(60_000) }, resultMode: "value" });
      const id = (big.structuredContent as { resultId?: string }).resultId;
      expect(id).toBeTruthy();
      const page = await viaB.call("get_result", { id, offset: 0 });
      expect(page.isError).toBeFalsy();
      expect((page.structuredContent as { totalBytes: number }).totalBytes).toBeGreaterThan(60_000);
    } finally {
      await Promise.all([viaA.close(), viaB.close()]);
    }
  }, 60_000);

  it("a store that stops answering: /readyz 503 and requests a retryable 503 on every replica; both recover by themselves", async () => {
    redis.pause();
    try {
      for (const r of [a, b]) expect((await fetch(`${r.base}/readyz`)).status).toBe(503);
      const refused = await fetch(a.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await refused.json()).toMatchObject({ error: "unavailable" });
    } finally {
      redis.resume();
    }
    for (const r of [a, b]) await waitFor(async () => (await fetch(`${r.base}/readyz`)).status === 200, "ready again");
    const c = await connectHttp(b.url, { revision: "2026-07-28" });
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
    await c.close();
    expect(a.proc.exitCode).toBeNull();
    expect(b.proc.exitCode).toBeNull();
  }, 60_000);
});
