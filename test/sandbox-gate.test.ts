// The sandbox worker's gate, seen from the pool: with the run's limits in the job, a host call the
// bridge would refuse never crosses to the main thread. The host here counts what reaches it and
// answers every call with a fixed value, so each assertion is about what crossed.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { SandboxPool } from "../glue/sandbox/pool.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../glue/support/paths.js";
import type { HostCall, RunLimits, RunOutcome } from "../glue/sandbox/protocol.js";
import { jsonDepth } from "../glue/sandbox/json-depth.js";

const LIMITS: RunLimits = { cpuMs: 2000, heapBytes: 67_108_864, stackBytes: 1_048_576, logChars: 4000, emitBytes: 4_000_000, emitBlocks: 32, hostCalls: 20, batchCalls: 10, callPayloadBytes: 65_536, returnChars: 24_000 };

let pool: SandboxPool;
beforeAll(async () => {
  pool = new SandboxPool({ size: 1, queue: 4, heapBytes: LIMITS.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath });
  await pool.warm();
});
afterAll(async () => { await pool?.close(); });

/** Runs a program; returns its outcome and every host call that reached the main thread. */
async function run(code: string): Promise<{ outcome: RunOutcome; crossed: HostCall[]; value: any }> {
  const crossed: HostCall[] = [];
  const outcome = (await pool.run({ code, aliases: [], catalogVersion: 1, catalog: {}, limits: LIMITS }, {
    wallMs: 20_000,
    onHostCall: async (call) => { crossed.push(call); return { ok: true, json: call.op === "batch" ? JSON.stringify((JSON.parse(call.json).items as unknown[]).map(() => ({ ok: true, data: 1 }))) : "1" }; },
  })) as RunOutcome;
  return { outcome, crossed, value: outcome.ok && outcome.json !== undefined ? JSON.parse(outcome.json) : undefined };
}
const tally = `((r) => { const c = {}; for (const x of r) c[x] = (c[x] || 0) + 1; return c; })`;

describe("the worker refuses what the bridge would refuse, before it crosses", () => {
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

  it("a batch over batch_calls, or larger than the host calls left, is refused as a whole and never crosses", async () => {
    const { value, crossed } = await run(`async () => {
      const items = (n) => Array.from({ length: n }, () => ({ address: "x.y", args: {} }));
      const out = [];
      try { await atrium.batch(items(11)); } catch (e) { out.push(e.details.budget); }
      for (let i = 0; i < 15; i++) await atrium.call("x.y", {});
      try { await atrium.batch(items(6)); } catch (e) { out.push(e.details.budget, e.details.room); }
      out.push((await atrium.batch(items(5))).length);
      return out;
    }`);
    expect(value).toEqual(["batch_calls", "host_calls", 5, 5]);
    expect(crossed.map((c) => c.op)).toEqual([...Array(15).fill("call"), "batch"]);
  });

  it("past host_calls every call is refused in the worker: a flood of 300,000 unawaited searches crosses host_calls times", async () => {
    const { outcome, crossed } = await run(`async () => { for (let i = 0; i < 300000; i++) atrium.search("x"); return "flooded"; }`);
    expect(crossed).toHaveLength(LIMITS.hostCalls!);
    // The program may run out of memory holding 300,000 rejected promises; either way it is a
    // verdict of the sandbox, never an engine message from the host side.
    if (outcome.ok) expect(JSON.parse(outcome.json!)).toBe("flooded");
    else expect(outcome.stopped).toMatch(/^(memory|cpu)$/);
  });

  it("the refusals are typed budget_exceeded naming host_calls, and the calls admitted return", async () => {
    const { value, crossed } = await run(`async () => ${tally}(await Promise.all(Array.from({ length: 50000 }, () => atrium.search("x").then(() => "ran", (e) => e.code + ":" + e.details.budget))))`);
    expect(value).toEqual({ ran: LIMITS.hostCalls, "budget_exceeded:host_calls": 50000 - LIMITS.hostCalls! });
    expect(crossed).toHaveLength(LIMITS.hostCalls!);
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
