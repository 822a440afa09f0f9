// execute_code: runs one short JavaScript program in a QuickJS sandbox. Every host call it
// makes is answered by the run's bridge (its budgets counted there, invoke.ts for calls, the run's
// approvals for a call that may write); the result envelope is the core's decision. On
// 2026-07-28 a run that asks the person parks (mcp/parked-runs.ts): this request answers
// input-required, and the client's retry carrying the answer resumes the run.
import { z } from "zod";
import { defineTool, type ToolContext } from "./meta-tool.js";
import { buildAliases, GUEST_GLOBALS } from "../../sandbox/aliases.js";
import { toIdentifier } from "../../catalog/resolver.js";
import { RunBridge } from "../../sandbox/bridge.js";
import { RunApprovals, type QuestionChannel } from "../../calls/approvals.js";
import { ParkedRun, type LegResult } from "../parked-runs.js";
import type { Forwarded } from "../parked-relay.js";
import { errorResult } from "./tool-result.js";
import { AtriumError } from "../../support/errors.js";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { programResult } from "../../sandbox/program-result.js";
import { CODE_CHARS_MAX, CONNECTOR_LIST_CHARS_MAX, Revision } from "../../decisions/generated/spec.js";
import { MS_PER_SECOND, roundMs as round } from "../../support/format.js";
import type { AtriumConfig } from "../../config/schema.js";
import { SHELL_URI } from "../../views/shell-page.js";
import { noObserver, type Observer } from "../../observability/observer.js";

function describeExecuteCode(config: AtriumConfig, usable: (connectorId: string) => boolean = () => true): string {
  const s = config.sandbox;
  let ids = config.connectors.filter((c) => !c.disabled && usable(c.id)).map((c) => (GUEST_GLOBALS.has(toIdentifier(c.id)) ? `${c.id} (atrium.call only)` : toIdentifier(c.id))).join(", ");
  if (ids.length > CONNECTOR_LIST_CHARS_MAX) ids = `${ids.slice(0, CONNECTOR_LIST_CHARS_MAX - 1)}…`;
  return [
    "Run one async arrow function of plain JavaScript in a sandbox (QuickJS; no network, files, timers, require) that reads through read-only tools and returns only what the answer needs.",
    `atrium.search(query) → {results:[{address,…}]}; atrium.describe(address) → schema; atrium.call(address, args, {reason}?) → value (a tool that may write asks the person first when the host can be asked; reason is shown); atrium.batch([{address, args}]) → [{ok,data}|{ok:false,error}] (parallel, 0–${s.batchCalls}; a batch over a limit throws whole); atrium.emit(block); atrium.ui(html) shows the person a view; console.log. Globals: <connector>.<tool>(args) for any tool name. Connectors: ${ids || "none"}.`,
    `Per run: ${s.hostCalls} host calls, ${s.programWallMs / MS_PER_SECOND} s, ${s.returnChars} characters returned. Failures throw Errors with code and retryable.`,
    "Example: async () => { const r = await atrium.search(\"what you need\"); return atrium.call(r.results[0].address, {}); }",
    "Details: skills {name:\"usage\"}.",
  ].join("\n");
}

/** `config`: the config in force (a live reload changes the connectors the description names); `observer`: each run's span and outcome. */
export const executeCode = (config: () => AtriumConfig, observer: Observer = noObserver) =>
  defineTool({
    name: "execute_code",
    title: "Run a program over the tools",
    get description() { return describeExecuteCode(config()); },
    describeFor: (usable) => describeExecuteCode(config(), usable),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    uses: ["activity", "approvals", "catalog", "core", "config", "downstream", "host", "parked", "pool", "principal", "programSlots", "progress", "retry", "semantic", "signal", "viewStore"] as const,
    // The view shell; both the nested key and the older flat key, since hosts differ.
    _meta: { ui: { resourceUri: SHELL_URI, visibility: ["model"] }, "ui/resourceUri": SHELL_URI },
    input: z.object({
      code: z.string().min(1).max(CODE_CHARS_MAX).describe("One async arrow function, e.g. async () => { … return result; }"),
      diagnostics: z.boolean().default(false).describe("Add timings and counts (numbers only) to the result"),
    }).strict(),
    async run(args, ctx) {
      // A 2026-07-28 retry carrying the person's answer: the parked run it names goes on, no new run starts.
      if (ctx.retry.state !== undefined) {
        const found = ctx.parked.open(ctx.retry.state, ctx.principal);
        if (found && "elsewhere" in found) return forwarded(await ctx.parked.forward(found.elsewhere, { state: ctx.retry.state as string, code: args.code, principal: ctx.principal.id, responses: ctx.retry.responses }, ctx.signal));
        const leg = found && found.run.code === args.code ? found.run.resume(found.seq, ParkedRun.responseOf(ctx.retry.responses), ctx.signal) : undefined;
        return leg ?? errorResult(retryNotFound());
      }
      // On 2026-07-28 a question is the request's own input-required answer: the run parks for it.
      // principal_programs: one more run than the principal's share answers rate_limited; nothing starts.
      const slot = ctx.programSlots.take(ctx.principal, Date.now(), ctx.config.sandbox.programWallMs);
      if (!slot.ok) return errorResult(new AtriumError("rate_limited", `${slot.limit} of your programs are running (principal_programs); retry in ${slot.retryAfterMs} ms or when one ends`, { details: { retryAfterMs: slot.retryAfterMs } }));
      const park = ctx.approvals.revision === Revision.r2026_07_28 ? ctx.parked.start(args.code, ctx.principal) : undefined;
      if (!park) return observer.program(() => runProgram(args, ctx, ctx.approvals, ctx.signal, ctx.progress)).finally(slot.release);
      // A parked run keeps its slot until it ends, past this request's first leg.
      return park.first(observer.program(() => runProgram(args, ctx, park.channel(ctx.approvals), park.signal, park.progressWhileOpen(ctx.progress))).finally(slot.release), ctx.signal);
    },
  });

