// The host side of one program run: every host call a program makes lands here, is counted
// against the run's budgets through the core, and goes through the same paths as the direct
// tools (search index, invoke.ts). Failures become typed errors the guest receives. Each call
// lives within its run (RunScope): aborted when the run ends, and given no more time than the run has left.
import type { Core } from "../decisions/core.js";
import type { Catalog } from "../catalog/catalog.js";
import { describeTool, findTools } from "../calls/discovery.js";
import { invoke } from "../calls/invoke.js";
import { unwrapToolResult } from "../results/unwrap.js";
import { AtriumError, asAtriumError, overBudget } from "../support/errors.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import type { HostCall } from "./protocol.js";
import type { RunScope } from "./pool.js";
import { DESCRIBE_PAYLOAD_CHARS, MAX_DESCRIBE, batchCallsOver, batchNotArray, checkDepth, describeTooLarge, hostCallsOver, payloadOver, searchQueryOver } from "./host-gate.js";
import { cutText } from "../support/text/clip.js";

export interface BridgeLimits { hostCalls: number; batchCalls: number; callPayloadBytes: number }
export interface OpStats { count: number; failures: number; bytesIn: number; bytesOut: number; ms: number }

export class RunBridge {
  hostCalls = 0;
  completed = 0;
  readonly stats: Record<string, OpStats> = {};

  constructor(
    private readonly deps: { core: Core; catalog: Catalog },
    private readonly limits: BridgeLimits,
    private readonly onProgress?: (completed: number) => void,
  ) {}

  async handle(call: HostCall, run: RunScope): Promise<{ ok: boolean; json: string }> {
    const started = performance.now();
    const s = (this.stats[call.op] ??= { count: 0, failures: 0, bytesIn: 0, bytesOut: 0, ms: 0 });
    s.count++;
    s.bytesIn += call.json.length;
    let reply: { ok: boolean; json: string };
    try {
      this.checkSize(call);
      const payload = JSON.parse(call.json) as Record<string, unknown> | null;
      const value = await this.dispatch(call.op, payload ?? {}, run);
      reply = { ok: true, json: value instanceof Measured ? value.json : JSON.stringify(value === undefined ? null : value) };
    } catch (e) {
      s.failures++;
      reply = { ok: false, json: JSON.stringify(this.errorBody(e)) };
    }
    s.bytesOut += reply.json.length;
    s.ms += performance.now() - started;
    this.completed++;
    if (!run.signal.aborted) this.onProgress?.(this.completed); // never after the run's answer
    return reply;
  }

  /** The worker's size and nesting bounds, checked again before the payload is parsed (host-gate.ts). */
  private checkSize(call: HostCall): void {
    if (call.op === "describe" && call.json.length > DESCRIBE_PAYLOAD_CHARS) throw describeTooLarge(call.json.length);
    if (call.op === "call" || call.op === "batch") {
      const bytes = Buffer.byteLength(call.json);
      if (this.deps.core.budgetCheck(Budget.call_payload_bytes, 0, bytes, this.limits.callPayloadBytes) !== BudgetCheck.ok) throw payloadOver(this.limits.callPayloadBytes, bytes);
    }
    checkDepth(this.deps.core, call.op, call.json, this.deps.core.limitDefault(Budget.request_depth));
  }

  /** A typed error body whose message is cut at error_text_chars (a downstream's message can be any length). */
  private errorBody(e: unknown) {
    const body = asAtriumError(e).toJSON();
    return { ...body, message: cutText(body.message, this.deps.core.limitDefault(Budget.error_text_chars)) };
  }

  private spend(n: number): void {
    const check = this.deps.core.budgetCheck(Budget.host_calls, this.hostCalls, n, this.limits.hostCalls);
    if (check !== BudgetCheck.ok) throw hostCallsOver(this.limits.hostCalls, this.hostCalls, n);
    this.hostCalls += n;
  }

  private async dispatch(op: HostCall["op"], p: Record<string, unknown>, run: RunScope): Promise<unknown> {
    switch (op) {
      case "search": return this.search(p);
      case "describe": return this.describe(p.addresses);
      case "call": this.spend(1); return this.callOne(p.address, p.args, run);
      case "batch": return this.batch(p.items, run);
    }
  }

