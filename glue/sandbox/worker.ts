// A sandbox worker thread: owns one QuickJS module whose wasm memory is fixed at the heap cap,
// and runs one program at a time in a fresh runtime and context, with a CPU interrupt, a
// stack limit, a captured console, and host calls that go back to the main thread. Guest code
// runs only inside guest(…), where the CPU interrupt reaches it; that includes reading a thrown
// value (a getter or toJSON may spin), which goes through the prelude's describe.
import { parentPort, workerData } from "node:worker_threads";
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSDeferredPromise, type QuickJSHandle } from "quickjs-emscripten";
import { core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import { PRELUDE } from "./prelude.js";
import { workerLimits } from "./run-limits.js";
import { installNatives, type RunRecord } from "./natives.js";
import { HostGate } from "./host-gate.js";
import { guestConfig } from "./guest-config.js";
import type { CatalogClasses, FromWorker, GuestError, RunJob, RunOutcome, ToWorker } from "./protocol.js";

const port = parentPort!;
const PAGE = 65536;
const ALLOCATOR_RESERVE_BYTES = 4 * 1024 * 1024;
const heapBytes: number = workerData.heapBytes;
// The QuickJS wasm is compiled once by the pool and shared; each worker gets its own memory.
const mod = await newQuickJSWASMModuleFromVariant(
  newVariant(RELEASE_SYNC, { wasmModule: workerData.wasmModule, wasmMemory: new WebAssembly.Memory({ initial: Math.floor(heapBytes / PAGE), maximum: Math.floor(heapBytes / PAGE) }) }),
);
const post = (m: FromWorker) => port.postMessage(m);
/** The catalog's classes, cached across runs (the pool resends them when they change). */
let catalog: CatalogClasses | undefined;
let onHostResult: ((callId: number, ok: boolean, json: string) => void) | undefined;

port.on("message", (m: ToWorker) => {
  if (m.type === "run") void run(m).then((outcome) => post({ type: "done", runId: m.runId, outcome }));
  else {
    if (m.catalog) catalog = m.catalog; // the catalog changed while the run waited on the host
    onHostResult?.(m.callId, m.ok, m.json);
  }
});
// Warm-up: one throwaway run pays for the first runtime, context, prelude and core load here,
// so the first real program is as fast as the tenth.
{
  const c = core();
  const d = (b: number) => c.limitDefault(b);
  await run({ type: "run", runId: 0, code: "async () => 1", aliases: [], catalogVersion: 0, limits: { cpuMs: d(Budget.program_cpu_ms), heapBytes, stackBytes: d(Budget.sandbox_stack_bytes), logChars: d(Budget.log_chars), emitBytes: d(Budget.emit_bytes), emitBlocks: d(Budget.emit_blocks) } });
}
post({ type: "ready" });

const plain = (message: string, name = "Error"): GuestError => ({ host: false, name, message });
/** QuickJS's own out-of-memory error (a program can throw one too, but then it is out of memory in effect). */
const isOutOfMemory = (e: GuestError) => !e.host && e.name === "InternalError" && /^out of memory/.test(e.message);

async function run(job: RunJob): Promise<RunOutcome> {
  const c = core();
  const limits = workerLimits(c, job.limits);
  let cpuMs = 0, segStart = 0, inGuest = false, cpuExceeded = false, recycle = false;
  const record: RunRecord = { logs: "", logsDropped: 0, emitted: [], emittedBytes: 0 };
  if (job.catalog) catalog = job.catalog;
  const rt = mod.newRuntime();
  // QuickJS's own limit sits a little under the fixed wasm memory, so its allocator reports a
  // clean, catchable out-of-memory quickly instead of grinding against the wasm ceiling.
  rt.setMemoryLimit(limits.heapBytes - ALLOCATOR_RESERVE_BYTES);
  rt.setMaxStackSize(limits.stackBytes);
  rt.setInterruptHandler(() => inGuest && (cpuExceeded ||= cpuMs + performance.now() - segStart > limits.cpuMs));
  const guest = <T>(fn: () => T): T => {
    inGuest = true;
    segStart = performance.now();
    try { return fn(); } finally { cpuMs += performance.now() - segStart; inGuest = false; }
  };
  const ctx = rt.newContext();
  const pending = new Map<number, QuickJSDeferredPromise>();
  /** Handles this run holds; finish disposes whichever are still alive. */
  const held: QuickJSHandle[] = [];
  const hold = (h: QuickJSHandle) => (held.push(h), h);
  let callSeq = 0;

  const finish = (partial: Partial<RunOutcome> & { ok: boolean }): RunOutcome => {
    for (const d of pending.values()) d.dispose();
    pending.clear();
    onHostResult = undefined;
    try {
      for (const h of held) if (h.alive) h.dispose();
      ctx.dispose();
      rt.dispose();
    } catch { recycle = true; }
    const { logs, logsDropped, emitted, emittedBytes, view } = record;
    return { logs, logsDropped, emitted, emittedBytes, cpuMs, recycle, ...(view && { view: { ...view.payload, bytes: view.bytes } }), ...partial };
  };
  const cpuStop = () => finish({ ok: false, stopped: "cpu", error: plain(`the program used more than ${limits.cpuMs} ms of CPU and was stopped (program_cpu_ms)`) });

  // Until the program is evaluated, a failure is the sandbox's own (never the program's memory).
  let preparing = true;
  try {
    installNatives({
      ctx, core: c, limits, record,
      classOf: (a) => (catalog && Object.hasOwn(catalog, a) ? catalog[a] : "unknown"),
      gate: new HostGate(c, limits),
      send: (op, json) => {
        const d = ctx.newPromise();
        const callId = ++callSeq;
        pending.set(callId, d);
        post({ type: "host", runId: job.runId, callId, op, json });
        return d.handle;
      },
    });
    ctx.newString(JSON.stringify(guestConfig(job.aliases, limits))).consume((s) => ctx.setProp(ctx.global, "__cfg", s));
    // The prelude's value is [run, describe]. Evaluating the program yields only the thunk run
    // calls; the outcome is read natively from run's own promise, which no program code can reach,
    // resolve or replace (unlike a global wrapper or ctx.resolvePromise, which looks up the guest's
    // Promise.resolve and then).
    const pair = hold(ctx.unwrapResult(ctx.evalCode(PRELUDE, "atrium-prelude.js")));
    const runFn = hold(ctx.getProp(pair, 0)), describeFn = hold(ctx.getProp(pair, 1));
    /** Reads a thrown value through the prelude, under the CPU budget. */
    const describe = (thrown: QuickJSHandle): GuestError => {
      const r = guest(() => ctx.callFunction(describeFn, ctx.undefined, thrown));
      if (r.error) { r.error.dispose(); return plain("the program failed with an error that could not be read"); }
      const report = ctx.getString(r.value);
      r.value.dispose();
      return JSON.parse(report) as GuestError;
    };

    preparing = false;
    // The program is one async arrow function; a bare body is accepted too.
    let evaluated = guest(() => ctx.evalCode(`(() => (\n${job.code}\n))`, "program.js"));
    if (evaluated.error) {
      const first = describe(hold(evaluated.error));
      if (cpuExceeded) return cpuStop();
      evaluated = guest(() => ctx.evalCode(`(async () => {\n${job.code}\n})`, "program.js"));
      if (evaluated.error) {
        hold(evaluated.error);
        if (cpuExceeded) return cpuStop();
        return finish({ ok: false, stopped: "syntax", error: first.host ? first : plain(first.message, first.name) });
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
      onHostResult = (callId, ok, json) => {
        const d = pending.get(callId);
        if (!d) return;
        pending.delete(callId);
        ctx.newString(json).consume((h) => (ok ? d.resolve(h) : d.reject(h)));
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
