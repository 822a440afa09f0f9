// A pool of warm sandbox workers. Each run gets a worker (or waits in a bounded queue), a
// host-side wall clock that includes host waits, and cancellation. A worker that overruns,
// breaks or asks to be recycled is terminated and replaced; the server never stalls on one.
// Each run has one lifetime (RunScope): whatever ends the run — its result, its wall clock, the
// request's cancellation, a worker crash — aborts the run's signal, and with it every host call
// the run still has in flight. The wall clock stops while the person is asked about a write
// (RunScope.pause): the time the question is open is added to the deadline. Runs waiting for a
// worker are taken in turn by principal (fair-queue.ts), so one principal's burst does not
// delay another's program behind all of it.
import { SANDBOX_WORKER_OLD_GENERATION_MB, SANDBOX_WORKER_STACK_MB } from "../decisions/generated/spec.js";
import { setMaxListeners } from "node:events";
import { AsyncResource } from "node:async_hooks";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { readFileSync } from "node:fs";
import { AtriumError } from "../support/errors.js";
import { FairQueue } from "./fair-queue.js";
import type { FromWorker, RunJob, RunOutcome, WorkerData } from "./protocol.js";
import type { Answer, HostCall, HostResult, Reply } from "./host-ops.js";

export interface PoolOptions {
  size: number; queue: number; heapBytes: number; workerPath: string; wasmPath: string;
  /** The workers start warming once this settles (serve: once initialize is answered); a run sent before waits for its worker like any run. */
  warmAfter?: Promise<unknown>;
}
export type Stopped = { stopped: "timeout" | "cancelled" | "crashed"; waitedMs: number };
/** One run's lifetime as its host calls see it. */
export interface RunScope {
  /** Aborted when the run ends, however it ends. */
  signal: AbortSignal;
  /** Milliseconds left on the run's wall clock (0 once it has run out). */
  msLeft(): number;
  /** Stops the run's wall clock while the person is asked about a write (spec/approvals.md P11);
   * the function returned starts it again (once; the clock runs when no pause is left open). */
  pause(): () => void;
}
/** The main thread's side of a run's host calls (bridge.ts): the reply at once, or its promise. */
export interface HostSide {
  answer(call: HostCall, run: RunScope): Reply | Promise<Reply>;
}
export interface RunHooks {
  host: HostSide;
  wallMs: number;
  signal?: AbortSignal;
  /** Whose run this is (Principal.id): while it waits for a worker, principals take turns. */
  principal: string;
}

/** A worker, and the channel it waits on for a host call's answer (a port, and a flag raised once the answer is on it). */
interface Slot { worker: Worker; answers: MessagePort; answered: Int32Array; ready: Promise<void>; isReady: boolean; busy: boolean }

export class SandboxPool {
  private slots: Slot[] = [];
  private waiting = new FairQueue<(slot: Slot) => void>();
  private runSeq = 0;
  private closed = false;

  private wasmModule?: WebAssembly.Module;
  private readonly allWarm: Promise<void>;

  constructor(private readonly opts: PoolOptions) {
    // Workers warm one after another: the first is ready sooner when it does not share the
    // cores with the others (and with the connectors starting beside it), so the first program
    // waits less; each later worker joins the pool the moment it is added.
    this.allWarm = (async () => {
      await opts.warmAfter?.catch(() => {});
      for (let i = 0; i < opts.size && !this.closed; i++) {
        const slot = this.spawn();
        this.slots.push(slot);
        slot.busy = true;
        this.release(slot);
        await slot.ready.catch(() => {});
      }
    })();
  }

  /** Resolves once every worker has its QuickJS module loaded. */
  async warm(): Promise<void> {
    await this.allWarm;
    await Promise.all(this.slots.map((s) => s.ready));
  }

