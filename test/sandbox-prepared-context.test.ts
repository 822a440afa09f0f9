// A sandbox worker makes its next run's runtime and context while it is idle (glue/sandbox/worker.ts:
// the prelude evaluated, nothing else run in them); the job's own settings reach that context when
// the job starts. One worker, so each run takes the context made after the one before it: the
// connector globals, the text limits and the refusal past HOST_CALL_REFUSALS_MAX are each run's
// own, and nothing a program does reaches the context made after it.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { SandboxPool, type HostSide } from "../glue/sandbox/pool.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../glue/support/paths.js";
import type { AliasConnector, RunLimits, RunOutcome } from "../glue/sandbox/protocol.js";

const LIMITS: RunLimits = { cpuMs: 2000, heapBytes: 67_108_864, stackBytes: 1_048_576, logChars: 4000, emitBytes: 4_000_000 };
const host: HostSide = { answer: (call) => Promise.resolve({ ok: true, json: JSON.stringify(JSON.parse(call.json).address ?? null) }) };
const connector = (id: string): AliasConnector => ({ ident: id, connectorId: id, ambiguousWith: [], tools: [{ ident: "ping", address: `${id}.ping`, candidates: [] }] });

let pool: SandboxPool;
beforeAll(async () => {
  pool = new SandboxPool({ size: 1, queue: 4, heapBytes: LIMITS.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath });
  await pool.warm();
});
afterAll(async () => { await pool?.close(); });

async function run(code: string, aliases: AliasConnector[] = [], limits: Partial<RunLimits> = {}) {
  const outcome = (await pool.run({ code, aliases, limits: { ...LIMITS, ...limits } }, { wallMs: 20_000, host, principal: LOCAL_PRINCIPAL.id })) as RunOutcome;
  return { outcome, value: outcome.ok && outcome.jsonChars === undefined ? JSON.parse(outcome.json!) : undefined };
}

describe("each run's context is made before its job and given the job's own settings", () => {
  it("connector globals are the job's own: a run sees its connectors' globals, and none of the run before it", async () => {
    const probe = `async () => [typeof alpha, typeof beta, typeof alpha === "object" ? await alpha.ping({}) : null, typeof beta === "object" ? await beta.ping({}) : null]`;
    expect((await run(probe, [connector("alpha")])).value).toEqual(["object", "undefined", "alpha.ping", null]);
    expect((await run(probe, [connector("beta")])).value).toEqual(["undefined", "object", null, "beta.ping"]);
    expect((await run(probe)).value).toEqual(["undefined", "undefined", null, null]);
  });

  it("text limits are the job's own: log_chars and return_chars cut at each run's value", async () => {
    const code = `async () => { console.log("x".repeat(100)); return "y".repeat(100); }`;
    const short = await run(code, [], { logChars: 10, returnChars: 20 });
    expect(short.outcome.logsDropped).toBe(1);
    expect(short.outcome.jsonChars).toBeGreaterThan(20);
    const long = await run(code, [], { logChars: 4000, returnChars: 24_000 });
    expect([long.outcome.logsDropped, long.outcome.jsonChars, long.value]).toEqual([0, undefined, "y".repeat(100)]);
  });

  it("what a program leaves in its context (a global, a replaced intrinsic, a property on every object) is not in the next run's", async () => {
    const polluter = `async () => { globalThis.left = 1; Array.prototype.map = null; JSON.stringify = () => '"forged"'; Object.prototype.extra = 1; return "polluted"; }`;
    expect((await run(polluter, [connector("alpha")])).outcome.ok).toBe(true);
    const check = `async () => [typeof left, typeof [].map, JSON.stringify({ a: 1 }), ({}).extra === undefined, await alpha.ping({})]`;
    expect((await run(check, [connector("alpha")])).value).toEqual(["undefined", "function", '{"a":1}', true, "alpha.ping"]);
  });
});
