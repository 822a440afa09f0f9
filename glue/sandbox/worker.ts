// A sandbox worker thread: owns one QuickJS module whose wasm memory is fixed at the heap cap,
// and runs one program at a time in a fresh runtime and context, with a CPU interrupt, a
// stack limit, a captured console, and host calls that go to the main thread. Guest code
// runs only inside guest(…), where the CPU interrupt reaches it; that includes reading a thrown
// value (a getter or toJSON may spin), which goes through the prelude's describe.
//
// The next run's runtime and context are made in the worker's idle time, once a run has ended:
// the prelude evaluated (most of what starting a run costs) and nothing else run in them. A
// job's own settings (its limits, its connector globals) are given to that context when the job
// starts, before its program is evaluated.
//
// A host call (the prelude's __host) is bounded here by its row of the host-op table before it is
// read out of the guest, then sent as one request, and answered once. A search, describe, call or
// batch that still fits what host_calls could grant the run (the calls this run has sent, each
// batch item one, within the budget: the main thread can refuse it for nothing but its own
// content) gets a promise at once and its one answer later, as a HostResult, whenever the call is
// done or refused. An op answered at once (atrium.ui, atrium.emit: they throw where they are
// called), and a call past what host_calls could grant (so a run past its budget learns it at the
// first refused call), wait here for the main thread's answer at the call; such a call the main
// thread takes anyway is answered "pending", then its HostResult. The wait is inside guest code,
// so it counts toward program_cpu_ms like the rest of the call (spec/README.md: wall time in guest code).
import { WASM_PAGE_BYTES } from "../support/wire.js";
import { SANDBOX_ALLOCATOR_RESERVE_BYTES } from "../decisions/generated/spec.js";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSContext, type QuickJSDeferredPromise, type QuickJSHandle, type QuickJSRuntime } from "quickjs-emscripten";
import { core } from "../decisions/core.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import { AtriumError } from "../support/errors.js";
import { PRELUDE, PRELUDE_FILE } from "./prelude.js";
import { PROGRAM_FILE, asBody, asExpression, furtherSyntaxError, located } from "./program-position.js";
import { workerLimits } from "./run-limits.js";
import { guestConfig } from "./guest-config.js";
import { HOST_OPS, WITHHELD, isHostOp, type Answer, type HostCall, type HostResult } from "./host-ops.js";
import type { FromWorker, GuestError, RunJob, RunOutcome, ToWorker, WorkerData } from "./protocol.js";

const port = parentPort!;
const PAGE = WASM_PAGE_BYTES;
const ALLOCATOR_RESERVE_BYTES = SANDBOX_ALLOCATOR_RESERVE_BYTES;
const { heapBytes, wasmModule, wake, answers } = workerData as WorkerData;
// The QuickJS wasm is compiled once by the pool and shared; each worker gets its own memory.
const mod = await newQuickJSWASMModuleFromVariant(
  newVariant(RELEASE_SYNC, { wasmModule, wasmMemory: new WebAssembly.Memory({ initial: Math.floor(heapBytes / PAGE), maximum: Math.floor(heapBytes / PAGE) }) }),
);
const post = (m: FromWorker) => port.postMessage(m);
let onHostResult: ((m: HostResult) => void) | undefined;

port.on("message", (m: ToWorker) => {
  if (m.type === "run") {
    void run(m).then((outcome) => {
      post({ type: "done", runId: m.runId, outcome });
      if (!outcome.recycle) prepareSoon();
    });
  } else onHostResult?.(m);
});

/** The flag the main thread raises once it has put its answer on `answers`. */
const answered = new Int32Array(wake);
/** Sends a host call and waits for the main thread's answer to it, at the call. */
function cross(call: HostCall): Answer {
  Atomics.store(answered, 0, 0);
  post(call);
  Atomics.wait(answered, 0, 0);
  const got = receiveMessageOnPort(answers);
  if (got === undefined) throw new Error("the main thread raised its answer flag with no answer");
  return got.message as Answer;
}

/** The natives a context was given, as the run it serves answers them (set when that run's job starts). */
interface Natives {
  host(op: QuickJSHandle, json: QuickJSHandle, measure: QuickJSHandle): QuickJSHandle;
  log(level: QuickJSHandle, text: QuickJSHandle): void;
}
/** A runtime and context with the prelude evaluated and nothing else run in them. The prelude's
 * value is { configure, run, describeThrown }: configure takes the job's settings; evaluating the
 * program yields only the thunk run calls, and the outcome is read natively from run's own promise, which
 * no program code can reach, resolve or replace (unlike a global wrapper or ctx.resolvePromise,
 * which looks up the guest's Promise.resolve and then). */
