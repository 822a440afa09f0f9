// A sandbox worker thread: owns one QuickJS module whose wasm memory is fixed at the heap cap,
// and runs one program at a time in a fresh runtime and context, with a CPU interrupt, a
// stack limit, a captured console, and host calls that go back to the main thread.
import { parentPort, workerData } from "node:worker_threads";
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSDeferredPromise } from "quickjs-emscripten";
import { core } from "../core.js";
import { Budget, BudgetCheck } from "../generated/spec.js";
import { PRELUDE } from "./prelude.js";
import { asAtriumError, overBudget } from "../errors.js";
import { acceptView, type AcceptedView } from "./view-accept.js";
import { checkBlock } from "./emit-block.js";
import type { CatalogClasses, EmittedBlock, FromWorker, GuestError, RunJob, RunOutcome, ToWorker } from "./protocol.js";

const port = parentPort!;
const PAGE = 65536;
const ALLOCATOR_RESERVE_BYTES = 4 * 1024 * 1024;
const heapBytes: number = workerData.heapBytes;
// The QuickJS wasm is compiled once by the pool and shared; each worker gets its own memory.
const mod = await newQuickJSWASMModuleFromVariant(
  newVariant(RELEASE_SYNC, { wasmModule: workerData.wasmModule, wasmMemory: new WebAssembly.Memory({ initial: Math.min(256, heapBytes / PAGE), maximum: Math.floor(heapBytes / PAGE) }) }),
);
const post = (m: FromWorker) => port.postMessage(m);
/** The catalog's classes, cached across runs (the pool resends them when they change). */
let catalog: CatalogClasses | undefined;
let onHostResult: ((callId: number, ok: boolean, json: string) => void) | undefined;

port.on("message", (m: ToWorker) => {
  if (m.type === "run") void run(m).then((outcome) => post({ type: "done", runId: m.runId, outcome }));
  else onHostResult?.(m.callId, m.ok, m.json);
});
// Warm-up: one throwaway run pays for the first runtime, context, prelude and core load here,
// so the first real program is as fast as the tenth.
{
  const c = core();
  const d = (b: number) => c.limitDefault(b);
  await run({ type: "run", runId: 0, code: "async () => 1", aliases: [], catalogVersion: 0, limits: { cpuMs: d(Budget.program_cpu_ms), heapBytes, stackBytes: d(Budget.sandbox_stack_bytes), logChars: d(Budget.log_chars), emitBytes: d(Budget.emit_bytes), emitBlocks: d(Budget.emit_blocks) } });
}
post({ type: "ready" });

const budgetError = (budget: "emit_blocks" | "emit_bytes", limit: number, used: number, requested: number) => JSON.stringify(overBudget(budget, limit, used, requested).toJSON());

