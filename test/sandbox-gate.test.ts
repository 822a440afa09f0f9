// The host-call protocol seen from the pool. The worker bounds each request's size and shape before
// it is read out of the guest, so an oversized one never crosses; it counts nothing. Counting is the
// main thread's (bridge.ts), done before the payload is parsed. The worker-side tests answer with a
// host that counts what reaches it and answers a fixed value; the counting tests put the real
// bridge behind the pool, over a one-tool catalog whose tool answers 1.
import { describe, it, expect, beforeAll, afterAll, vi } from "vitest";
import { SandboxPool, type HostSide } from "../glue/sandbox/pool.js";
import { RunBridge } from "../glue/sandbox/bridge.js";
import { fakeDownstream } from "./harness/fake-downstream.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../glue/support/paths.js";
import type { RunLimits, RunOutcome } from "../glue/sandbox/protocol.js";
import type { HostCall } from "../glue/sandbox/host-ops.js";
import { jsonDepth } from "../glue/support/json-depth.js";
import { core } from "../glue/decisions/core.js";
import { HOST_CALL_REFUSALS_MAX } from "../glue/decisions/generated/spec.js";
import { buildSearchIndex } from "../glue/catalog/search-index.js";
import type { Catalog } from "../glue/catalog/catalog.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";

const LIMITS: RunLimits = { cpuMs: 2000, heapBytes: 67_108_864, stackBytes: 1_048_576, logChars: 4000, emitBytes: 4_000_000, callPayloadBytes: 65_536, returnChars: 24_000 };
const COUNTED = { hostCalls: 20, batchCalls: 10, callPayloadBytes: 65_536, emitBytes: 4_000_000, emitBlocks: 32 };

let pool: SandboxPool;
beforeAll(async () => {
  pool = new SandboxPool({ size: 1, queue: 4, heapBytes: LIMITS.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath });
  await pool.warm();
});
afterAll(async () => { await pool?.close(); });

/** A host that counts nothing: every call that reaches it is answered 1 (a batch, 1 per item). */
const fixedHost = (crossed: HostCall[]): HostSide => ({
  answer: (call) => {
    crossed.push(call);
    return { ok: true, json: call.op === "batch" ? JSON.stringify((JSON.parse(call.json).items as unknown[]).map(() => ({ ok: true, data: 1 }))) : "1" };
  },
});

/** One read-only tool, x.y, whose every call answers 1; `ran` counts the calls that reached it. */
function oneToolCatalog() {
  const entry: CatalogEntry = { address: "x.y", connectorId: "x", name: "y", description: "answers one", inputSchema: {}, safety: "read_only", reason: "annotated_read_only", maxResultBytes: 65_536, appVisibility: 0, appWrites: false };
  const counts = { ran: 0 };
  const downstream = fakeDownstream(async () => { counts.ran++; return { content: [{ type: "text", text: "1" }] }; });
  const catalog = { viewOf: () => undefined, resolve: () => ({ entry }), locate: () => ({ resolve: () => ({ entry }) }), index: () => buildSearchIndex([entry]), missing: () => [], starting: () => [], connectorIds: () => ["x"], classOf: () => "read_only" } as unknown as Catalog;
  return { catalog, downstream, counts };
}

/** Runs a program; returns its outcome, its value, and every host call that reached the main thread. */
async function run(code: string, host?: (crossed: HostCall[]) => HostSide): Promise<{ outcome: RunOutcome; crossed: HostCall[]; value: any }> {
  const crossed: HostCall[] = [];
  const outcome = (await pool.run({ code, aliases: [], limits: LIMITS }, { wallMs: 20_000, host: (host ?? fixedHost)(crossed), principal: LOCAL_PRINCIPAL.id })) as RunOutcome;
  return { outcome, crossed, value: outcome.ok && outcome.json !== undefined ? JSON.parse(outcome.json) : undefined };
}