interface Prepared { rt: QuickJSRuntime; ctx: QuickJSContext; configure: QuickJSHandle; runFn: QuickJSHandle; describeFn: QuickJSHandle; natives: { serving?: Natives } }

function prepare(): Prepared {
  const rt = mod.newRuntime();
  const ctx = rt.newContext();
  try {
    const natives: { serving?: Natives } = {};
    const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined) => ctx.newFunction(name, fn).consume((f) => ctx.setProp(ctx.global, name, f));
    // Nothing calls them before the job starts: the prelude only keeps them.
    define("__host", (op, json, measure) => natives.serving!.host(op, json, measure));
    define("__log", (level, text) => { natives.serving!.log(level, text); return undefined; });
    const api = ctx.unwrapResult(ctx.evalCode(PRELUDE, PRELUDE_FILE));
    const configure = ctx.getProp(api, "configure"), runFn = ctx.getProp(api, "run"), describeFn = ctx.getProp(api, "describeThrown");
    api.dispose();
    return { rt, ctx, configure, runFn, describeFn, natives };
  } catch (e) {
    ctx.dispose();
    rt.dispose();
    throw e;
  }
}

/** The next run's context, once made; a run takes it, or makes its own when there is none. */
let prepared: Prepared | undefined;
let running = false;
/** Makes the next run's context once the event loop is idle, unless a run has started meanwhile. */
function prepareSoon(): void {
  setImmediate(() => {
    if (prepared || running) return;
    try { prepared = prepare(); } catch { /* the next run makes its own, and reports its failure */ }
  });
}

// Warm-up: one throwaway run pays for the first runtime, context, prelude and core load here,
// so the first real program is as fast as the tenth; then the first real run's context is made.
{
  const c = core();
  const d = (b: number) => c.limitDefault(b);
  await run({ type: "run", runId: 0, code: "async () => 1", aliases: [], limits: { cpuMs: d(Budget.program_cpu_ms), heapBytes, stackBytes: d(Budget.sandbox_stack_bytes), logChars: d(Budget.log_chars), emitBytes: d(Budget.emit_bytes) } });
  try { prepared = prepare(); } catch { /* the first run makes its own */ }
}
post({ type: "ready" });

/** A failure's typed JSON: an AtriumError as it is; anything else (a fault of the sandbox's own) never with the engine's own message. */
const errorJson = (e: unknown) => JSON.stringify((e instanceof AtriumError ? e : new AtriumError("unavailable", "the sandbox could not complete a host call; try again")).toJSON());

const plain = (message: string, name = "Error"): GuestError => ({ host: false, name, message });
/** QuickJS's own out-of-memory error, or the null it throws when it cannot build one (a program can throw either too, but then it is out of memory in effect). */
const isOutOfMemory = (e: GuestError) => !e.host && (e.thrownNull === true || (e.name === "InternalError" && /^out of memory/.test(e.message)));

async function run(job: RunJob): Promise<RunOutcome> {
  running = true;
  try {
    return await runIn(job);
  } finally {
    running = false;
  }
}

