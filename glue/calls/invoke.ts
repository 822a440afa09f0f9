// The one path every downstream call takes — direct (call_tool, call_destructive_tool), from a
// program, from a view, or from a downstream app (call_app_tool): resolve the address → the
// core's pin gate (a quarantined tool runs by no path, spec/pins.md) → the core's gate on the
// current catalog (read-only, or for an app spec/app-calls.md A1–A5) →
// argument and payload checks → the connector's deadline → the result with its credentials
// redacted (results/secrets/, unless the connector's `redactSecrets` is false) or a typed error. A
// program's call is judged by the core's data-flow guard (spec/data-flow.md: a run that read a
// private connector sending to an egress one is a flow, asked of the person as a write is, or
// refused `data_flow_requires_approval`), and its call to a tool that may write, or its flow, is
// gated by its run's approvals (`approve`: the person is asked,
// or the call is refused) before it goes on down this same path; every gate is judged again (one
// function, judge) once the person has answered, since the wait may have changed any of them, and
// a result that comes back from a connector a reload stopped meanwhile is not delivered. And the one
// path a downstream app's UI document is read by (readAppResource, redacted the same way), and a connector's prompts
// (askPrompts: calls/prompts.ts shapes them). It alone holds the Downstream port (app.ts grants it
// from the registry, wrapped in an opaque DownstreamAccess that only this file can open): no other
// file can obtain a connector to call.
import type { Core } from "../decisions/core.js";
import type { Catalog, Located } from "../catalog/catalog.js";
import type { CatalogEntry } from "../catalog/entry.js";
import type { ToolResult } from "../connectors/downstream-shapes.js";
import { AtriumError } from "../support/errors.js";
import { AppCall, AppCallReason, AppRelation, Budget, BudgetCheck, DataFlow, Egress, PinAnswer, PinReason, PrivateRead, ToolClass } from "../decisions/generated/spec.js";
import { appCallReasonText, pinReasonText, quarantinedNextText } from "../decisions/messages.js";
import { approvalRequired, dataFlowRefused } from "./approval-refusal.js";
import type { RunFlow } from "./run-flow.js";
import { codeName } from "../decisions/code-names.js";
import { CallTrace } from "../activity/call-trace.js";
import type { ActivitySink, CallPath } from "../activity/events.js";
import { NO_PIN_FACTS } from "../pins/facts.js";
import type { RawProgress } from "./downstream-progress.js";
import { callsInFlight, type RunOfCall } from "./calls-in-flight.js";
import type { Principal } from "../support/principal.js";
import { redactResourceAnswer, redactToolResult } from "../results/secrets/redact.js";

export interface InvokeRequest {
  /** Who this call acts for (support/principal.ts), from the request's context: what per-request state is keyed by. */
  principal: Principal;
  address: unknown;
  /** The address already read by the catalog (a batch reads its items' addresses first): judged as it, before any question. */
  located?: Located;
  args: unknown;
  /** Only call_destructive_tool sets this; every other path runs read-only tools only. */
  allowApproval: boolean;
  /** A program's call: a tool that may write, or a flow (`flowFrom`: the private connectors the run
   * read), runs only once this resolves (the person approved it, or a standing grant of the run
   * covers it); it throws the refusal otherwise. */
  approve?: (entry: CatalogEntry, args: Record<string, unknown>, argsJson: string, flowFrom?: readonly string[]) => Promise<void>;
  /** A program's call: what its run has read from private connectors (spec/data-flow.md); this call is recorded there once cleared. */
  flow?: RunFlow;
  /** The connector whose app made this call (call_app_tool): the core's app rules (A1–A5) judge it instead of the read-only gate. */
  fromApp?: string;
  signal?: AbortSignal;
  /** The time the caller has left (a program: its run's wall clock); the connector caps its own
   * deadline by it, so a call never outlives its caller. */
  timeLeftMs?: () => number;
  /** How the call came in, for the activity log (default: direct, or app when fromApp is set). */
  path?: CallPath;
  /** A direct call whose host asked for progress: the downstream's progress notifications, unchecked (calls/downstream-progress.ts checks them). */
  onProgress?: (progress: RawProgress) => void;
  /** A program's call: its run, whose question a downstream's question asked meanwhile may be (P13, calls/calls-in-flight.ts). */
  run?: RunOfCall;
}
export interface Invoked { entry: CatalogEntry; result: ToolResult; durationMs: number }
export interface InvokeContext { catalog: Catalog; core: Core; downstream: DownstreamAccess; callPayloadBytes: number; activity?: ActivitySink }

