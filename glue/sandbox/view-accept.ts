// `atrium.ui(html, { reads })` inside a run: one view per run, the manifest checked by the core
// against the catalog as of the run's start (every bound address must resolve and be
// read-only now; the shell's reads cross the gate again at use time), and the payload
// charged to the shared emitted-byte budget. A refusal accepts nothing.
import type { Core } from "../decisions/core.js";
import { checkManifest } from "../views/manifest.js";
import { AtriumError, overBudget } from "../support/errors.js";
import { Budget, BudgetCheck, ViewCheck } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";
import { describeViewCheck } from "../decisions/messages.js";

interface ViewPayload { html: string; reads?: Record<string, unknown> }
export interface AcceptedView { payload: ViewPayload; bytes: number }

export function acceptView(
  core: Core,
  json: string,
  state: { accepted?: AcceptedView; emittedBytes: number; emitBytesLimit: number; classOf: (address: string) => "read_only" | "approval" | "unknown" },
): AcceptedView {
  if (state.accepted) throw new AtriumError("invalid_args", "atrium.ui: one view per run; the first view stands");
  let input: { html?: unknown; options?: unknown };
  try { input = JSON.parse(json); } catch { throw new AtriumError("invalid_args", "atrium.ui(html, options?): the arguments are not serializable"); }
  if (typeof input.html !== "string" || input.html.length === 0) throw new AtriumError("invalid_args", "atrium.ui(html, options?): html must be a non-empty string");
  const options = input.options ?? {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new AtriumError("invalid_args", "atrium.ui(html, options?): options must be an object { reads? }");
  const extra = Object.keys(options).filter((k) => k !== "reads");
  if (extra.length) throw new AtriumError("invalid_args", `atrium.ui options take only reads; unexpected ${extra.slice(0, 3).join(", ")}`);
  const reads = (options as { reads?: unknown }).reads;
  if (reads !== undefined) {
    const verdict = checkManifest(core, reads, state.classOf);
    if (verdict.code !== ViewCheck.ok) {
      const check = codeName(ViewCheck, verdict.code) ?? "invalid_facts";
      throw new AtriumError("invalid_args", `atrium.ui: view manifest refused (${check}${verdict.at !== undefined ? ` at ${JSON.stringify(verdict.at)}` : ""}): ${describeViewCheck(verdict.code)}`, { details: { check, ...(verdict.at !== undefined && { at: verdict.at }) } });
    }
  }
  const payload: ViewPayload = reads === undefined ? { html: input.html } : { html: input.html, reads: reads as Record<string, unknown> };
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  if (core.budgetCheck(Budget.emit_bytes, state.emittedBytes, bytes, state.emitBytesLimit) !== BudgetCheck.ok) {
    throw overBudget("emit_bytes", state.emitBytesLimit, state.emittedBytes, bytes, "the view payload shares the emitted-byte budget with emitted blocks");
  }
  return { payload, bytes };
}
