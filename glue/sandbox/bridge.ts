// The host side of one program run: every host call a program makes lands here, is counted
// against the run's budgets through the core, and goes through the same paths as the direct
// tools (search index, invoke.ts). Failures become typed errors the guest receives.
import { setMaxListeners } from "node:events";
import type { Core } from "../core.js";
import type { Catalog } from "../catalog/catalog.js";
import { searchIndex } from "../catalog/search-index.js";
import { shortDescription } from "../catalog/describe.js";
import { compactSchema } from "../catalog/compact-schema.js";
import { invoke } from "../invoke.js";
import { unwrapToolResult } from "../results/unwrap.js";
import { AtriumError, asAtriumError, overBudget } from "../errors.js";
import { Budget, BudgetCheck } from "../generated/spec.js";
import type { HostCall } from "./protocol.js";

export interface BridgeLimits { hostCalls: number; batchCalls: number; callPayloadBytes: number }
export interface OpStats { count: number; failures: number; bytesIn: number; bytesOut: number; ms: number }

const MAX_DESCRIBE = 50;

export class RunBridge {
  hostCalls = 0;
  completed = 0;
  readonly stats: Record<string, OpStats> = {};

  constructor(
    private readonly deps: { core: Core; catalog: Catalog },
    private readonly limits: BridgeLimits,
    private readonly signal: AbortSignal,
    private readonly onProgress?: (completed: number) => void,
  ) {
    // Each downstream request listens on the run's signal; a run may make hostCalls of them.
    setMaxListeners(limits.hostCalls + 16, signal);
  }

  async handle(call: HostCall): Promise<{ ok: boolean; json: string }> {
    const started = performance.now();
    const s = (this.stats[call.op] ??= { count: 0, failures: 0, bytesIn: 0, bytesOut: 0, ms: 0 });
    s.count++;
    s.bytesIn += call.json.length;
    let reply: { ok: boolean; json: string };
    try {
      const payload = JSON.parse(call.json) as Record<string, unknown> | null;
      const value = await this.dispatch(call.op, payload ?? {});
      reply = { ok: true, json: JSON.stringify(value === undefined ? null : value) };
    } catch (e) {
      s.failures++;
      reply = { ok: false, json: JSON.stringify(asAtriumError(e).toJSON()) };
    }
    s.bytesOut += reply.json.length;
    s.ms += performance.now() - started;
    this.onProgress?.(++this.completed);
    return reply;
  }

  private spend(n: number): void {
    const check = this.deps.core.budgetCheck(Budget.host_calls, this.hostCalls, n, this.limits.hostCalls);
    if (check !== BudgetCheck.ok) throw overBudget("host_calls", this.limits.hostCalls, this.hostCalls, n, "do fewer calls per program (batch related reads) or split the work");
    this.hostCalls += n;
  }

  private async dispatch(op: HostCall["op"], p: Record<string, unknown>): Promise<unknown> {
    switch (op) {
      case "search": return this.search(p);
      case "describe": return this.describe(p.addresses);
      case "call": this.spend(1); return this.callOne(p.address, p.args);
      case "batch": return this.batch(p.items);
    }
  }

  private search(p: Record<string, unknown>) {
    this.spend(1);
    if (typeof p.query !== "string") throw new AtriumError("invalid_args", "atrium.search(query): query must be a string");
    const o = (typeof p.options === "object" && p.options !== null ? p.options : {}) as Record<string, unknown>;
    const { rows, total } = searchIndex(this.deps.catalog.index(), {
      query: p.query,
      connector: typeof o.connector === "string" ? o.connector : undefined,
      safety: o.safety === "read_only" || o.safety === "approval" ? o.safety : "any",
      limit: typeof o.limit === "number" ? o.limit : undefined,
      offset: typeof o.offset === "number" ? o.offset : undefined,
    });
    return { total, results: rows.map(({ entry, score }) => ({ address: entry.address, description: shortDescription(entry), safety: entry.safety, score })) };
  }

  private describe(addresses: unknown) {
    this.spend(1);
    const one = typeof addresses === "string";
    const list = one ? [addresses] : addresses;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_DESCRIBE) throw new AtriumError("invalid_args", `atrium.describe takes an address or an array of 1 to ${MAX_DESCRIBE} addresses`);
    const out = list.map((address) => {
      try {
        const { entry } = this.deps.catalog.resolve(address);
        return { ok: true, address: entry.address, title: entry.title, description: entry.description, safety: entry.safety, reason: entry.reason, inputSchema: compactSchema(entry.inputSchema) };
      } catch (e) {
        return { ok: false, address: typeof address === "string" ? address : null, error: asAtriumError(e).toJSON() };
      }
    });
    return one ? out[0] : out;
  }

  private async callOne(address: unknown, args: unknown): Promise<unknown> {
    const { entry, result } = await invoke({ catalog: this.deps.catalog, core: this.deps.core, callPayloadBytes: this.limits.callPayloadBytes }, { address, args, allowApproval: false, signal: this.signal });
    const u = unwrapToolResult(result);
    if (!u.ok) throw new AtriumError("connector_call_failed", `${entry.address} reported an error: ${u.error.message}`, { details: { address: entry.address } });
    const bytes = Buffer.byteLength(JSON.stringify(u.data) ?? "");
    if (this.deps.core.budgetCheck(Budget.call_payload_bytes, 0, bytes, this.limits.callPayloadBytes) !== BudgetCheck.ok) {
      throw overBudget("call_payload_bytes", this.limits.callPayloadBytes, 0, bytes, `the result of ${entry.address} is ${bytes} bytes; ask the tool for less (filters, paging, fields)`);
    }
    return u.data;
  }

  private async batch(items: unknown) {
    if (!Array.isArray(items) || items.length === 0) throw new AtriumError("invalid_args", "atrium.batch takes a non-empty array of { address, args }");
    if (this.deps.core.budgetCheck(Budget.batch_calls, 0, items.length, this.limits.batchCalls) !== BudgetCheck.ok) throw overBudget("batch_calls", this.limits.batchCalls, 0, items.length);
    this.spend(items.length); // all or nothing: no item runs when the run cannot afford them all
    return Promise.all(items.map(async (item) => {
      try {
        if (typeof item !== "object" || item === null) throw new AtriumError("invalid_args", "each batch item is { address, args }");
        const { address, args } = item as Record<string, unknown>;
        return { ok: true, data: await this.callOne(address, args) };
      } catch (e) {
        return { ok: false, error: asAtriumError(e).toJSON() };
      }
    }));
  }
}