/** One connector as this file reaches it, as it is now (a reload may replace it: a link stays with the one it named). */
export interface DownstreamLink {
  call(name: string, args: Record<string, unknown>, opts: { timeLeftMs?: number; signal?: AbortSignal; onprogress?: (progress: RawProgress) => void }): Promise<ToolResult>;
  readResource(uri: string, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>>;
  prompts(method: "prompts/list" | "prompts/get", params: Record<string, unknown>, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>>;
  /** Its server of the current connection offers prompts. */
  offersPrompts(): boolean;
  ready(): boolean;
  /** A reload stopped it (its calls in flight end unavailable). */
  stopped(): boolean;
  /** Its results reach atrium's callers with their credentials redacted (the connector's `redactSecrets`, on unless the operator set it false). */
  redactsSecrets(): boolean;
  unavailable(): AtriumError;
}
/** The port to the downstream servers: the connector with this id now, as `owner` reaches it (a per-user connector: that principal's own login), if atrium has one. Only this file names it. */
export interface Downstream { link(connectorId: string, owner: string): DownstreamLink | undefined }

/** The Downstream port, closed: every other file passes it along, none can open it. */
export class DownstreamAccess {
  readonly #port: Downstream;
  private constructor(port: Downstream) { this.#port = port; }
  /** The composition root's grant (app.ts, from the registry; a test, from its fake). */
  static grant(port: Downstream): DownstreamAccess { return new DownstreamAccess(port); }
  static link(access: DownstreamAccess, connectorId: string, owner: string): DownstreamLink | undefined { return access.#port.link(connectorId, owner); }
}

export async function invoke(ctx: InvokeContext, req: InvokeRequest): Promise<Invoked> {
  // The activity log records each resolved call once, with its outcome (glue/activity/call-trace.ts).
  return new CallTrace(ctx.activity, req.path ?? (req.fromApp !== undefined ? "app" : "direct")).around((trace) => invokeTraced(ctx, req, trace));
}

async function invokeTraced(ctx: InvokeContext, req: InvokeRequest, trace: CallTrace): Promise<Invoked> {
  let cleared = await judge(ctx, req, trace, false);
  if (cleared.ask) {
    await cleared.ask(cleared.entry, cleared.args, cleared.argsJson);
    // An answer that arrives once the run has ended runs nothing.
    req.signal?.throwIfAborted();
    // What the person answered was asked about the world before the wait: every gate that can
    // change meanwhile (a pin quarantined, a reload that removed the tool, its connector or its
    // read-only promotion) is judged again, the person's answer standing in for the question.
    cleared = await judge(ctx, req, trace, true);
  }
  const { entry, args } = cleared;
  // A call every gate let through counts as a read of its connector, whatever it answers (spec/data-flow.md).
  if (entry.privateData) req.flow?.reading(entry.connectorId);
  const connector = DownstreamAccess.link(ctx.downstream, entry.connectorId, ctx.catalog.owner);
  // The catalog resolved it a moment ago; a connector gone since is a reload's: unavailable, as a stopped one is.
  if (!connector) throw new AtriumError("unavailable", `connector ${entry.connectorId} has been stopped`, { details: { connector: entry.connectorId }, recovering: false });
  const started = trace.start();
  const leave = callsInFlight.enter(entry.connectorId, req.run);
  let result: ToolResult;
  try {
    result = await connector.call(entry.name, args, { timeLeftMs: req.timeLeftMs?.(), signal: req.signal, ...(req.onProgress && { onprogress: req.onProgress }) });
  } finally {
    leave();
  }
  // A reload that removed or replaced the connector while the call was out ends it `unavailable`
  // (docs/reference.md, Live reload), even when the server still answered on its way out.
  if (connector.stopped()) throw connector.unavailable();
  const durationMs = performance.now() - started;
  return { entry, result: await withoutSecrets(connector, entry.address, result, redactToolResult), durationMs };
}

/** What a connector answered, its credentials redacted when the connector redacts; a scan that fails passes nothing on. */
async function withoutSecrets<T>(connector: DownstreamLink, what: string, answer: T, redact: (answer: T) => Promise<T>): Promise<T> {
  if (!connector.redactsSecrets()) return answer;
  try {
    return await redact(answer);
  } catch {
    throw new AtriumError("connector_call_failed", `the answer of ${what} could not be checked for secrets, so it is not passed on`);
  }
}

/** A call every gate let through: what to call, and (before the question only) the approval it still needs. */
interface Cleared {
  entry: CatalogEntry;
  args: Record<string, unknown>;
  argsJson: string;
  ask?: (entry: CatalogEntry, args: Record<string, unknown>, argsJson: string) => Promise<void>;
}

/** F1–F4: for a program's call, the core's data-flow answer; `flowFrom` set when the call is a flow. Outside a program (no run's flow), the class alone. */
function flowOf(ctx: InvokeContext, req: InvokeRequest, entry: CatalogEntry): { needsPerson: boolean; flowFrom?: readonly string[] } {
  const safety = entry.safety === "read_only" ? ToolClass.read_only : ToolClass.approval;
  if (!req.flow) return { needsPerson: safety === ToolClass.approval };
  const reads = req.flow.privateReads;
  const d = ctx.core.dataFlow({ privateRead: reads.length > 0 ? PrivateRead.read : PrivateRead.none, egress: entry.egress === true ? Egress.yes : Egress.no, safety });
  if (d === DataFlow.invalid_facts) throw dataFlowRefused(entry, reads, "invalid_facts");
  return d === DataFlow.approve_flow ? { needsPerson: true, flowFrom: reads } : { needsPerson: d === DataFlow.approve_write };
}

/**
 * Every gate of a call, in order, on the catalog as it is now: the named connector settled → the
 * address resolved → the pin gate → the arguments → the app or read-only gate → the payload. Run
 * before any question and again after the person's answer (`approved`), so no gate is judged on
 * a world the wait has changed.
 */
async function judge(ctx: InvokeContext, req: InvokeRequest, trace: CallTrace, approved: boolean): Promise<Cleared> {
  // The address is read once (the catalog's locate); only the connector it names is waited for: a start in progress, a changing listing.
  const at = (!approved && req.located) || ctx.catalog.locate(req.address);
  const named = at.view;
  if (named) {
    await named.whenSettled(req.signal);
    if (named.refreshing) throw named.listingUnsettled();
  }
  const { entry } = at.resolve();
  trace.resolved(entry.connectorId, entry.name);
  pinGate(ctx, entry);
  const raw = req.args === undefined ? {} : req.args;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new AtriumError("invalid_args", `args for ${entry.address} must be an object`, { details: { address: entry.address } });
  }
  const args = raw as Record<string, unknown>;
  const argsJson = JSON.stringify(args);
  const flow = req.fromApp === undefined ? flowOf(ctx, req, entry) : { needsPerson: false };
  const needsAnswer = req.fromApp === undefined && flow.needsPerson && !req.allowApproval;
  const approve = req.approve;
  const ask = needsAnswer && !approved && approve ? (e: CatalogEntry, a: Record<string, unknown>, j: string) => approve(e, a, j, flow.flowFrom) : undefined;
  if (req.fromApp !== undefined) appGate(ctx, entry, req.fromApp);
  else if (needsAnswer && !approved && !ask) throw flow.flowFrom ? dataFlowRefused(entry, flow.flowFrom, "no_question") : approvalRequired(entry, args, argsJson);
  // Before any question: the person is not asked about a call whose payload would be refused anyway.
  payloadWithin(ctx, entry, argsJson);
  return { entry, args, argsJson, ask };
}

function payloadWithin(ctx: InvokeContext, entry: CatalogEntry, argsJson: string): void {
  const bytes = Buffer.byteLength(argsJson);
  if (ctx.core.budgetCheck(Budget.call_payload_bytes, 0, bytes, ctx.callPayloadBytes) !== BudgetCheck.ok) {
    throw new AtriumError("budget_exceeded", `args for ${entry.address} are ${bytes} bytes; the call_payload_bytes budget allows ${ctx.callPayloadBytes}`, { details: { budget: "call_payload_bytes", limit: ctx.callPayloadBytes, requested: bytes, room: ctx.callPayloadBytes } });
  }
}

/** N1–N8: a quarantined tool is refused, whichever path asked; the error names the change and the command that reviews it. */
function pinGate(ctx: InvokeContext, entry: CatalogEntry): void {
  const d = ctx.core.pinGate(entry.pin?.facts ?? NO_PIN_FACTS);
  if (d.answer !== PinAnswer.quarantined) return;
  const reason = codeName(PinReason, d.reason) ?? "invalid_facts";
  const change = entry.pin?.quarantined?.change;
  throw new AtriumError("quarantined", `${entry.address} is quarantined: ${pinReasonText[reason]}${change ? ` (${change})` : ""}; ${quarantinedNextText(entry.connectorId, entry.name)}`, {
    details: { address: entry.address, reason, review: "atrium pins", accept: `atrium pins accept ${entry.connectorId} ${entry.name}`, ...(entry.pin?.quarantined?.flags.length && { flags: entry.pin.quarantined.flags.map((f) => f.reason) }) },
    nextAction: { tool: "search_tools", arguments: { query: "", connector: entry.connectorId }, purpose: `meanwhile, find another tool; ${entry.name} stays quarantined until a person runs \`atrium pins accept ${entry.connectorId} ${entry.name}\`` },
  });
}

/** A1–A5: a downstream app's call runs only as the core decides; a refusal says why. */
function appGate(ctx: InvokeContext, entry: CatalogEntry, app: string): void {
  const relation = entry.connectorId === app ? AppRelation.same : AppRelation.other;
  const d = ctx.core.appCall(relation, entry.appVisibility, entry.safety === "read_only" ? ToolClass.read_only : ToolClass.approval, entry.appWrites);
  if (d.answer === AppCall.allowed) return;
  const reason = codeName(AppCallReason, d.reason) ?? "invalid_facts";
  throw new AtriumError("app_call_refused", `${app}'s app may not call ${entry.address}: ${appCallReasonText[reason]}`, { details: { address: entry.address, app, reason } });
}

/**
 * A downstream app's UI document, as its connector answers resources/read (waiting, bounded,
 * for that connector alone to settle); undefined when atrium has no such connector.
 */
export async function readAppResource(ctx: Pick<InvokeContext, "catalog" | "downstream">, connectorId: string, uri: string, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
  const view = ctx.catalog.viewOf(`${connectorId}.`);
  if (!view) return undefined;
  await view.whenSettled(signal);
  const connector = DownstreamAccess.link(ctx.downstream, view.id, ctx.catalog.owner);
  if (!connector) return undefined;
  return withoutSecrets(connector, `${view.id} ${uri}`, await connector.readResource(uri, { signal }), redactResourceAnswer);
}

/**
 * One prompts/list page or prompts/get of connector `connectorId`, as it answers (`wait`: for a
 * prompts/get, waiting, bounded, for that connector alone to settle); undefined when atrium has
 * no such connector or its ready server offers no prompts; a connector that is not ready throws
 * its typed `unavailable`.
 */
export async function askPrompts(ctx: Pick<InvokeContext, "catalog" | "downstream">, connectorId: string, method: "prompts/list" | "prompts/get", params: Record<string, unknown>, opts: { wait: boolean; signal?: AbortSignal }): Promise<Record<string, unknown> | undefined> {
  const view = ctx.catalog.viewOf(`${connectorId}.`);
  if (!view) return undefined;
  if (opts.wait) await view.whenSettled(opts.signal);
  const connector = DownstreamAccess.link(ctx.downstream, view.id, ctx.catalog.owner);
  if (!connector) return undefined;
  if (connector.ready() && !connector.offersPrompts()) return undefined;
  return connector.prompts(method, params, { signal: opts.signal });
}
