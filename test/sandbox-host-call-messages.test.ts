// How many thread messages one host call takes between a sandbox worker and the main thread
// (glue/sandbox/worker.ts, pool.ts): a search, describe, call or batch that the run's host_calls
// could still grant is one request and one answer (its HostResult), with no answer at the call;
// atrium.ui and atrium.emit, and a call past what host_calls could grant, are answered at the call
// (the worker waits), so a refusal still comes back where the call was made. The messages are
// counted where the main thread sends them: the worker's port (a HostResult) and the channel the
// worker waits on (an answer at the call).
import { describe, it, expect, beforeAll, afterAll, afterEach, vi } from "vitest";
import { MessagePort, Worker } from "node:worker_threads";
import { SandboxPool, type HostSide } from "../glue/sandbox/pool.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../glue/support/paths.js";
import type { RunLimits, RunOutcome } from "../glue/sandbox/protocol.js";
import type { HostCall } from "../glue/sandbox/host-ops.js";

const HOST_CALLS = 5;
const LIMITS: RunLimits = { cpuMs: 2000, heapBytes: 67_108_864, stackBytes: 1_048_576, logChars: 4000, emitBytes: 4_000_000, hostCalls: HOST_CALLS };

let pool: SandboxPool;
beforeAll(async () => {
  pool = new SandboxPool({ size: 1, queue: 4, heapBytes: LIMITS.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath });
  await pool.warm();
});
afterAll(async () => { await pool?.close(); });
afterEach(() => { vi.restoreAllMocks(); });

/** A host that answers as the bridge does: an emit at once, every other call later (a promise), and refuses at once any call past `room`. */
const host = (crossed: HostCall[], room = Infinity): HostSide => ({
  answer: (call) => {
    crossed.push(call);
    if (call.op === "emit") return { ok: true, json: "null" };
    if (crossed.length > room) return { ok: false, json: JSON.stringify({ code: "budget_exceeded", message: "no host calls left", retryable: false }) };
    return Promise.resolve({ ok: true, json: call.op === "batch" ? "[]" : "1" });
  },
});

/** Runs a program; what crossed to the main thread, and what the main thread sent back: HostResults on the worker's port, answers at the call. */
async function run(code: string, room?: number) {
  const crossed: HostCall[] = [];
  const results = vi.spyOn(Worker.prototype, "postMessage");
  const atTheCall = vi.spyOn(MessagePort.prototype, "postMessage");
  const outcome = (await pool.run({ code, aliases: [], limits: LIMITS }, { wallMs: 20_000, host: host(crossed, room), principal: LOCAL_PRINCIPAL.id })) as RunOutcome;
  const hostResults = results.mock.calls.filter(([m]) => (m as { type?: string }).type === "hostResult").length;
  const answersAtTheCall = atTheCall.mock.calls.filter(([m]) => typeof m === "object" && m !== null && ("ok" in m || "pending" in m)).length;
  return { value: outcome.ok ? JSON.parse(outcome.json!) : outcome.error, crossed, hostResults, answersAtTheCall };
}

describe("one request and one answer per host call", () => {
  it("three calls within host_calls: three requests, three HostResults, no answer at the call", async () => {
    const r = await run(`async () => [await atrium.call("x.y", {}), await atrium.call("x.y", {}), await atrium.search("x")]`);
    expect(r.value).toEqual([1, 1, 1]);
    expect(r.crossed.map((c) => [c.op, c.now])).toEqual([["call", false], ["call", false], ["search", false]]);
    expect(r.hostResults).toBe(3);
    expect(r.answersAtTheCall).toBe(0);
  });

  it("a batch counts its items against what host_calls could grant: one of 5 items is one request and one answer", async () => {
    const r = await run(`async () => (await atrium.batch(Array.from({ length: ${HOST_CALLS} }, () => ({ address: "x.y", args: {} })))).length`);
    expect(r.crossed.map((c) => [c.op, c.calls, c.now])).toEqual([["batch", HOST_CALLS, false]]);
    expect([r.hostResults, r.answersAtTheCall]).toEqual([1, 0]);
  });

  it("atrium.emit is answered at the call: one request, one answer, no HostResult", async () => {
    const r = await run(`async () => { atrium.emit({ type: "text", text: "hi" }); return 1; }`);
    expect(r.crossed.map((c) => [c.op, c.now])).toEqual([["emit", true]]);
    expect([r.hostResults, r.answersAtTheCall]).toEqual([0, 1]);
  });

  it("a call past what host_calls could grant is answered at the call, so its refusal comes back where it was made", async () => {
    const r = await run(`async () => { const out = []; for (let i = 0; i < ${HOST_CALLS + 1}; i++) out.push(await atrium.call("x.y", {}).catch((e) => e.code)); return out; }`, HOST_CALLS);
    expect(r.value).toEqual([...Array(HOST_CALLS).fill(1), "budget_exceeded"]);
    expect(r.crossed.map((c) => c.now)).toEqual([...Array(HOST_CALLS).fill(false), true]);
    expect([r.hostResults, r.answersAtTheCall]).toEqual([HOST_CALLS, 1]);
  });
});
