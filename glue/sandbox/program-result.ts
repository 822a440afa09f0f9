// Turns a finished program run into the MCP result. Which parts it carries (value or error,
// blocks or a discarded count) is the core's decision (spec/envelope.md); this file only
// builds them. The return value over return_chars becomes one truncation envelope that
// itself fits the cap and states the true size (truncation is a success).
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Core } from "../decisions/core.js";
import { AtriumError, overBudget, type ErrorBody } from "../support/errors.js";
import { Budget, BudgetCheck, EnvelopeFlag, ViewState, type Delivery } from "../decisions/generated/spec.js";
import type { GuestError, RunOutcome } from "./protocol.js";
import { jsonDepth } from "../support/json-depth.js";
import type { Stopped } from "./pool.js";
import type { RunOutput } from "./bridge.js";
import { deliverView, type ViewDeps } from "../views/delivery.js";

export interface ProgramFacts {
  outcome: RunOutcome | Stopped;
  /** What the run's host calls left: emitted blocks and the view (a run stopped by the pool delivers neither). */
  output: RunOutput;
  delivery: Delivery;
  returnChars: number;
  limits: { wallMs: number; cpuMs: number; heapBytes: number };
  diagnostics?: Record<string, unknown>;
  views: ViewDeps;
}

export async function programResult(core: Core, f: ProgramFacts): Promise<CallToolResult> {
  const o = f.outcome;
  const run = "stopped" in o && !("logs" in o) ? undefined : nestingChecked(core, o as RunOutcome, f.returnChars);
  const success = run?.ok === true;
  const blocks = run ? f.output.emitted : [];
  const acceptedView = run ? f.output.view : undefined;
  const flags = core.envelope(success, acceptedView ? ViewState.accepted : ViewState.none, blocks.length, f.delivery);
  const has = (flag: number) => (flags & flag) !== 0;
  const body: Record<string, unknown> = { ok: success };
  if (has(EnvelopeFlag.value)) body.value = fitValue(core, run!.json ?? "null", run!.jsonChars, f.returnChars);
  if (has(EnvelopeFlag.error_body)) body.error = errorOf(f, run);
  if (run?.logs) body.logs = run.logs;
  if (run?.logsDropped) body.logLinesDropped = run.logsDropped;
  if (has(EnvelopeFlag.blocks)) body.emitted = blocks.length;
  if (has(EnvelopeFlag.note_blocks_discarded)) body.emittedDiscarded = blocks.length;
  const view = acceptedView ? await deliverView(flags, acceptedView, f.views) : undefined;
  if (view) body.view = view.note;
  if (f.diagnostics) body.diagnostics = { ...f.diagnostics, ...(acceptedView && { viewBytes: acceptedView.bytes }) };
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(body) }];
  if (has(EnvelopeFlag.blocks)) for (const b of blocks) content.push(b.block as never);
  return { content, structuredContent: body, ...(view?.meta && { _meta: view.meta }), ...(has(EnvelopeFlag.is_error) && { isError: true }) };
}

function errorOf(f: ProgramFacts, run: RunOutcome | undefined): ErrorBody | Record<string, unknown> {
  const o = f.outcome;
  if (!run) {
    const s = (o as Stopped).stopped;
    if (s === "timeout") return new AtriumError("timeout", `the program ran longer than ${f.limits.wallMs} ms (program_wall_ms, host waits included) and was stopped`, { details: { budget: "program_wall_ms", limit: f.limits.wallMs } }).toJSON();
    if (s === "cancelled") return new AtriumError("cancelled", "the program was cancelled").toJSON();
    return new AtriumError("unavailable", "the sandbox worker crashed; it has been replaced").toJSON();
  }
  if (run.stopped === "cpu") return new AtriumError("budget_exceeded", `the program used more than ${f.limits.cpuMs} ms of CPU and was stopped`, { details: { budget: "program_cpu_ms", limit: f.limits.cpuMs, room: 0 } }).toJSON();
  if (run.stopped === "internal") return new AtriumError("unavailable", "the sandbox could not prepare this run; its worker is being replaced, try again").toJSON();
  const e = run.error;
  if (run.stopped === "memory") {
    const nullThrown = e?.thrownNull ? " (QuickJS threw null, which it does when it cannot even build its out-of-memory error; a program's own throw null reads the same)" : "";
    return new AtriumError("budget_exceeded", `the program ran out of memory (${f.limits.heapBytes} bytes) and was stopped${nullThrown}`, { details: { budget: "sandbox_heap_bytes", limit: f.limits.heapBytes, room: 0 } }).toJSON();
  }
  if (e?.host && e.body) return e.body;
  return programError(run.stopped === "syntax" ? "program_syntax_error" : "program_error", e);
}

/**
 * The program's own failure, typed like every other (retryable from the core: not), with what the
 * program threw: its name, where (line and column as the author wrote them) and its stack.
 */
function programError(code: "program_error" | "program_syntax_error", e: GuestError | undefined): Record<string, unknown> {
  const body = new AtriumError(code, e?.message ?? "the program failed").toJSON();
  return { ...body, name: e?.name ?? "Error", ...(e?.line !== undefined && { line: e.line, column: e.column }), ...(e?.stack && { stack: e.stack }) };
}

/**
 * A value the model will read whole must nest no deeper than request_depth, the bound atrium
 * keeps on every JSON-RPC message (a few thousand levels would overflow the serializer). Over it
 * the run fails with budget_exceeded: the program made a value past a declared limit, like an
 * oversized emit. A value over return_chars is shown as a flat preview, so its depth is moot.
 */
function nestingChecked(core: Core, run: RunOutcome, cap: number): RunOutcome {
  const json = run.json;
  if (!run.ok || json === undefined || run.jsonChars !== undefined || core.budgetCheck(Budget.return_chars, 0, json.length, cap) !== BudgetCheck.ok) return run;
  const limit = core.limitDefault(Budget.request_depth);
  const depth = jsonDepth(json);
  if (core.budgetCheck(Budget.request_depth, 0, depth, limit) === BudgetCheck.ok) return run;
  const body = overBudget("request_depth", limit, 0, depth, `the return value nests ${depth} levels deep; return a flatter value (pick fields, or JSON.stringify the deep part into a string)`).toJSON();
  return { ...run, ok: false, json: undefined, error: { host: true, name: "AtriumError", message: body.message, body } };
}

/**
 * The value as parsed JSON, or a truncation envelope whose own serialization fits `cap`.
 * `json` may be only the beginning of a longer value whose full length is `totalChars`.
 */
function fitValue(core: Core, json: string, totalChars: number | undefined, cap: number): unknown {
  const total = totalChars ?? json.length;
  if (total === json.length && core.budgetCheck(Budget.return_chars, 0, total, cap) === BudgetCheck.ok) return JSON.parse(json);
  const envelope = (preview: string) => ({ truncated: true, totalChars: total, shownChars: preview.length, hint: "the return value was over return_chars; return less (aggregate, slice, pick fields)", preview });
  let lo = 0, hi = Math.min(json.length, cap);
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1; // the upper middle, ceil((lo + hi) / 2): lo and hi are lengths, far below 2^31
    if (JSON.stringify(envelope(json.slice(0, mid))).length <= cap) lo = mid;
    else hi = mid - 1;
  }
  return envelope(json.slice(0, lo));
}
