// The main thread's side of one program run. Every host call a program makes is answered here,
// dispatched through the host-op table (host-ops.ts) to the handler for its row: first `admit`,
// which spends what the call costs before its payload is parsed; then the payload is parsed, once;
// then `run`, which goes through the same paths as the direct tools (discovery, invoke.ts) and
// judges a view on the live catalog. A run's budgets are counted here alone, by its RunBudget
// (host_calls, emit_bytes, emit_blocks; batch_calls bounds one batch); the worker only bounded
// each request's size and shape. Failures become typed errors the guest receives. Each call lives
// within its run (RunScope): aborted when the run ends, given no more time than the run has left.
// A call to a tool that may write goes through the run's approvals (calls/approvals.ts) on its way
// down invoke.ts: asked of the person, run under a standing grant, or refused.
import { isJsonObject } from "../support/json-object.js";
import type { Core } from "../decisions/core.js";
import type { Catalog, Located } from "../catalog/catalog.js";
import type { CatalogEntry } from "../catalog/entry.js";
import type { BudgetName } from "../decisions/generated/spec.js";
import { APPROVAL_REASON_CHARS_MAX, Budget, SEARCH_PHRASINGS_MAX } from "../decisions/generated/spec.js";
import type { RunApprovals } from "../calls/approvals.js";
import type { ActivitySink } from "../activity/events.js";
import { describeSettled, searchCatalog, type SemanticSource } from "../calls/discovery.js";
import { invoke, type DownstreamAccess } from "../calls/invoke.js";
import { RunFlow, judgeViewReads } from "../calls/run-flow.js";
import type { Principal } from "../support/principal.js";
import { downstreamValue } from "../results/unwrap.js";
import { AtriumError, asAtriumError } from "../support/errors.js";
import { cutText } from "../support/text/clip.js";
import { HOST_OPS, MAX_DESCRIBE, spend, type HostCall, type HostOp, type HostOps, type Reply } from "./host-ops.js";
import type { HostSide, RunScope } from "./pool.js";
import { judgeView, type ViewPayload } from "./view-accept.js";
import { checkBlock } from "./emit-block.js";

export interface BridgeLimits { hostCalls: number; batchCalls: number; callPayloadBytes: number; emitBytes: number; emitBlocks: number }
export interface OpStats { count: number; failures: number; bytesIn: number; bytesOut: number; ms: number }
interface EmittedBlock { block: Record<string, unknown>; bytes: number }
/** What a run leaves for its result: the blocks it emitted and the view it declared. */
export interface RunOutput { emitted: EmittedBlock[]; view?: ViewPayload & { bytes: number } }

type Counted = "host_calls" | "emit_bytes" | "emit_blocks";
const HINTS: Partial<Record<BudgetName, string>> = {
  host_calls: "do fewer calls per program (batch related reads) or split the work",
  batch_calls: "split the batch; a batch over batch_calls is refused as a whole and none of its items runs",
};
const VIEW_SHARES = "the view payload shares the emitted-byte budget with emitted blocks";

/** A run's counted budgets: the one place a run's spending is added up, each amount only after the
 * core said it fits (host-ops.ts `spend`). */
class RunBudget {
  private readonly used: Record<Counted, number> = { host_calls: 0, emit_bytes: 0, emit_blocks: 0 };
  constructor(private readonly core: Core, private readonly limits: Record<Counted, number>) {}

  usedOf(b: Counted): number {
    return this.used[b];
  }

  /** Spends every charge or none: the first that does not fit is thrown, typed, and nothing is spent. */
  spend(charges: [Counted, number][], hint?: string): void {
    for (const [b, n] of charges) spend(this.core, b, this.limits[b], n, this.used[b], hint ?? HINTS[b]);
    for (const [b, n] of charges) this.used[b] += n;
  }

  /** The same question without spending: a payload that cannot fit is refused before it is parsed. */
  affords(b: Counted, n: number, hint?: string): void {
    spend(this.core, b, this.limits[b], n, this.used[b], hint ?? HINTS[b]);
  }
}

/** A reply already serialized (and measured against its budget): sent as is. */
class Measured<T> {
  declare readonly of?: T;
  constructor(readonly json: string) {}
}

/** One row's main-thread side: what it spends before the payload is parsed, then what it does. */
interface Handler<K extends HostOp> {
  admit(call: HostCall): void;
  run(args: HostOps[K]["args"], call: HostCall, run: RunScope): HostOps[K]["result"] | Measured<HostOps[K]["result"]> | Promise<Measured<HostOps[K]["result"]>>;
}

export class RunBridge implements HostSide {
  completed = 0;
  readonly stats: Record<string, OpStats> = {};
  readonly output: RunOutput = { emitted: [] };
  private readonly budget: RunBudget;
  /** What this run has read from private connectors (spec/data-flow.md). */
  private readonly flow = new RunFlow();

