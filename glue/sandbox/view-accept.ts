// `atrium.ui(html, { reads })`, judged on the main thread when the program declares its view: the
// arguments' shape, then the manifest, checked by the core against the live catalog (the catalog
// every call resolves on: each bound address must resolve and be read-only now; the shell's reads
// cross the gate again at use time). The caller (bridge.ts) keeps one view per run and spends the
// payload's bytes from the emitted-byte budget it shares with emitted blocks.
import { UNEXPECTED_KEYS_SHOWN } from "../decisions/generated/spec.js";
import type { Core } from "../decisions/core.js";
import { checkManifest, type ResolveAddress } from "../views/manifest.js";
import { AtriumError } from "../support/errors.js";
import { ViewCheck } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";
import { describeViewCheck } from "../decisions/messages.js";
import type { HostOps } from "./host-ops.js";

export interface ViewPayload { html: string; reads?: Record<string, unknown> }

/** The view as it will be delivered, or the typed refusal (thrown). */
export function judgeView(core: Core, input: HostOps["ui"]["args"], classOf: ResolveAddress): ViewPayload {
  if (typeof input.html !== "string" || input.html.length === 0) throw new AtriumError("invalid_args", "atrium.ui(html, options?): html must be a non-empty string");
  const options = input.options ?? {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) throw new AtriumError("invalid_args", "atrium.ui(html, options?): options must be an object { reads? }");
  const extra = Object.keys(options).filter((k) => k !== "reads");
  if (extra.length) throw new AtriumError("invalid_args", `atrium.ui options take only reads; unexpected ${extra.slice(0, UNEXPECTED_KEYS_SHOWN).join(", ")}`);
  const reads = (options as { reads?: unknown }).reads;
  if (reads !== undefined) {
    const verdict = checkManifest(core, reads, classOf);
    if (verdict.code !== ViewCheck.ok) {
      const check = codeName(ViewCheck, verdict.code) ?? "invalid_facts";
      throw new AtriumError("invalid_args", `atrium.ui: view manifest refused (${check}${verdict.at !== undefined ? ` at ${JSON.stringify(verdict.at)}` : ""}): ${describeViewCheck(verdict.code)}`, { details: { check, ...(verdict.at !== undefined && { at: verdict.at }) } });
    }
  }
  return reads === undefined ? { html: input.html } : { html: input.html, reads: reads as Record<string, unknown> };
}