/** The real bridge behind the pool, with what crossed, what reached the tool, and each payload the main thread parsed. */
async function runCounted(code: string) {
  const { catalog, downstream, counts } = oneToolCatalog();
  const bridge = new RunBridge({ core: core(), catalog, downstream, principal: LOCAL_PRINCIPAL }, COUNTED);
  const parsed: string[] = [];
  const parse = JSON.parse;
  const spy = vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: any) => (parsed.push(text), parse(text, reviver)));
  try {
    const r = await run(code, (crossed) => ({ answer: (call, scope) => (crossed.push(call), bridge.answer(call, scope)) }));
    // Each parse of a payload that crossed, as the call it belonged to (calls with one text share one).
    const byJson = new Map(r.crossed.map((c) => [c.json, c]));
    return { ...r, ran: counts.ran, parsed: parsed.filter((t) => byJson.has(t)).map((t) => byJson.get(t)!), bridge };
  } finally {
    spy.mockRestore();
  }
}
const tally = `((r) => { const c = {}; for (const x of r) c[x] = (c[x] || 0) + 1; return c; })`;

describe("the worker bounds each request before it crosses, and counts nothing", () => {
  it("a call whose payload is over call_payload_bytes is refused typed and never crosses", async () => {
    const { value, crossed } = await run(`async () => { try { await atrium.call("x.y", { s: "a".repeat(70000) }); return "ran"; } catch (e) { return [e.code, e.details.budget]; } }`);
    expect(value).toEqual(["budget_exceeded", "call_payload_bytes"]);
    expect(crossed).toEqual([]);
  });

  it("a payload measured in UTF-8 bytes: 40,000 three-byte characters are over 65,536 bytes", async () => {
    const { value, crossed } = await run(`async () => { try { await atrium.call("x.y", { s: "€".repeat(40000) }); return "ran"; } catch (e) { return e.details.budget; } }`);
    expect(value).toBe("call_payload_bytes");
    expect(crossed).toEqual([]);
  });

  it("the worker counts no budget: with a host that spends nothing, every one of 50 calls crosses (host_calls is the main thread's)", async () => {
    const { value, crossed } = await run(`async () => { let n = 0; for (let i = 0; i < 50; i++) { await atrium.call("x.y", {}); n++; } return n; }`);
    expect(value).toBe(50);
    expect(crossed).toHaveLength(50);
  });

  it("an emit or a view larger than all of emit_bytes crosses as its size alone; the main thread words the refusal", async () => {
    const big = LIMITS.emitBytes + 1;
    const { crossed } = await run(`async () => { try { atrium.emit({ type: "text", text: "x".repeat(${big}) }); } catch (e) {} try { atrium.ui("y".repeat(${big})); } catch (e) {} return 1; }`);
    expect(crossed.map((c) => [c.op, c.json, c.chars > LIMITS.emitBytes])).toEqual([["emit", "", true], ["ui", "", true]]);
  });
});

