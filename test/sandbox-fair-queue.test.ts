// The pool's wait queue takes principals in turn: with one real sandbox worker held by a run whose
// host call the test answers, runs queued by several principals start in round-robin order by
// principal, first come first served within one. Proved by the order the runs reach their host
// call (each run's first act), released one run at a time; nothing here is about time.
import { describe, it, expect, beforeEach, afterEach } from "vitest";
import { SandboxPool, type HostSide } from "../glue/sandbox/pool.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../glue/support/paths.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";
import type { RunLimits, RunOutcome } from "../glue/sandbox/protocol.js";
import type { Reply } from "../glue/sandbox/host-ops.js";

const LIMITS: RunLimits = { cpuMs: 2000, heapBytes: 67_108_864, stackBytes: 1_048_576, logChars: 4000, emitBytes: 4_000_000, callPayloadBytes: 65_536, returnChars: 24_000 };
const QUEUE = 8;

// A pool per test: a test that fails leaves runs waiting on their gates, and the next test must not queue behind them.
let pool: SandboxPool;
beforeEach(async () => {
  pool = new SandboxPool({ size: 1, queue: QUEUE, heapBytes: LIMITS.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath });
  await pool.warm();
});
afterEach(async () => { await pool?.close(); });

/** Runs whose one host call waits for the test: the labels in the order their runs started, and the gate of each. */
function gated() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  let woken: (() => void) | undefined;
  const host = (label: string): HostSide => ({
    answer: () => {
      started.push(label);
      woken?.();
      return new Promise<Reply>((resolve) => gates.set(label, () => resolve({ ok: true, json: JSON.stringify(label) })));
    },
  });
  /** Queues (or starts) a run of `principal` labelled `label`; resolves to the value it returned. */
  const run = (principal: string, label: string) =>
    pool.run({ code: `async () => await atrium.call("x.y", {})`, aliases: [], limits: LIMITS }, { wallMs: 60_000, host: host(label), principal })
      .then((o) => ((o as RunOutcome).ok ? JSON.parse((o as RunOutcome).json!) : o));
  /** Resolves once `n` runs have started. */
  const startedCount = async (n: number) => {
    while (started.length < n) await new Promise<void>((r) => (woken = r));
  };
  /** Lets the run that holds the worker finish, then waits for the next queued run to start; its label. */
  const releaseAndNext = async () => {
    const n = started.length;
    gates.get(started[n - 1]!)!();
    await startedCount(n + 1);
    return started[n]!;
  };
  return { run, started, startedCount, releaseAndNext, release: (label: string) => gates.get(label)!() };
}

describe("runs waiting for a worker are taken round-robin by principal", () => {
  it("A holds the worker and queues 4 more, then B queues 1: B's run starts second, before A's remaining three", async () => {
    const g = gated();
    const holder = g.run("A", "A0");
    await g.startedCount(1);
    const queued = [1, 2, 3, 4].map((i) => g.run("A", `A${i}`));
    const b = g.run("B", "B1");
    const order = [];
    for (let i = 0; i < 5; i++) order.push(await g.releaseAndNext());
    // FIFO would be A1, A2, A3, A4, B1: B behind all of A's burst.
    expect(order).toEqual(["A1", "B1", "A2", "A3", "A4"]);
    g.release("A4");
    expect(await Promise.all([holder, ...queued, b])).toEqual(["A0", "A1", "A2", "A3", "A4", "B1"]);
  });

  it("three principals: each waiting principal gets one run per turn, in the order it first queued, FIFO within its own", async () => {
    const g = gated();
    const holder = g.run("X", "X0");
    await g.startedCount(1);
    const queued = [g.run("A", "A1"), g.run("A", "A2"), g.run("A", "A3"), g.run("C", "C1"), g.run("C", "C2"), g.run("B", "B1"), g.run("A", "A4")];
    const order = [];
    for (let i = 0; i < queued.length; i++) order.push(await g.releaseAndNext());
    expect(order).toEqual(["A1", "C1", "B1", "A2", "C2", "A3", "A4"]);
    g.release("A4");
    await Promise.all([holder, ...queued]);
  });

  it("one principal (local, as on stdio) is served first come first served, as before", async () => {
    const g = gated();
    const me = LOCAL_PRINCIPAL.id;
    const holder = g.run(me, "0");
    await g.startedCount(1);
    const queued = ["1", "2", "3", "4", "5"].map((l) => g.run(me, l));
    const order = [];
    for (let i = 0; i < queued.length; i++) order.push(await g.releaseAndNext());
    expect(order).toEqual(["1", "2", "3", "4", "5"]);
    g.release("5");
    await Promise.all([holder, ...queued]);
  });

  it("the queue bound is the total over principals: with A's and B's runs filling it, C's is refused executor_overloaded and A's still run", async () => {
    const g = gated();
    const holder = g.run("A", "A0");
    await g.startedCount(1);
    const queued = Array.from({ length: QUEUE }, (_, i) => (i % 2 === 0 ? g.run("A", `A${i + 1}`) : g.run("B", `B${i + 1}`)));
    await expect(g.run("C", "C1")).rejects.toMatchObject({ code: "executor_overloaded" });
    for (let i = 0; i < QUEUE; i++) await g.releaseAndNext();
    g.release(g.started.at(-1)!);
    await Promise.all([holder, ...queued]);
    expect(g.started).not.toContain("C1");
  });
});