  private search(p: Record<string, unknown>) {
    const limit = this.deps.core.limitDefault(Budget.search_query_chars);
    if (typeof p.query === "string" && this.deps.core.budgetCheck(Budget.search_query_chars, 0, p.query.length, limit) !== BudgetCheck.ok) throw searchQueryOver(limit, p.query.length);
    this.spend(1);
    if (typeof p.query !== "string") throw new AtriumError("invalid_args", "atrium.search(query): query must be a string");
    const o = (typeof p.options === "object" && p.options !== null ? p.options : {}) as Record<string, unknown>;
    return findTools(this.deps.catalog, {
      query: p.query,
      connector: typeof o.connector === "string" ? o.connector : undefined,
      safety: o.safety === "read_only" || o.safety === "approval" ? o.safety : "any",
      limit: typeof o.limit === "number" ? o.limit : undefined,
      offset: typeof o.offset === "number" ? o.offset : undefined,
    });
  }

  private describe(addresses: unknown) {
    this.spend(1);
    const one = typeof addresses === "string";
    const list = one ? [addresses] : addresses;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_DESCRIBE) throw new AtriumError("invalid_args", `atrium.describe takes an address or an array of 1 to ${MAX_DESCRIBE} addresses`);
    const out = list.map((address) => {
      try {
        return describeTool(this.deps.catalog, address);
      } catch (e) {
        return { ok: false, address: typeof address === "string" ? address : null, error: this.errorBody(e) };
      }
    });
    return one ? out[0] : out;
  }

  /** A downstream value as the JSON it was measured in: serialized once on its way to the program. */
  private async callOne(address: unknown, args: unknown, run: RunScope): Promise<Measured> {
    const { entry, result } = await invoke({ catalog: this.deps.catalog, core: this.deps.core, callPayloadBytes: this.limits.callPayloadBytes }, { address, args, allowApproval: false, signal: run.signal, timeLeftMs: run.msLeft });
    const u = unwrapToolResult(result);
    if (!u.ok) throw new AtriumError("connector_call_failed", `${entry.address} reported an error: ${u.error.message}`, { details: { address: entry.address } });
    let json: string;
    try { json = JSON.stringify(u.data) ?? "null"; } catch { throw new AtriumError("connector_call_failed", `${entry.address} returned a value that cannot be passed to the program (nested too deeply)`, { details: { address: entry.address } }); }
    const bytes = Buffer.byteLength(json);
    if (this.deps.core.budgetCheck(Budget.call_payload_bytes, 0, bytes, this.limits.callPayloadBytes) !== BudgetCheck.ok) {
      throw overBudget("call_payload_bytes", this.limits.callPayloadBytes, 0, bytes, `the result of ${entry.address} is ${bytes} bytes; ask the tool for less (filters, paging, fields)`);
    }
    return new Measured(json);
  }

  private async batch(items: unknown, run: RunScope): Promise<Measured | never[]> {
    if (!Array.isArray(items)) throw batchNotArray();
    if (items.length === 0) return [];
    if (this.deps.core.budgetCheck(Budget.batch_calls, 0, items.length, this.limits.batchCalls) !== BudgetCheck.ok) throw batchCallsOver(this.limits.batchCalls, items.length);
    this.spend(items.length); // all or nothing: no item runs when the run cannot afford them all
    const outcomes = await Promise.all(items.map(async (item) => {
      try {
        if (typeof item !== "object" || item === null) throw new AtriumError("invalid_args", "each batch item is { address, args }");
        const { address, args } = item as Record<string, unknown>;
        return `{"ok":true,"data":${(await this.callOne(address, args, run)).json}}`;
      } catch (e) {
        return JSON.stringify({ ok: false, error: this.errorBody(e) });
      }
    }));
    return new Measured(`[${outcomes.join(",")}]`);
  }
}

/** A reply already serialized (and measured against its budget): sent as is. */
class Measured {
  constructor(readonly json: string) {}
}