/** Runs the program to its result envelope; `channel` is where its writes are asked, `signal` ends the run. */
async function runProgram(args: { code: string; diagnostics: boolean }, ctx: Pick<ToolContext, "activity" | "catalog" | "core" | "config" | "downstream" | "principal" | "host" | "pool" | "semantic" | "viewStore">, channel: QuestionChannel, signal: AbortSignal, progress?: (completed: number) => void): Promise<CallToolResult> {
  const started = performance.now();
  const s = ctx.config.sandbox;
  const kept = new Map(ctx.config.connectors.map((c) => [c.id, c.keepOutsidePrograms]));
  const approvals = new RunApprovals(ctx.core, { perRun: s.approvalsPerRun, waitMs: s.approvalWaitMs, grantCalls: s.approvalGrantCalls }, channel, (id) => kept.get(id), args.code, ctx.activity);
  const bridge = new RunBridge({ core: ctx.core, catalog: ctx.catalog, downstream: ctx.downstream, principal: ctx.principal, activity: ctx.activity, semantic: ctx.semantic }, { hostCalls: s.hostCalls, batchCalls: s.batchCalls, callPayloadBytes: s.callPayloadBytes, emitBytes: s.emitBytes, emitBlocks: s.emitBlocks }, progress, approvals);
  const aliases = aliasesFor(ctx);
  const outcome = await ctx.pool.run(
    { code: args.code, aliases, limits: { cpuMs: s.programCpuMs, heapBytes: s.heapBytes, stackBytes: s.stackBytes, logChars: s.logChars, emitBytes: s.emitBytes, hostCalls: s.hostCalls, callPayloadBytes: s.callPayloadBytes, returnChars: s.returnChars } },
    { host: bridge, wallMs: s.programWallMs, signal, principal: ctx.principal.id },
  );
  const diagnostics = args.diagnostics
    ? {
        totalMs: round(performance.now() - started),
        queueMs: round(outcome.waitedMs),
        ...("cpuMs" in outcome && { cpuMs: round(outcome.cpuMs), emittedBytes: bridge.emittedBytes, logChars: outcome.logs.length }),
        hostCalls: bridge.hostCalls,
        operations: Object.fromEntries(Object.entries(bridge.stats).map(([op, st]) => [op, { ...st, ms: round(st.ms) }])),
      }
    : undefined;
  return programResult(ctx.core, {
    outcome,
    output: bridge.output,
    delivery: ctx.host.delivery,
    returnChars: s.returnChars,
    limits: { wallMs: s.programWallMs, cpuMs: s.programCpuMs, heapBytes: s.heapBytes },
    diagnostics,
    views: { store: ctx.viewStore, directory: ctx.config.views.directory },
  });
}

const retryNotFound = () => new AtriumError("not_found", "the question this retry answers is no longer open (its run ended, or was abandoned when its approval wait ran out), or the requestState is not one atrium issued for this program; run the program again");

/** A retry carried to the replica holding its run: that leg's answer, "not found" as here, or the holder is gone (not retryable: the run went with it). */
function forwarded(f: Forwarded): LegResult {
  if (f.kind === "leg") return f.result;
  if (f.kind === "not_found") return errorResult(retryNotFound());
  return errorResult(new AtriumError("unavailable", "the atrium replica that held this program's run is gone or did not answer, and the run with it; run the program again", { recovering: false }));
}

/** Guest globals per catalog, rebuilt only when that catalog changes (not on every run). */
const aliasCache = new WeakMap<ToolContext["catalog"], { version: number; aliases: ReturnType<typeof buildAliases> }>();
function aliasesFor(ctx: Pick<ToolContext, "catalog">) {
  const version = ctx.catalog.version;
  let hit = aliasCache.get(ctx.catalog);
  if (hit?.version !== version) {
    hit = { version, aliases: buildAliases(ctx.catalog.entries(), ctx.catalog.connectorIds()) };
    aliasCache.set(ctx.catalog, hit);
  }
  return hit.aliases;
}
