// Every argument a program hands the host is bounded before any work is done on it: a search
// query at search_query_chars, a call or batch payload at call_payload_bytes, a describe request
// at its small fixed size. A refusal is a typed error naming the budget. These bounds are the
// sandbox worker's alone (host-ops.ts), so nothing refused reaches the host: the run's diagnostics
// count only the calls that crossed. The same bounds on call and batch payloads are proven at the
// pool in sandbox-gate.test.ts, where the host counts what crosses.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { startAtrium, nodeServer, demoServer, type Atrium, programValue } from "./harness/atrium-client.js";
import { core } from "../glue/decisions/core.js";
import { Budget, HOST_CALL_REFUSALS_MAX } from "../glue/decisions/generated/spec.js";

const LIMITS = { programWallMs: 20_000, hostCalls: 20, batchCalls: 10, callPayloadBytes: 65_536, workers: 2 };
const QUERY = core().limitDefault(Budget.search_query_chars);

let a: Atrium;
type Result = CallToolResult & { structuredContent: any };
const run = async (code: string) => (await a.call("execute_code", { code, diagnostics: true })) as Result;
/** The operations that crossed to the main thread during the run. */
const crossed = (r: Result) => r.structuredContent.diagnostics.operations as Record<string, { count: number }>;

async function expectServes(): Promise<void> {
  expect((await a.call("execute_code", { code: "async () => 1 + 1" })).structuredContent).toEqual({ ok: true, value: 2 });
}

beforeAll(async () => {
  a = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer) }, atrium: { sandbox: LIMITS } } });
  await Promise.all([run("async () => (await desk.list_services({})).services.length"), run("async () => 1")]);
});
afterAll(async () => { await a?.close(); });

describe("search queries are bounded by search_query_chars on both paths", () => {
  it("20 searches with 900 kB queries are refused in the sandbox, typed, and a call_tool made meanwhile is answered", async () => {
    const program = run(`async () => {
      const q = "ab ".repeat(3e5);
      const out = await Promise.all(Array.from({ length: 20 }, () => atrium.search(q).then(() => "ran", (e) => [e.code, e.details.budget, e.details.limit, e.details.requested])));
      return out;
    }`);
    const direct = (await a.call("call_tool", { address: "desk.list_services", args: {} }, 10_000)) as Result;
    expect(direct.isError).toBeFalsy();
    const r = await program;
    expect(programValue(r)).toEqual(Array.from({ length: 20 }, () => ["budget_exceeded", "search_query_chars", QUERY, 9e5]));
    expect(crossed(r).search).toBeUndefined();
    expect(r.structuredContent.diagnostics.hostCalls).toBe(0);
    await expectServes();
  });

  it(`a query of exactly search_query_chars (${QUERY}) is searched; one more character is refused`, async () => {
    const v = programValue(await run(`async () => {
      const at = await atrium.search("incidents ".repeat(${QUERY}).slice(0, ${QUERY}));
      let over; try { await atrium.search("x".repeat(${QUERY + 1})); } catch (e) { over = e.code; }
      return { found: at.results.length > 0, over };
    }`));
    expect(v).toEqual({ found: true, over: "budget_exceeded" });
  });

  it("search_tools refuses a query over search_query_chars with a typed error naming the budget", async () => {
    const r = (await a.call("search_tools", { query: "x".repeat(QUERY + 1) })) as Result;
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error.code).toBe("invalid_args");
    expect(r.structuredContent.error.message).toContain("search_query_chars");
    const ok = (await a.call("search_tools", { query: "incidents ".repeat(QUERY).slice(0, QUERY) })) as Result;
    expect(ok.isError).toBeFalsy();
  });

  it("huge search options are refused in the sandbox as invalid_args", async () => {
    const r = await run(`async () => { try { await atrium.search("x", { connector: "c".repeat(1e6) }); return "ran"; } catch (e) { return e.code; } }`);
    expect(programValue(r)).toBe("invalid_args");
    expect(crossed(r).search).toBeUndefined();
  });
});

