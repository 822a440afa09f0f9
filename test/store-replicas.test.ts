// Two `atrium serve --http` replicas on one real redis-server (atrium.store), no stickiness: a
// client whose requests alternate between them works on both revisions. A 2025-11-25 session
// opened on one is served by the other (its initialize replayed there), a result stashed through
// one is paged through the other, a session ended on one is ended on both, and a store that stops
// answering turns /readyz to 503 and requests into retryable 503s until it is back. A 2026-07-28
// retry that lands on another replica than the one holding its parked run is carried there and
// runs the write once; when that replica is gone, the retry says so at once (not retryable).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { withInputRequired } from "@modelcontextprotocol/client";
import { startHttpAtrium, connectHttp, type HttpAtrium } from "./harness/atrium-http.js";
import { fixture, nodeServer, programValue } from "./harness/atrium-client.js";
import { startRedis, type RedisServer as TestRedis } from "./harness/redis-server.js";
import { waitFor } from "./harness/until.js";

let redis: TestRedis;
let a: HttpAtrium;
let b: HttpAtrium;
let config: unknown;
const writes = join(mkdtempSync(join(tmpdir(), "atrium-replica-writes-")), "writes.log");
const records = () => (existsSync(writes) ? readFileSync(writes, "utf8").split("\n").filter(Boolean) : []);
beforeAll(async () => {
  redis = await startRedis();
  config = {
    mcpServers: { echo: nodeServer(fixture("nasty-server"), { maxResultBytes: 50_000 }), w: nodeServer(fixture("writes-server"), { args: [fixture("writes-server"), writes] }) },
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

const parkParams = { name: "execute_code", arguments: { code: `async () => atrium.call("w.add_record", { n: 1 }, { reason: "across replicas" })` } };
/** A program whose write parks it on a question (2026-07-28: the answer is input-required). */
const parkOn = (c: Awaited<ReturnType<typeof connectHttp>>) => c.client.request({ method: "tools/call", params: parkParams }, withInputRequired(CallToolResultSchema), { allowInputRequired: true }) as Promise<unknown>;
/** The client's retry carrying the person's "run once" and the requestState. */
const retryOn = (c: Awaited<ReturnType<typeof connectHttp>>, requestState: string) =>
  c.client.request({ method: "tools/call", params: { ...parkParams, inputResponses: { approve: { action: "accept", content: { choice: "run_once" } } }, requestState } } as never, withInputRequired(CallToolResultSchema), { allowInputRequired: true }) as Promise<any>;

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

  it("a 2025-11-25 approval asked on one replica and answered through the other reaches the run that asked: the write runs once", async () => {
    const { served, fetchFn } = alternating();
    const c = await connectHttp(a.url, { revision: "2025-11-25", fetch: fetchFn, capabilities: { elicitation: { form: {} } } });
    let asked = 0;
    c.client.setRequestHandler("elicitation/create", async () => {
      asked++;
      return { action: "accept", content: { choice: "run_once" } } as never;
    });
    try {
      await waitFor(async () => ((await c.call("search_tools", { query: "add record", limit: 5 })).structuredContent as { total?: number } | undefined)?.total !== 0, "w listed");
      const before = records().length;
      const before2 = { ...served };
      // The call goes to one replica (its answer streams from there); the person's answer is the next request, to the other.
      expect(programValue(await c.call("execute_code", { code: `async () => atrium.call("w.add_record", { n: 2 }, { reason: "asked across replicas" })` }))).toEqual({ recorded: before + 1 });
      expect(asked).toBe(1);
      expect(records()).toHaveLength(before + 1);
      expect(served.a - before2.a).toBeGreaterThanOrEqual(1);
      expect(served.b - before2.b).toBeGreaterThanOrEqual(1);
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

  it("a 2026-07-28 retry landing on another replica than the one holding its parked run resumes it there: the write runs once", async () => {
    const caps = { elicitation: { form: {} } };
    const viaA = await connectHttp(a.url, { revision: "2026-07-28", capabilities: caps });
    const viaB = await connectHttp(b.url, { revision: "2026-07-28", capabilities: caps });
    try {
      await waitFor(async () => ((await viaA.call("search_tools", { query: "add record", limit: 5 })).structuredContent as { total?: number } | undefined)?.total !== 0, "w listed");
      const before = records().length;
      const first = (await parkOn(viaA)) as { resultType: string; requestState: string };
      expect(first.resultType).toBe("input_required");
      const done = await retryOn(viaB, first.requestState);
      expect(programValue(done)).toEqual({ recorded: before + 1 });
      expect(records()).toHaveLength(before + 1);
      // Used once, wherever it lands: the same state again finds nothing, and nothing runs twice.
      expect((await retryOn(viaA, first.requestState)).structuredContent.error.code).toBe("not_found");
      expect((await retryOn(viaB, first.requestState)).structuredContent.error.code).toBe("not_found");
      expect(records()).toHaveLength(before + 1);
    } finally {
      await Promise.all([viaA.close(), viaB.close()]);
    }
  }, 60_000);

  it("a retry for a run whose replica is gone answers unavailable, not retryable, at once; nothing runs", async () => {
    const c = await startHttpAtrium({ config });
    await waitFor(async () => (await fetch(`${c.base}/readyz`)).status === 200, "the third replica ready");
    const caps = { elicitation: { form: {} } };
    const viaC = await connectHttp(c.url, { revision: "2026-07-28", capabilities: caps });
    const viaB = await connectHttp(b.url, { revision: "2026-07-28", capabilities: caps });
    try {
      await waitFor(async () => ((await viaC.call("search_tools", { query: "add record", limit: 5 })).structuredContent as { total?: number } | undefined)?.total !== 0, "w listed on the third replica");
      const before = records().length;
      const parked = (await parkOn(viaC)) as { requestState: string };
      await viaC.close();
      await c.stop("SIGKILL");
      const r = await retryOn(viaB, parked.requestState);
      expect(r.isError).toBe(true);
      expect(r.structuredContent.error).toMatchObject({ code: "unavailable", retryable: false });
      expect(records()).toHaveLength(before);
    } finally {
      await viaB.close();
      await c.stop("SIGKILL");
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

  it("a store restarted empty ends the 2025-11-25 sessions it held on every replica alike (404: the host opens a new one); new sessions are served and no replica crashes", async () => {
    const c = await connectHttp(a.url, { revision: "2025-11-25" });
    const session = c.transport.sessionId!;
    expect(session).toBeTruthy();
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
    await redis.restart();
    for (const r of [a, b]) await waitFor(async () => (await fetch(`${r.base}/readyz`)).status === 200, "ready again after the restart");
    const onSession = (r: HttpAtrium) => fetch(r.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    for (const r of [a, b]) expect((await onSession(r)).status).toBe(404);
    await c.close();
    const fresh = await connectHttp(b.url, { revision: "2025-11-25" });
    try {
      expect((await fresh.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await fresh.close();
    }
    expect(a.proc.exitCode).toBeNull();
    expect(b.proc.exitCode).toBeNull();
  }, 60_000);
});