async function runIn(job: RunJob): Promise<RunOutcome> {
  const c = core();
  const limits = workerLimits(c, job.limits);
  let cpuMs = 0, segStart = 0, inGuest = false, cpuExceeded = false, recycle = false;
  const record = { logs: "", logsDropped: 0 };
  const guest = <T>(fn: () => T): T => {
    inGuest = true;
    segStart = performance.now();
    try { return fn(); } finally { cpuMs += performance.now() - segStart; inGuest = false; }
  };
  /** This run's runtime and context: the one made beforehand, else made now (inside the try below). */
  let made: Prepared | undefined;
  const pending = new Map<number, QuickJSDeferredPromise>();
  /** Handles this run holds; finish disposes whichever are still alive. */
  const held: QuickJSHandle[] = [];
  const hold = (h: QuickJSHandle) => (held.push(h), h);
  let callSeq = 0;
  /** Host calls this run has sent (each batch item one, a malformed batch one): while a call keeps
   * this within host_calls, the main thread cannot refuse it for the budget, so it need not wait. */
  let sent = 0;

  const finish = (partial: Partial<RunOutcome> & { ok: boolean }): RunOutcome => {
    for (const d of pending.values()) d.dispose();
    pending.clear();
    onHostResult = undefined;
    try {
      for (const h of held) if (h.alive) h.dispose();
      made?.ctx.dispose();
      made?.rt.dispose();
    } catch { recycle = true; }
    // A program's own error carries its position as the author wrote it.
    return { logs: record.logs, logsDropped: record.logsDropped, cpuMs, recycle, ...partial, ...(partial.error && { error: located(job.code, partial.error) }) };
  };
  const cpuStop = () => finish({ ok: false, stopped: "cpu", error: plain(`the program used more than ${limits.cpuMs} ms of CPU and was stopped (program_cpu_ms)`) });

  // Until the program is evaluated, a failure is the sandbox's own (never the program's memory).
  let preparing = true;
  try {
    made = prepared ?? prepare();
    prepared = undefined;
    const { rt, ctx, configure, runFn, describeFn } = made;
    held.push(configure, runFn, describeFn);
    // QuickJS's own limit sits a little under the fixed wasm memory, so its allocator reports a
    // clean, catchable out-of-memory quickly instead of grinding against the wasm ceiling.
    rt.setMemoryLimit(limits.heapBytes - ALLOCATOR_RESERVE_BYTES);
    rt.setMaxStackSize(limits.stackBytes);
    rt.setInterruptHandler(() => inGuest && (cpuExceeded ||= cpuMs + performance.now() - segStart > limits.cpuMs));
    /** A guest string's length, read without copying the string out of the guest. */
    const lengthOf = (h: QuickJSHandle) => (ctx.typeof(h) === "string" ? ctx.getProp(h, "length").consume((n) => ctx.getNumber(n)) : 0);

    /** The guest's promise of call `callId`'s answer, settled when its HostResult comes. */
    const promiseOf = (callId: number) => {
      const d = ctx.newPromise();
      pending.set(callId, d);
      return d.handle;
    };
    // host: (op, json, measure) → a promise of the reply, or a string: the typed error of a call
    // refused before it ran; for an op answered at once, "" when it was accepted.
    const host = (opH: QuickJSHandle, jsonH: QuickJSHandle, measureH: QuickJSHandle): QuickJSHandle => {
      try {
        const op = ctx.getString(opH);
        if (!isHostOp(op)) throw new AtriumError("invalid_args", "no such host operation");
        const rule = HOST_OPS[op];
        const chars = lengthOf(jsonH);
        const measure = ctx.typeof(measureH) === "number" ? ctx.getNumber(measureH) : -1;
        const withheld = rule.before(c, { chars, measure }, limits) === WITHHELD;
        const json = withheld ? "" : ctx.getString(jsonH);
        if (!withheld) rule.after?.(c, json, limits);
        const callId = ++callSeq;
        const calls = rule.calls(measure);
        const promised = rule.answer === "promise";
        if (promised) sent += Math.max(calls, 1);
        const call: HostCall = { type: "host", runId: job.runId, callId, op, json, chars, calls, now: !promised || sent > limits.hostCalls };
        if (!call.now) {
          post(call);
          return promiseOf(callId);
        }
        const answer = cross(call);
        if ("pending" in answer) return promiseOf(callId);
        if (!answer.ok) return ctx.newString(answer.json);
        if (!promised) return ctx.newString("");
        const d = ctx.newPromise();
        ctx.newString(answer.json).consume((h) => d.resolve(h));
        return d.handle;
      } catch (e) {
        return ctx.newString(errorJson(e));
      }
    };

    // The prelude cuts each line at log_chars + 1 characters before it gets here.
    const log = (levelH: QuickJSHandle, textH: QuickJSHandle): void => {
      const level = ctx.getString(levelH);
      const line = `${level === "log" || level === "info" ? "" : `[${level}] `}${ctx.getString(textH)}\n`;
      if (record.logsDropped > 0 || c.budgetCheck(Budget.log_chars, record.logs.length, line.length, limits.logChars) !== BudgetCheck.ok) {
        const room = limits.logChars - record.logs.length;
        if (record.logsDropped === 0 && room > 0) record.logs += line.slice(0, room);
        record.logsDropped++;
      } else record.logs += line;
    };
    made.natives.serving = { host, log };
    // The job's settings (its limits, its connector globals), before any of its code runs.
    ctx.newString(JSON.stringify(guestConfig(job.aliases, limits))).consume((cfg) => ctx.unwrapResult(ctx.callFunction(configure, ctx.undefined, cfg)).dispose());
    /** Reads a thrown value through the prelude, under the CPU budget. */
    const describe = (thrown: QuickJSHandle): GuestError => {
      const r = guest(() => ctx.callFunction(describeFn, ctx.undefined, thrown));
      if (r.error) { r.error.dispose(); return plain("the program failed with an error that could not be read"); }
      const report = ctx.getString(r.value);
      r.value.dispose();
      return JSON.parse(report) as GuestError;
    };

    preparing = false;
    // The program is one async arrow function; a bare body is accepted too. When neither reading
    // parses, the syntax error reported is the one of the reading that parsed further.
    let evaluated = guest(() => ctx.evalCode(asExpression(job.code), PROGRAM_FILE));
    if (evaluated.error) {
      const first = describe(hold(evaluated.error));
      if (cpuExceeded) return cpuStop();
      evaluated = guest(() => ctx.evalCode(asBody(job.code), PROGRAM_FILE));
      if (evaluated.error) {
        const second = describe(hold(evaluated.error));
        if (cpuExceeded) return cpuStop();
        if (first.host) return finish({ ok: false, stopped: "syntax", error: first });
        return finish({ ok: false, stopped: "syntax", error: furtherSyntaxError(first, second) });
      }
    }
    const thunk = hold(evaluated.value);
    const started = guest(() => ctx.callFunction(runFn, ctx.undefined, thunk));
    if (started.error) {
      hold(started.error);
      return cpuExceeded ? cpuStop() : finish({ ok: false, error: describe(started.error) });
    }
    const promise = hold(started.value);
    // Only an uncatchable error (the CPU interrupt, memory) rejects run's promise.
    const settledOutcome = (): string | { error: GuestError } | undefined => {
      const s = ctx.getPromiseState(promise);
      if (s.type === "pending") return undefined;
      if (s.type === "rejected") return { error: describe(hold(s.error)) };
      const out = ctx.getString(s.value);
      if (!s.notAPromise) s.value.dispose();
      return out;
    };
    const result = await new Promise<string | { error: GuestError } | "deadlock" | "cpu">((resolve) => {
      const pump = () => {
        const jobs = guest(() => rt.executePendingJobs());
        if (jobs.error) jobs.error.dispose();
        if (cpuExceeded) return resolve("cpu");
        const settled = settledOutcome();
        if (settled !== undefined) return resolve(settled);
        // Nothing in flight and nothing runnable, yet unsettled: it can never finish.
        if (pending.size === 0 && !rt.hasPendingJob()) resolve("deadlock");
      };
      onHostResult = ({ runId, callId, reply }) => {
        const d = runId === job.runId ? pending.get(callId) : undefined;
        if (!d) return;
        pending.delete(callId);
        ctx.newString(reply.json).consume((h) => (reply.ok ? d.resolve(h) : d.reject(h)));
        d.dispose();
        pump();
      };
      pump();
    });
    if (result === "cpu" || cpuExceeded) return cpuStop();
    if (result === "deadlock") return finish({ ok: false, stopped: "deadlock", error: plain("the program awaits a promise that can never settle (no host call is in flight)") });
    if (typeof result !== "string") {
      const oom = isOutOfMemory(result.error);
      recycle ||= oom;
      return finish({ ok: false, stopped: oom ? "memory" : undefined, error: result.error });
    }
    const r = JSON.parse(result) as { ok: boolean; json?: string; jsonChars?: number; error?: GuestError };
    const oom = !r.ok && r.error !== undefined && isOutOfMemory(r.error);
    recycle ||= oom;
    return finish({ ok: r.ok, json: r.json, ...(r.jsonChars !== undefined && { jsonChars: r.jsonChars }), error: r.error, stopped: oom ? "memory" : undefined });
  } catch (e) {
    // Preparing the run failed (a bug or a malformed job), or the module itself failed while the
    // program ran (a trap, an exhausted wasm memory): either way, replace this worker.
    recycle = true;
    if (preparing) return finish({ ok: false, stopped: "internal", error: plain("the sandbox could not prepare this run") });
    return finish({ ok: false, stopped: "memory", error: plain(`the sandbox failed: ${(e as Error)?.message ?? e}`) });
  }
}