  constructor(
    private readonly deps: { core: Core; catalog: Catalog; downstream: DownstreamAccess; principal: Principal; activity?: ActivitySink; semantic?: SemanticSource },
    private readonly limits: BridgeLimits,
    private readonly onProgress?: (completed: number) => void,
    /** The run's approvals; without them a call to a tool that may write is refused as before. */
    private readonly approvals?: RunApprovals,
  ) {
    this.budget = new RunBudget(deps.core, { host_calls: limits.hostCalls, emit_bytes: limits.emitBytes, emit_blocks: limits.emitBlocks });
  }

  /** Host calls spent so far (each batch item is one). */
  get hostCalls(): number {
    return this.budget.usedOf("host_calls");
  }

  /** Bytes of emitted blocks and the view, spent so far. */
  get emittedBytes(): number {
    return this.budget.usedOf("emit_bytes");
  }

  answer(call: HostCall, run: RunScope): Reply | Promise<Reply> {
    const started = performance.now();
    const s = (this.stats[call.op] ??= { count: 0, failures: 0, bytesIn: 0, bytesOut: 0, ms: 0 });
    s.count++;
    s.bytesIn += call.json.length;
    const done = (reply: Reply): Reply => {
      if (!reply.ok) s.failures++;
      s.bytesOut += reply.json.length;
      s.ms += performance.now() - started;
      if (HOST_OPS[call.op].answer === "promise") {
        this.completed++;
        if (!run.signal.aborted) this.onProgress?.(this.completed); // never after the run's answer
      }
      return reply;
    };
    try {
      const handler = this.handlers[call.op] as Handler<HostOp>;
      handler.admit(call);
      const out = handler.run(this.parse(call), call, run);
      return out instanceof Promise ? out.then((v) => done(this.ok(v)), (e: unknown) => done(this.failed(e))) : done(this.ok(out));
    } catch (e) {
      return done(this.failed(e));
    }
  }

  /** The payload, parsed once. */
  private parse(call: HostCall): unknown {
    try {
      return JSON.parse(call.json);
    } catch {
      throw new AtriumError("invalid_args", HOST_OPS[call.op].unreadable ?? "the arguments are not serializable");
    }
  }

  private ok(value: unknown): Reply {
    return { ok: true, json: value instanceof Measured ? value.json : JSON.stringify(value === undefined ? null : value) };
  }

  private failed(e: unknown): Reply {
    return { ok: false, json: JSON.stringify(this.errorBody(e)) };
  }

  /** A typed error body whose message is cut at error_text_chars (a downstream's message can be any length). */
  private errorBody(e: unknown) {
    const body = asAtriumError(e).toJSON();
    return { ...body, message: cutText(body.message, this.deps.core.limitDefault(Budget.error_text_chars)) };
  }

  private readonly spendCalls = (call: HostCall) => this.budget.spend([["host_calls", call.calls]]);