describe("call and batch payloads are bounded by call_payload_bytes in the sandbox", () => {
  it("a call whose payload is over call_payload_bytes is refused, typed, naming the budget, and never crosses", async () => {
    const r = await run(`async () => { try { await atrium.call("desk.get_incident", { id: "x".repeat(${LIMITS.callPayloadBytes}) }); return "ran"; } catch (e) { return { code: e.code, budget: e.details.budget, limit: e.details.limit }; } }`);
    expect(programValue(r)).toEqual({ code: "budget_exceeded", budget: "call_payload_bytes", limit: LIMITS.callPayloadBytes });
    expect(crossed(r).call).toBeUndefined();
  });

  it("a connector global with a 9 MB argument is refused the same way", async () => {
    const r = await run(`async () => { try { await desk.get_incident({ id: "x".repeat(9e6) }); return "ran"; } catch (e) { return e.details.budget; } }`);
    expect(programValue(r)).toBe("call_payload_bytes");
    await expectServes();
  });

  it("a batch whose payload is over call_payload_bytes is refused as a whole, and none of it crosses", async () => {
    const r = await run(`async () => { try { await atrium.batch([{ address: "desk.list_services", args: {} }, { address: "desk.get_incident", args: { id: "y".repeat(${LIMITS.callPayloadBytes}) } }]); return "ran"; } catch (e) { return e.details.budget; } }`);
    expect(programValue(r)).toBe("call_payload_bytes");
    expect(crossed(r).batch).toBeUndefined();
  });

  it("a payload just under the bound still crosses and reaches the tool", async () => {
    const v = programValue(await run(`async () => { try { await desk.get_incident({ id: "z".repeat(${LIMITS.callPayloadBytes - 200}) }); return "ran"; } catch (e) { return e.code; } }`));
    expect(v).not.toBe("budget_exceeded");
  });
});

describe("describe requests are small", () => {
  it("a describe of a huge address list is refused in the sandbox as invalid_args", async () => {
    const r = await run(`async () => { try { await atrium.describe(Array.from({ length: 1000 }, (_, i) => "desk.tool_" + "x".repeat(1000) + i)); return "ran"; } catch (e) { return e.code; } }`);
    expect(programValue(r)).toBe("invalid_args");
    expect(crossed(r).describe).toBeUndefined();
  });
});

describe("nesting is bounded by request_depth; floods meet host_calls", () => {
  const DEPTH = core().limitDefault(Budget.request_depth);

  it("a return value nested 5,000 deep is budget_exceeded naming request_depth, not a connector failure", async () => {
    const r = await run("async () => { let o = 1; for (let i = 0; i < 5000; i++) o = [o]; return o; }");
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "budget_exceeded", retryable: false, details: { budget: "request_depth", limit: DEPTH, requested: 5000 } });
    expect(r.structuredContent.error.message).toContain("return value");
    await expectServes();
  });

  it(`a return value nested exactly request_depth (${DEPTH}) deep comes back whole`, async () => {
    const v = programValue(await run(`async () => { let o = 1; for (let i = 0; i < ${DEPTH}; i++) o = [o]; return o; }`));
    expect(JSON.stringify(v)).toBe(`${"[".repeat(DEPTH)}1${"]".repeat(DEPTH)}`);
  });

  it("a deep value over return_chars is shown as a flat preview, not refused", async () => {
    const v = programValue(await run("async () => { let o = 'x'.repeat(30000); for (let i = 0; i < 5000; i++) o = [o]; return o; }"));
    expect(v).toMatchObject({ truncated: true });
  });

  it("arguments nested 5,000 deep are refused before they cross, naming request_depth", async () => {
    const r = await run(`async () => { let o = {}; for (let i = 0; i < 5000; i++) o = { o }; try { await desk.get_incident(o); return "ran"; } catch (e) { return [e.code, e.details.budget, e.details.requested]; } }`);
    expect(programValue(r)).toEqual(["budget_exceeded", "request_depth", 5001]); // {} wrapped 5,000 times
    expect(crossed(r).call).toBeUndefined();
  });

  it("a batch item whose args nest too deeply refuses the whole batch before it crosses", async () => {
    const r = await run(`async () => { let o = {}; for (let i = 0; i < ${DEPTH}; i++) o = { o }; try { await atrium.batch([{ address: "desk.list_services", args: {} }, { address: "desk.get_incident", args: o }]); return "ran"; } catch (e) { return [e.code, e.details.budget]; } }`);
    expect(programValue(r)).toEqual(["budget_exceeded", "request_depth"]);
    expect(crossed(r).batch).toBeUndefined();
  });

  it("a flood of 300,000 unawaited searches ends in a typed refusal naming HOST_CALL_REFUSALS_MAX; every caught refusal before it is typed, naming host_calls", async () => {
    const flood = await run(`async () => { for (let i = 0; i < 300000; i++) atrium.search("x"); return "flooded"; }`);
    expect(flood.structuredContent.error).toMatchObject({ code: "budget_exceeded", retryable: false, details: { bound: "HOST_CALL_REFUSALS_MAX" } });
    expect(flood.structuredContent.diagnostics.hostCalls).toBeLessThanOrEqual(LIMITS.hostCalls);
    const n = LIMITS.hostCalls + HOST_CALL_REFUSALS_MAX;
    const caught = programValue(await run(`async () => {
      const tally = {};
      await Promise.all(Array.from({ length: ${n} }, () => atrium.search("x").then(() => "ok", (e) => e.code + ":" + e.details.budget).then((k) => { tally[k] = (tally[k] || 0) + 1; })));
      return tally;
    }`));
    expect(caught).toEqual({ ok: LIMITS.hostCalls, "budget_exceeded:host_calls": HOST_CALL_REFUSALS_MAX });
    await expectServes();
  });
});