  async run(job: Omit<RunJob, "type" | "runId">, hooks: RunHooks): Promise<(RunOutcome & { waitedMs: number }) | Stopped> {
    const queuedAt = performance.now();
    const slot = await this.acquire(hooks.principal);
    await slot.ready;
    const waitedMs = performance.now() - queuedAt;
    const runId = ++this.runSeq;
    const life = new AbortController();
    // Every downstream request of the run listens here; host_calls (enforced by the bridge) bounds them.
    setMaxListeners(0, life.signal);
    let deadline = performance.now() + hooks.wallMs;
    /** When the clock was stopped, while a question is open; the number of pauses open. */
    let pausedAt: number | undefined;
    let pauses = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const msLeft = () => Math.max(0, deadline - (pausedAt ?? performance.now()));
    return new Promise((resolve) => {
      let over = false;
      const pause = () => {
        if (pauses++ === 0) { pausedAt = performance.now(); clearTimeout(timer); }
        let resumed = false;
        return () => {
          if (resumed) return;
          resumed = true;
          if (--pauses > 0 || pausedAt === undefined) return;
          deadline += performance.now() - pausedAt;
          pausedAt = undefined;
          if (!over) timer = setTimeout(() => end({ stopped: "timeout", waitedMs }, true), msLeft());
        };
      };
      const scope: RunScope = { signal: life.signal, msLeft, pause };
      const end = (result: (RunOutcome & { waitedMs: number }) | Stopped, replace: boolean) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        hooks.signal?.removeEventListener("abort", onAbort);
        slot.worker.off("message", onMessage);
        slot.worker.off("exit", onExit);
        const why = "logs" in result ? (result.stopped ?? (result.ok ? "returned" : "failed")) : result.stopped;
        life.abort(new AtriumError("cancelled", `the program's run ended (${why}) with this call still in flight`));
        if (replace) this.replace(slot);
        else this.release(slot);
        resolve(result);
      };
      /** The answer the worker waits for, the moment the main thread has it. */
      const answerNow = (a: Answer) => {
        slot.answers.postMessage(a);
        Atomics.store(slot.answered, 0, 1);
        Atomics.notify(slot.answered, 0);
      };
      /** A call's one answer, unless the run is over. */
      const result = (callId: number, r: Reply) => {
        if (over) return;
        // A result that comes back once the wall clock has run out is not the program's to see:
        // the run is over (a call's deadline is the run's time left, so the two meet here).
        if (scope.msLeft() === 0) return end({ stopped: "timeout", waitedMs }, true);
        slot.worker.postMessage({ type: "hostResult", runId, callId, reply: r } satisfies HostResult);
      };
      // The run's async context, captured once: its host calls carry the context the run was started
      // in (a trace's run span). runInAsyncScope, not bind() or AsyncLocalStorage.snapshot() (which
      // binds): binding defines a deprecated getter on each bound function.
      const inRun = new AsyncResource("atrium.run");
      const onMessage = (m: FromWorker) => inRun.runInAsyncScope(fromWorker, undefined, m);
      const fromWorker = (m: FromWorker) => {
        if (m.type === "host" && m.runId === runId) {
          let reply: Reply | Promise<Reply>;
          try { reply = hooks.host.answer(m, scope); } catch { reply = { ok: false, json: JSON.stringify(new AtriumError("unavailable", "the host could not take this call; try again").toJSON()) }; }
          if (!(reply instanceof Promise)) return m.now ? answerNow(reply) : result(m.callId, reply);
          if (m.now) answerNow({ pending: true });
          void reply.then((r) => result(m.callId, r));
        } else if (m.type === "done" && m.runId === runId) end({ ...m.outcome, waitedMs }, m.outcome.recycle);
      };
      const onExit = () => end({ stopped: "crashed", waitedMs }, true);
      const onAbort = () => end({ stopped: "cancelled", waitedMs }, true);
      timer = setTimeout(() => end({ stopped: "timeout", waitedMs }, true), hooks.wallMs);
      slot.worker.on("message", onMessage);
      slot.worker.on("exit", onExit);
      if (hooks.signal?.aborted) return onAbort();
      hooks.signal?.addEventListener("abort", onAbort);
      slot.worker.postMessage({ type: "run", runId, ...job } satisfies RunJob);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const { port1: answers, port2 } = new MessageChannel();
    const wake = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    // Compiled once, before the first worker, and shared with every worker (a Module is cloneable across threads).
    this.wasmModule ??= new WebAssembly.Module(readFileSync(this.opts.wasmPath));
    const workerData: WorkerData = { heapBytes: this.opts.heapBytes, wasmModule: this.wasmModule, wake, answers: port2 };
    const worker = new Worker(this.opts.workerPath, { workerData, transferList: [port2], resourceLimits: { stackSizeMb: SANDBOX_WORKER_STACK_MB, maxOldGenerationSizeMb: SANDBOX_WORKER_OLD_GENERATION_MB } });
    worker.unref();
    answers.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onReady = (m: FromWorker) => { if (m.type === "ready") { worker.off("message", onReady); slot.isReady = true; resolve(); } };
      worker.on("message", onReady);
      worker.once("error", reject);
    });
    ready.catch(() => {});
    const slot: Slot = { worker, answers, answered: new Int32Array(wake), ready, isReady: false, busy: false };
    worker.on("error", () => { if (!slot.busy && !this.closed) this.replace(slot); });
    return slot;
  }

  private acquire(principal: string): Promise<Slot> {
    if (this.closed) return Promise.reject(new AtriumError("unavailable", "the sandbox pool is shut down"));
    // A warm worker first; a cold idle one only when no warm one is free.
    const idle = this.slots.find((s) => !s.busy && s.isReady) ?? this.slots.find((s) => !s.busy);
    if (idle) { idle.busy = true; return Promise.resolve(idle); }
    // The queue bound is the total over every principal; principal_programs already caps one principal's share.
    if (this.waiting.size >= this.opts.queue) {
      return Promise.reject(new AtriumError("executor_overloaded", `all ${this.slots.length} sandboxes are busy and ${this.waiting.size} programs are waiting; try again shortly`));
    }
    return new Promise((resolve) => this.waiting.push(principal, resolve));
  }

  private release(slot: Slot): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else slot.busy = false;
  }

  private replace(slot: Slot): void {
    void slot.worker.terminate();
    slot.answers.close();
    if (this.closed) return;
    const fresh = this.spawn();
    this.slots[this.slots.indexOf(slot)] = fresh;
    fresh.busy = slot.busy;
    if (slot.busy) this.release(fresh);
  }
}