async function run(job: RunJob): Promise<RunOutcome> {
  const c = core();
  const { limits } = job;
  let logs = "", logsDropped = 0, emittedBytes = 0, cpuMs = 0, segStart = 0, inGuest = false, cpuExceeded = false, recycle = false;
  const emitted: EmittedBlock[] = [];
  let view: AcceptedView | undefined;
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
  let callSeq = 0;

  const finish = (partial: Partial<RunOutcome> & { ok: boolean }): RunOutcome => {
    for (const d of pending.values()) d.dispose();
    pending.clear();
    onHostResult = undefined;
    try { ctx.dispose(); rt.dispose(); } catch { recycle = true; }
    return { logs, logsDropped, emitted, emittedBytes, cpuMs, recycle, ...(view && { view: { ...view.payload, bytes: view.bytes } }), ...partial };
  };
  const plain = (message: string, name = "Error"): GuestError => ({ host: false, name, message });

  try {
    ctx.newFunction("__host", (opH, jsonH) => {
      const d = ctx.newPromise();
      const callId = ++callSeq;
      pending.set(callId, d);
      post({ type: "host", runId: job.runId, callId, op: ctx.getString(opH) as never, json: ctx.getString(jsonH) });
      return d.handle;
    }).consume((f) => ctx.setProp(ctx.global, "__host", f));
    ctx.newFunction("__emit", (jsonH) => {
      const check = checkBlock(ctx.getString(jsonH));
      if (!check.ok) return ctx.newString(JSON.stringify({ code: "invalid_args", retryable: false, message: check.message }));
      if (c.budgetCheck(Budget.emit_blocks, emitted.length, 1, limits.emitBlocks) !== BudgetCheck.ok) return ctx.newString(budgetError("emit_blocks", limits.emitBlocks, emitted.length, 1));
      if (c.budgetCheck(Budget.emit_bytes, emittedBytes, check.bytes, limits.emitBytes) !== BudgetCheck.ok) return ctx.newString(budgetError("emit_bytes", limits.emitBytes, emittedBytes, check.bytes));
      emitted.push({ block: check.block, bytes: check.bytes });
      emittedBytes += check.bytes;
      return ctx.newString("");
    }).consume((f) => ctx.setProp(ctx.global, "__emit", f));
    ctx.newFunction("__ui", (jsonH) => {
      try {
        view = acceptView(c, ctx.getString(jsonH), { accepted: view, emittedBytes, emitBytesLimit: limits.emitBytes, classOf: (a) => (catalog && Object.hasOwn(catalog, a) ? catalog[a] : "unknown") });
        emittedBytes += view.bytes;
        return ctx.newString("");
      } catch (e) {
        return ctx.newString(JSON.stringify(asAtriumError(e, "invalid_args").toJSON()));
      }
    }).consume((f) => ctx.setProp(ctx.global, "__ui", f));
    ctx.newFunction("__log", (levelH, textH) => {
      const level = ctx.getString(levelH);
      const line = `${level === "log" || level === "info" ? "" : `[${level}] `}${ctx.getString(textH)}\n`;
      if (logsDropped > 0 || c.budgetCheck(Budget.log_chars, logs.length, line.length, limits.logChars) !== BudgetCheck.ok) {
        const room = limits.logChars - logs.length;
        if (logsDropped === 0 && room > 0) logs += line.slice(0, room);
        logsDropped++;
      } else logs += line;
    }).consume((f) => ctx.setProp(ctx.global, "__log", f));
    ctx.newString(JSON.stringify(job.aliases)).consume((s) => ctx.setProp(ctx.global, "__cfg", s));
    // The prelude's value is the run function. Evaluating the program yields only the thunk it calls;
    // the outcome is read natively from the run function's own promise, which no program code can
    // reach, resolve or replace (unlike a global wrapper or ctx.resolvePromise, which looks up the
    // guest's Promise.resolve and then).
    const runFn = ctx.unwrapResult(ctx.evalCode(PRELUDE, "atrium-prelude.js"));
    // The program is one async arrow function; a bare body is accepted too.
    let evaluated = guest(() => ctx.evalCode(`(() => (\n${job.code}\n))`, "program.js"));
    if (evaluated.error) {
      const first = ctx.dump(evaluated.error);
      evaluated.error.dispose();
      evaluated = guest(() => ctx.evalCode(`(async () => {\n${job.code}\n})`, "program.js"));
      if (evaluated.error) {
        evaluated.error.dispose();
        runFn.dispose();
        if (cpuExceeded) return finish({ ok: false, stopped: "cpu", error: plain(`the program used more than ${limits.cpuMs} ms of CPU and was stopped (program_cpu_ms)`) });
        return finish({ ok: false, stopped: "syntax", error: plain(String(first?.message ?? first), String(first?.name ?? "SyntaxError")) });
      }
    }
    const thunk = evaluated.value;
    const promise = ctx.unwrapResult(guest(() => ctx.callFunction(runFn, ctx.undefined, thunk)));
    thunk.dispose();
    runFn.dispose();
    const settledOutcome = (): string | { error: unknown } | undefined => {
      const s = ctx.getPromiseState(promise);
      if (s.type === "pending") return undefined;
      if (s.type === "rejected") { const e = ctx.dump(s.error); s.error.dispose(); return { error: e }; }
      const out = ctx.getString(s.value);
      if (!s.notAPromise) s.value.dispose();
      return out;
    };
    const result = await new Promise<string | { error: unknown } | "deadlock" | "cpu">((resolve) => {
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
    promise.dispose();
    if (result === "cpu" || cpuExceeded) return finish({ ok: false, stopped: "cpu", error: plain(`the program used more than ${limits.cpuMs} ms of CPU and was stopped (program_cpu_ms)`) });
    if (result === "deadlock") return finish({ ok: false, stopped: "deadlock", error: plain("the program awaits a promise that can never settle (no host call is in flight)") });
    if (typeof result !== "string") {
      const e = result.error as { name?: string; message?: string } | undefined;
      const oom = /out of memory/i.test(String(e?.message));
      recycle ||= oom;
      return finish({ ok: false, stopped: oom ? "memory" : undefined, error: plain(String(e?.message ?? e), String(e?.name ?? "Error")) });
    }
    const r = JSON.parse(result) as { ok: boolean; json?: string; error?: GuestError };
    const oom = !r.ok && !r.error?.host && /out of memory/i.test(r.error?.message ?? "");
    recycle ||= oom;
    return finish({ ok: r.ok, json: r.json, error: r.error, stopped: oom ? "memory" : cpuExceeded ? "cpu" : undefined });
  } catch (e) {
    // The module itself failed (a trap, an exhausted wasm memory): replace this worker.
    recycle = true;
    return finish({ ok: false, stopped: "memory", error: plain(`the sandbox failed: ${(e as Error)?.message ?? e}`) });
  }
}