describe("budgets are counted once, on the main thread, before the payload is parsed", () => {
  it("host_calls is counted once: 20 calls are answered, the 21st is refused with room 0, and the run spent 20", async () => {
    const { value, ran, bridge } = await runCounted(`async () => {
      let ok = 0;
      for (let i = 0; i < 25; i++) { try { await atrium.call("x.y", {}); ok++; } catch (e) { return [ok, e.code, e.details.budget, e.details.used, e.details.room]; } }
      return [ok];
    }`);
    expect(value).toEqual([COUNTED.hostCalls, "budget_exceeded", "host_calls", COUNTED.hostCalls, 0]);
    expect(ran).toBe(COUNTED.hostCalls);
    expect(bridge.hostCalls).toBe(COUNTED.hostCalls);
  });

  it("a batch over batch_calls, or larger than the host calls left, is refused as a whole before it is parsed, and none of it runs", async () => {
    const { value, crossed, parsed, ran } = await runCounted(`async () => {
      const items = (n) => Array.from({ length: n }, () => ({ address: "x.y", args: {} }));
      const out = [];
      try { await atrium.batch(items(11)); } catch (e) { out.push(e.details.budget); }
      for (let i = 0; i < 15; i++) await atrium.call("x.y", {});
      try { await atrium.batch(items(6)); } catch (e) { out.push(e.details.budget, e.details.room); }
      out.push((await atrium.batch(items(5))).length);
      return out;
    }`);
    expect(value).toEqual(["batch_calls", "host_calls", 5, 5]);
    expect(crossed.map((c) => [c.op, c.calls])).toEqual([["batch", 11], ...Array(15).fill(["call", 1]), ["batch", 6], ["batch", 5]]);
    expect(parsed.map((c) => [c.op, c.calls])).toEqual([...Array(15).fill(["call", 1]), ["batch", 5]]);
    expect(ran).toBe(20);
  });

  it("a batch whose proxy answers a different length at each read spends exactly the items that run", async () => {
    const { value, ran, bridge } = await runCounted(`async () => {
      const items = Array.from({ length: 10 }, () => ({ address: "x.y", args: {} }));
      let reads = 0;
      const lying = new Proxy(items, { get: (t, k) => (k === "length" ? (reads++ === 0 ? 3 : 10) : t[k]) });
      return (await atrium.batch(lying)).length;
    }`);
    expect(value).toBe(ran);
    expect(bridge.hostCalls).toBe(ran);
  });

  it("past host_calls a flood of 300,000 unawaited searches crosses host_calls + 1 times, and ends in the prelude's typed refusal naming HOST_CALL_REFUSALS_MAX", async () => {
    const { outcome, crossed, parsed } = await runCounted(`async () => { for (let i = 0; i < 300000; i++) atrium.search("x"); return "flooded"; }`);
    expect(crossed).toHaveLength(COUNTED.hostCalls + 1);
    expect(parsed).toHaveLength(COUNTED.hostCalls);
    expect(outcome.ok).toBe(false);
    expect(outcome.stopped).toBeUndefined();
    expect(outcome.error).toMatchObject({ host: true, body: { code: "budget_exceeded", details: { bound: "HOST_CALL_REFUSALS_MAX" } } });
  });

  it("the refusals are typed budget_exceeded naming host_calls, and the calls admitted return", async () => {
    const n = COUNTED.hostCalls + HOST_CALL_REFUSALS_MAX;
    const { value, crossed } = await runCounted(`async () => ${tally}(await Promise.all(Array.from({ length: ${n} }, () => atrium.search("x").then(() => "ran", (e) => e.code + ":" + e.details.budget))))`);
    expect(value).toEqual({ ran: COUNTED.hostCalls, "budget_exceeded:host_calls": HOST_CALL_REFUSALS_MAX });
    expect(crossed).toHaveLength(COUNTED.hostCalls + 1);
  });
});

describe("nesting", () => {
  it("arguments nested deeper than request_depth never cross; at the bound they do", async () => {
    const { value, crossed } = await run(`async () => {
      const nest = (n) => { let o = 1; for (let i = 0; i < n; i++) o = [o]; return o; };
      const out = [];
      for (const n of [64, 65, 5000]) { try { await atrium.call("x.y", { o: nest(n - 1) }); out.push("crossed"); } catch (e) { out.push(e.details.budget + ":" + e.details.requested); } }
      return out;
    }`);
    expect(value).toEqual(["crossed", "request_depth:65", "request_depth:5000"]);
    expect(crossed).toHaveLength(1);
  });

  it("jsonDepth counts brackets outside strings, escapes included", () => {
    expect(jsonDepth("1")).toBe(0);
    expect(jsonDepth("[[1],{\"a\":{}}]")).toBe(3);
    expect(jsonDepth(JSON.stringify({ s: "[[[[\"{{{", t: ["\\"] }))).toBe(2);
    expect(jsonDepth("[".repeat(5000) + "]".repeat(5000))).toBe(5000);
  });
});
