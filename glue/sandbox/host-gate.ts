// Admission of a program's host calls in the sandbox worker, before anything crosses to the main
// thread: the payload's size first (measured without copying it out of the guest), then its
// nesting, then the run's host-call count. These are the bridge's rules (the bridge checks them
// again), so only calls the bridge would run cross: a flood or an oversized argument costs the
// main thread nothing. Every refusal is a typed error naming its budget, and spends nothing.
import type { Core } from "../decisions/core.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import { AtriumError, overBudget } from "../support/errors.js";
import type { WorkerLimits } from "./run-limits.js";
import type { HostCall } from "./protocol.js";
import { jsonDepth } from "./json-depth.js";

/** Addresses one atrium.describe takes. */
export const MAX_DESCRIBE = 50;
/** A generous bound on one address, for the size of a describe request. */
const ADDRESS_CHARS = 1024;
/** Serialized search options (connector, safety, limit, offset) are small. */
const SEARCH_OPTIONS_CHARS = 2048;
/** A JSON string literal is at most 6 characters per character (\uXXXX). */
const JSON_ESCAPE = 6;

export const hostCallsOver = (limit: number, used: number, requested: number) =>
  overBudget("host_calls", limit, used, requested, "do fewer calls per program (batch related reads) or split the work");
export const batchCallsOver = (limit: number, requested: number) =>
  overBudget("batch_calls", limit, 0, requested, "split the batch; a batch over batch_calls is refused as a whole and none of its items runs");
export const batchNotArray = () => new AtriumError("invalid_args", "atrium.batch takes an array of { address, args }; it is refused as a whole and none of it runs");
export const payloadOver = (limit: number, bytes: number) =>
  overBudget("call_payload_bytes", limit, 0, bytes, "pass less (ids, filters, paging) and let the tool fetch the rest");
export const describeTooLarge = (chars: number) =>
  new AtriumError("invalid_args", `atrium.describe takes an address or an array of 1 to ${MAX_DESCRIBE} addresses; this request is ${chars} characters serialized`);
/** The most characters a describe request may have serialized. */
export const DESCRIBE_PAYLOAD_CHARS = MAX_DESCRIBE * ADDRESS_CHARS;
export const searchQueryOver = (limit: number, chars: number) =>
  overBudget("search_query_chars", limit, 0, chars, "search with a few words");

/** Levels the prelude's own envelope adds around what the program passed ({ args } or { items: [{ args }] }). */
const ENVELOPE_DEPTH: Record<HostCall["op"], number> = { search: 1, describe: 1, call: 1, batch: 3 };

/** What a program passed nests no deeper than request_depth (the bound every JSON-RPC message atrium handles keeps). */
export function checkDepth(core: Core, op: HostCall["op"], json: string, limit: number): void {
  const depth = Math.max(0, jsonDepth(json) - ENVELOPE_DEPTH[op]);
  if (core.budgetCheck(Budget.request_depth, 0, depth, limit) !== BudgetCheck.ok) throw overBudget("request_depth", limit, 0, depth, `what the program passed nests ${depth} levels deep; flatten it`);
}

/** One call's payload as the gate sees it: its length, a reader for its text, and the prelude's hint (a search's query length). */
export interface Payload { chars: number; read(): string; queryChars: number }

export class HostGate {
  /** Host calls admitted so far this run (each batch item is one). */
  used = 0;

  constructor(private readonly core: Core, private readonly limits: WorkerLimits) {}

  /** The payload's text when the call may cross, else the typed refusal. */
  admit(op: HostCall["op"], p: Payload): { json: string } | { refused: AtriumError } {
    try {
      return { json: this.check(op, p) };
    } catch (e) {
      if (e instanceof AtriumError) return { refused: e };
      throw e;
    }
  }

  /** Size, then nesting, then the host-call count: only an admitted call spends. */
  private check(op: HostCall["op"], p: Payload): string {
    const l = this.limits;
    let json: string, calls = 1;
    switch (op) {
      case "search":
        if (p.queryChars >= 0 && this.core.budgetCheck(Budget.search_query_chars, 0, p.queryChars, l.searchQueryChars) !== BudgetCheck.ok) throw searchQueryOver(l.searchQueryChars, p.queryChars);
        if (p.chars > l.searchQueryChars * JSON_ESCAPE + SEARCH_OPTIONS_CHARS) throw new AtriumError("invalid_args", `atrium.search(query, options): the request is ${p.chars} characters serialized; a query has at most ${l.searchQueryChars} characters and options are only connector, safety, limit and offset`);
        json = p.read();
        break;
      case "describe":
        if (p.chars > DESCRIBE_PAYLOAD_CHARS) throw describeTooLarge(p.chars);
        json = p.read();
        break;
      case "call":
        json = this.sized(p);
        break;
      case "batch": {
        json = this.sized(p);
        const items = (JSON.parse(json) as { items?: unknown }).items;
        if (!Array.isArray(items)) throw batchNotArray();
        if (this.core.budgetCheck(Budget.batch_calls, 0, items.length, l.batchCalls) !== BudgetCheck.ok) throw batchCallsOver(l.batchCalls, items.length);
        calls = items.length; // all or nothing, like the bridge
        break;
      }
    }
    checkDepth(this.core, op, json, l.requestDepth);
    this.spend(calls);
    return json;
  }

  /** A call or batch payload within call_payload_bytes (UTF-8 bytes are never fewer than UTF-16 units). */
  private sized(p: Payload): string {
    const limit = this.limits.callPayloadBytes;
    if (this.core.budgetCheck(Budget.call_payload_bytes, 0, p.chars, limit) !== BudgetCheck.ok) throw payloadOver(limit, p.chars);
    const json = p.read();
    const bytes = Buffer.byteLength(json);
    if (this.core.budgetCheck(Budget.call_payload_bytes, 0, bytes, limit) !== BudgetCheck.ok) throw payloadOver(limit, bytes);
    return json;
  }

  /** The last host_calls refusal: a flood past the budget is refused with one error, built once. */
  private over?: { n: number; error: AtriumError };

  private spend(n: number): void {
    if (this.core.budgetCheck(Budget.host_calls, this.used, n, this.limits.hostCalls) !== BudgetCheck.ok) {
      if (this.over?.n !== n) this.over = { n, error: hostCallsOver(this.limits.hostCalls, this.used, n) };
      throw this.over.error;
    }
    this.used += n;
  }
}
