// The four native functions a run's prelude captures (__host, __emit, __ui, __log) and the
// record they fill (logs, emitted blocks, the view). No native lets a host-side exception reach
// the guest as an engine message: a failure becomes a typed error the prelude throws.
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten";
import type { Core } from "../decisions/core.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import { AtriumError, overBudget } from "../support/errors.js";
import { acceptView, type AcceptedView } from "./view-accept.js";
import { checkBlock } from "./emit-block.js";
import type { WorkerLimits } from "./run-limits.js";
import type { HostGate } from "./host-gate.js";
import type { EmittedBlock, HostCall } from "./protocol.js";

export interface RunRecord { logs: string; logsDropped: number; emitted: EmittedBlock[]; emittedBytes: number; view?: AcceptedView }

export interface NativeDeps {
  ctx: QuickJSContext;
  core: Core;
  limits: WorkerLimits;
  record: RunRecord;
  classOf(address: string): "read_only" | "approval" | "unknown";
  /** Admits or refuses each host call before it crosses. */
  gate: HostGate;
  /** Sends an admitted host call to the main thread; the promise settles with its reply. */
  send(op: HostCall["op"], json: string): QuickJSHandle;
}

/** Each refusal's JSON, built once (a flood repeats one refusal). */
const jsonOf = new WeakMap<AtriumError, string>();
/** A failure's typed JSON: an AtriumError as it is; anything else (a host-side fault) never with the engine's own message. */
function errorJson(e: unknown, what = "this call"): string {
  const error = e instanceof AtriumError ? e : new AtriumError("unavailable", `the sandbox could not complete ${what}; try again`);
  let json = jsonOf.get(error);
  if (json === undefined) jsonOf.set(error, (json = JSON.stringify(error.toJSON())));
  return json;
}

export function installNatives(d: NativeDeps): void {
  const { ctx, core: c, limits, record } = d;
  const refuse = (e: unknown, what?: string) => ctx.newString(errorJson(e, what));
  const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined) => ctx.newFunction(name, fn).consume((f) => ctx.setProp(ctx.global, name, f));

  /** A guest string's length, read without copying the string out of the guest. */
  const lengthOf = (h: QuickJSHandle) => (ctx.typeof(h) === "string" ? ctx.getProp(h, "length").consume((n) => ctx.getNumber(n)) : 0);

  // (op, json, queryChars): a promise handle for an admitted call, or a string, the typed error
  // the prelude rejects with. The payload is measured before it is read.
  define("__host", (opH, jsonH, queryH) => {
    try {
      const op = ctx.getString(opH) as HostCall["op"];
      const verdict = d.gate.admit(op, { chars: lengthOf(jsonH), read: () => ctx.getString(jsonH), queryChars: queryH !== undefined && ctx.typeof(queryH) === "number" ? ctx.getNumber(queryH) : -1 });
      return "refused" in verdict ? refuse(verdict.refused) : d.send(op, verdict.json);
    } catch (e) {
      return refuse(e, "a host call");
    }
  });

  // "" when accepted, else a typed error's JSON.
  define("__emit", (jsonH) => {
    try {
      const chars = lengthOf(jsonH);
      if (c.budgetCheck(Budget.emit_bytes, record.emittedBytes, chars, limits.emitBytes) !== BudgetCheck.ok) throw overBudget("emit_bytes", limits.emitBytes, record.emittedBytes, chars);
      const check = checkBlock(ctx.getString(jsonH));
      if (!check.ok) throw new AtriumError("invalid_args", check.message);
      if (c.budgetCheck(Budget.emit_blocks, record.emitted.length, 1, limits.emitBlocks) !== BudgetCheck.ok) throw overBudget("emit_blocks", limits.emitBlocks, record.emitted.length, 1);
      if (c.budgetCheck(Budget.emit_bytes, record.emittedBytes, check.bytes, limits.emitBytes) !== BudgetCheck.ok) throw overBudget("emit_bytes", limits.emitBytes, record.emittedBytes, check.bytes);
      record.emitted.push({ block: check.block, bytes: check.bytes });
      record.emittedBytes += check.bytes;
      return ctx.newString("");
    } catch (e) {
      return refuse(e, "atrium.emit");
    }
  });

  define("__ui", (jsonH) => {
    try {
      const chars = lengthOf(jsonH);
      if (c.budgetCheck(Budget.emit_bytes, record.emittedBytes, chars, limits.emitBytes) !== BudgetCheck.ok) throw overBudget("emit_bytes", limits.emitBytes, record.emittedBytes, chars, "the view payload shares the emitted-byte budget with emitted blocks");
      record.view = acceptView(c, ctx.getString(jsonH), { accepted: record.view, emittedBytes: record.emittedBytes, emitBytesLimit: limits.emitBytes, classOf: d.classOf });
      record.emittedBytes += record.view.bytes;
      return ctx.newString("");
    } catch (e) {
      return refuse(e, "atrium.ui");
    }
  });

  // The prelude cuts each line at log_chars + 1 characters before it gets here.
  define("__log", (levelH, textH) => {
    const level = ctx.getString(levelH);
    const line = `${level === "log" || level === "info" ? "" : `[${level}] `}${ctx.getString(textH)}\n`;
    if (record.logsDropped > 0 || c.budgetCheck(Budget.log_chars, record.logs.length, line.length, limits.logChars) !== BudgetCheck.ok) {
      const room = limits.logChars - record.logs.length;
      if (record.logsDropped === 0 && room > 0) record.logs += line.slice(0, room);
      record.logsDropped++;
    } else record.logs += line;
    return undefined;
  });
}