  private readonly handlers: { readonly [K in HostOp]: Handler<K> } = {
    search: {
      admit: this.spendCalls,
      run: (p, _call, run) => {
        const list = Array.isArray(p.query) ? p.query : undefined;
        if (list && (list.length === 0 || list.length > SEARCH_PHRASINGS_MAX || !list.every((x) => typeof x === "string"))) {
          throw new AtriumError("invalid_args", `atrium.search([phrasings]): 1 to ${SEARCH_PHRASINGS_MAX} strings`);
        }
        if (!list && typeof p.query !== "string") throw new AtriumError("invalid_args", "atrium.search(query): query must be a string or an array of phrasings");
        const o = isJsonObject(p.options) ? p.options : {};
        return searchCatalog(this.deps.catalog, this.deps.semantic, {
          query: list ? "" : (p.query as string),
          ...(list && { queries: list as string[] }),
          connector: typeof o.connector === "string" ? o.connector : undefined,
          safety: o.safety === "read_only" || o.safety === "approval" ? o.safety : "any",
          limit: typeof o.limit === "number" ? o.limit : undefined,
          offset: typeof o.offset === "number" ? o.offset : undefined,
        }, run.signal).then((found) => new Measured<HostOps["search"]["result"]>(JSON.stringify(found)));
      },
    },
    describe: {
      admit: this.spendCalls,
      run: async ({ addresses }, _call, run) => {
        const one = typeof addresses === "string";
        const list = one ? [addresses] : addresses;
        if (!Array.isArray(list) || list.length === 0 || list.length > MAX_DESCRIBE) throw new AtriumError("invalid_args", `atrium.describe takes an address or an array of 1 to ${MAX_DESCRIBE} addresses`);
        // Each address's connector is waited for (its start, a changing listing), as a call waits.
        const out = await Promise.all(list.map(async (address: unknown) => {
          try {
            return await describeSettled(this.deps.catalog, address, run.signal);
          } catch (e) {
            return { ok: false as const, address: typeof address === "string" ? address : null, error: this.errorBody(e) };
          }
        }));
        return new Measured<HostOps["describe"]["result"]>(JSON.stringify(one ? out[0]! : out));
      },
    },
    call: {
      admit: this.spendCalls,
      run: (p, _call, run) => this.callOne(p.address, p.args, run, reasonOf(p.options)),
    },
    batch: {
      // All or nothing: a batch that is not an array, is over batch_calls, or costs more host calls
      // than the run has left is refused whole, before it is parsed, and none of its items runs.
      admit: (call) => {
        if (call.calls < 0) throw new AtriumError("invalid_args", "atrium.batch takes an array of { address, args }; it is refused as a whole and none of it runs");
        spend(this.deps.core, "batch_calls", this.limits.batchCalls, call.calls, 0, HINTS.batch_calls);
        this.spendCalls(call);
      },
      run: async ({ items }, call, run) => {
        // The prelude built the JSON item by item from the count it sent, so the two agree.
        if (!Array.isArray(items) || items.length !== call.calls) throw new AtriumError("unavailable", "the batch did not arrive as it was counted; try again");
        // A batch that holds a private read gates its egress items as after that read (spec/data-flow.md).
        // Each item's address is read here once, and judged as read.
        const located = items.map((item: unknown) => (isJsonObject(item) ? this.deps.catalog.locate(item.address) : undefined));
        for (const at of located) if (at?.view?.privateData) this.flow.reading(at.view.id);
        const outcomes = await Promise.all(items.map(async (item: unknown, i: number) => {
          try {
            if (typeof item !== "object" || item === null) throw new AtriumError("invalid_args", "each batch item is { address, args, reason? }");
            const { address, args, reason } = item as Record<string, unknown>;
            return `{"ok":true,"data":${(await this.callOne(address, args, run, reasonOf(reason === undefined ? undefined : { reason }), located[i])).json}}`;
          } catch (e) {
            return JSON.stringify({ ok: false, error: this.errorBody(e) });
          }
        }));
        return new Measured(`[${outcomes.join(",")}]`);
      },
    },
    ui: {
      // One view per run; a payload that cannot fit the emitted bytes left is refused before it is parsed.
      admit: (call) => {
        this.budget.affords("emit_bytes", call.chars, VIEW_SHARES);
        if (this.output.view) throw new AtriumError("invalid_args", "atrium.ui: one view per run; the first view stands");
      },
      run: (args) => {
        const payload = judgeView(this.deps.core, args, (address) => this.deps.catalog.classOf(address));
        const bound = Object.values(payload.reads ?? {}).map((b) => this.deps.catalog.resolve((b as { address: string }).address).entry);
        judgeViewReads(this.deps.core, this.flow, bound);
        const bytes = Buffer.byteLength(JSON.stringify(payload));
        this.budget.spend([["emit_bytes", bytes]], VIEW_SHARES);
        this.output.view = { ...payload, bytes };
        return null;
      },
    },
    emit: {
      admit: (call) => this.budget.affords("emit_bytes", call.chars),
      run: (value, call) => {
        const check = checkBlock(value);
        if (!check.ok) throw new AtriumError("invalid_args", check.message);
        const bytes = Buffer.byteLength(call.json);
        this.budget.spend([["emit_blocks", 1], ["emit_bytes", bytes]]);
        this.output.emitted.push({ block: check.block, bytes });
        return null;
      },
    },
  };

  /** A downstream value as the JSON it was measured in: serialized once on its way to the program. */
  private async callOne(address: unknown, args: unknown, run: RunScope, reason?: string, located?: Located): Promise<Measured<unknown>> {
    const approvals = this.approvals;
    const approve = approvals && ((entry: CatalogEntry, a: Record<string, unknown>, argsJson: string, flowFrom?: readonly string[]) => approvals.gate(entry, a, argsJson, reason, run, flowFrom));
    const { entry, result } = await invoke({ catalog: this.deps.catalog, core: this.deps.core, downstream: this.deps.downstream, callPayloadBytes: this.limits.callPayloadBytes, activity: this.deps.activity }, { principal: this.deps.principal, address, ...(located && { located }), args, allowApproval: false, approve, flow: this.flow, signal: run.signal, timeLeftMs: run.msLeft, path: "program", ...(approvals && { run: { approvals, clock: run } }) });
    const value = downstreamValue(entry.address, result);
    let json: string;
    try { json = JSON.stringify(value) ?? "null"; } catch { throw new AtriumError("connector_call_failed", `${entry.address} returned a value that cannot be passed to the program (nested too deeply)`, { details: { address: entry.address } }); }
    const bytes = Buffer.byteLength(json);
    spend(this.deps.core, "call_payload_bytes", this.limits.callPayloadBytes, bytes, 0, `the result of ${entry.address} is ${bytes} bytes; ask the tool for less (filters, paging, fields)`);
    return new Measured(json);
  }
}

/** atrium.call's third argument: absent, or { reason } with a string of at most APPROVAL_REASON_CHARS_MAX characters (shown to the person when the call is asked). */
function reasonOf(options: unknown): string | undefined {
  if (options === undefined || options === null) return undefined;
  const reason = isJsonObject(options) ? options.reason : undefined;
  if (!isJsonObject(options) || (reason !== undefined && typeof reason !== "string")) throw new AtriumError("invalid_args", "atrium.call(address, args, options): options is { reason } with reason a string");
  if (reason !== undefined && reason.length > APPROVAL_REASON_CHARS_MAX) throw new AtriumError("invalid_args", `atrium.call: options.reason is ${reason.length} characters; at most ${APPROVAL_REASON_CHARS_MAX} (say in a sentence why this call is needed)`);
  return reason;
}
