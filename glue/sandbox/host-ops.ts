// The host-call protocol, in one table both threads read. Every operation a program can ask of
// the host is a row: its arguments and result (the types below), how the program receives the
// answer, the size and shape bounds the worker checks before anything is read out of the guest or
// crosses, and the host calls it spends. The worker (worker.ts) sends through this table; the main
// thread (bridge.ts) dispatches through it, with a handler for exactly each row (the type checker
// holds that). A call crosses once each way as one JSON string: the program's value is serialized
// once in the guest, parsed once on the main thread; the result is serialized once on the main
// thread and parsed once in the guest. Budgets are asked through `spend` alone: per request here
// (nothing used, nothing counted), counted on the main thread by the run's RunBudget.
import type { Core } from "../decisions/core.js";
import { Budget, BudgetCheck, HOST_ADDRESS_CHARS_MAX, HOST_DESCRIBE_ADDRESSES_MAX, HOST_SEARCH_OPTIONS_CHARS_MAX, SEARCH_PHRASINGS_MAX, type BudgetName } from "../decisions/generated/spec.js";
import { JSON_ESCAPE_CHARS_MAX } from "../support/encoding.js";
import { AtriumError, overBudget, type ErrorBody } from "../support/errors.js";
import type { Safety } from "../catalog/entry.js";
import { jsonDepth } from "../support/json-depth.js";

// ---- The operations: what a program passes (as the main thread parses it: unchecked JSON) and gets back.

interface SearchRow { address: string; description: string; safety: Safety; reason?: string; quarantined?: { reason: string; change: string; review: string }; score: number; weak?: true }
interface SearchResult { starting?: string; ranking: "lexical" | "hybrid"; total: number; results: SearchRow[]; unavailable?: { connector: string; state: string; problem: string }[]; hint?: { message: string; connectors: string[] } }
type Described = { ok: true; address: string; title?: string; description: string; safety: Safety; reason: string; quarantined?: SearchRow["quarantined"]; inputSchema?: unknown } | { ok: false; address: string | null; error: ErrorBody };
type BatchItem = { ok: true; data: unknown } | { ok: false; error: ErrorBody };

export interface HostOps {
  /** atrium.search(query or [phrasings], options?) */
  search: { args: { query?: unknown; options?: unknown }; result: SearchResult };
  /** atrium.describe(address | addresses) */
  describe: { args: { addresses?: unknown }; result: Described | Described[] };
  /** atrium.call(address, args, { reason }?) and every connector global (args, { reason }?) */
  call: { args: { address?: unknown; args?: unknown; options?: unknown }; result: unknown };
  /** atrium.batch([{ address, args }]) */
  batch: { args: { items?: unknown }; result: BatchItem[] };
  /** atrium.ui(html, { reads }?): declares the run's view; the answer is at once (it throws or returns) */
  ui: { args: { html?: unknown; options?: unknown }; result: null };
  /** atrium.emit(block): one content block for the person; the answer is at once */
  emit: { args: unknown; result: null };
}
export type HostOp = keyof HostOps;

// ---- The messages a host call crosses in.

/** A host call on its way to the main thread. `json` is empty when the worker withheld a payload
 * too large to cross; `chars` is its length all the same. `calls` is what it spends of host_calls
 * (a batch's items, -1 when the batch is not an array). `now`: the worker waits at the call for
 * the Answer (an op answered at once, or a call past what host_calls could grant the run);
 * otherwise the call's one answer is its HostResult. */
export interface HostCall { type: "host"; runId: number; callId: number; op: HostOp; json: string; chars: number; calls: number; now: boolean }
/** A result's JSON, or the typed error's JSON. */
export interface Reply { ok: boolean; json: string }
/** The main thread's answer to a call the worker waits for: the reply, or (a call it took) that the reply follows as a HostResult. */
export type Answer = Reply | { pending: true };
/** A call's one answer, when it is done or refused (for a call answered "pending", its reply). */
export interface HostResult { type: "hostResult"; runId: number; callId: number; reply: Reply }

// ---- The one question every budget is asked through.

/** Asks the core whether `amount` more of `budget` fits with `used` already spent, and throws the
 * typed error naming the budget when it does not. Nothing is counted here: RunBudget (bridge.ts)
 * adds what it spends; a bound on one request passes nothing used. */
export function spend(core: Core, budget: BudgetName, limit: number, amount: number, used = 0, hint?: string): void {
  if (core.budgetCheck(Budget[budget], used, amount, limit) !== BudgetCheck.ok) throw overBudget(budget, limit, used, amount, hint);
}

// ---- What each operation is, to each side.

/** Addresses one atrium.describe takes. */
export const MAX_DESCRIBE = HOST_DESCRIBE_ADDRESSES_MAX;
/** The most characters a describe request may have serialized. */
const DESCRIBE_PAYLOAD_CHARS = MAX_DESCRIBE * HOST_ADDRESS_CHARS_MAX;
/** How deep a batch's own envelope nests around one item's args ({"items":[{"args": …}]}). */
const BATCH_ENVELOPE_DEPTH = jsonDepth(JSON.stringify({ items: [{ args: null }] }));

/** The run's limits the worker bounds a request by. */
interface RequestLimits { callPayloadBytes: number; searchQueryChars: number; requestDepth: number; emitBytes: number }
/** A payload as the worker sees it before reading it: its length, and what the prelude measured (a search's query length, a batch's items). */
interface Sized { chars: number; measure: number }
/** A payload the worker does not read or send: only the main thread, which counts what is used, can word its refusal. */
export const WITHHELD = true;

interface OpRule {
  /** How the program gets the answer: a promise, or at once (the call returns or throws). */
  answer: "promise" | "at once";
  /** Host calls it spends, from the prelude's measure. */
  calls(measure: number): number;
  /** The worker's bounds on the length, before the payload leaves the guest: throws the typed refusal, or withholds it. */
  before(core: Core, p: Sized, l: RequestLimits): void | typeof WITHHELD;
  /** The worker's bounds on the text, once read. */
  after?(core: Core, json: string, l: RequestLimits): void;
  /** The refusal of a payload that is not JSON (the prelude sends "" for a value it cannot serialize). */
  unreadable?: string;
}

const payloadOver = (core: Core, bytes: number, limit: number) => spend(core, "call_payload_bytes", limit, bytes, 0, "pass less (ids, filters, paging) and let the tool fetch the rest");
/** What the program passed nests no deeper than request_depth; `envelope` is the levels the prelude's own envelope adds. */
const depthWithin = (core: Core, json: string, envelope: number, limit: number) => {
  const depth = Math.max(0, jsonDepth(json) - envelope);
  spend(core, "request_depth", limit, depth, 0, `what the program passed nests ${depth} levels deep; flatten it`);
};
/** A call or batch payload within call_payload_bytes: its length first (UTF-8 bytes are never fewer than UTF-16 units), then its bytes. */
const callPayload = (envelope: number): Pick<OpRule, "before" | "after"> => ({
  before: (core, p, l) => payloadOver(core, p.chars, l.callPayloadBytes),
  after: (core, json, l) => { payloadOver(core, Buffer.byteLength(json), l.callPayloadBytes); depthWithin(core, json, envelope, l.requestDepth); },
});
/** ui and emit payloads spend emit_bytes, which only the main thread counts: one over the whole budget is not sent. */
const emitPayload = (core: Core, p: Sized, l: RequestLimits) => (p.chars > l.emitBytes ? WITHHELD : undefined);
const one = () => 1;
const none = () => 0;

export const HOST_OPS: { readonly [K in HostOp]: OpRule } = {
  search: {
    answer: "promise", calls: one,
    before: (core, p, l) => {
      if (p.measure >= 0) spend(core, "search_query_chars", l.searchQueryChars, p.measure, 0, "search with a few words");
      if (p.chars > l.searchQueryChars * JSON_ESCAPE_CHARS_MAX * SEARCH_PHRASINGS_MAX + HOST_SEARCH_OPTIONS_CHARS_MAX) throw new AtriumError("invalid_args", `atrium.search(query, options): the request is ${p.chars} characters serialized; a query (or each of at most ${SEARCH_PHRASINGS_MAX} phrasings) has at most ${l.searchQueryChars} characters and options are only connector, safety, limit and offset`);
    },
    after: (core, json, l) => depthWithin(core, json, 1, l.requestDepth),
  },
  describe: {
    answer: "promise", calls: one,
    before: (core, p) => {
      if (p.chars > DESCRIBE_PAYLOAD_CHARS) throw new AtriumError("invalid_args", `atrium.describe takes an address or an array of 1 to ${MAX_DESCRIBE} addresses; this request is ${p.chars} characters serialized`);
    },
    after: (core, json, l) => depthWithin(core, json, 1, l.requestDepth),
  },
  call: { answer: "promise", calls: one, ...callPayload(1) },
  batch: { answer: "promise", calls: (items) => items, ...callPayload(BATCH_ENVELOPE_DEPTH) },
  ui: { answer: "at once", calls: none, unreadable: "atrium.ui(html, options?): the arguments are not serializable", before: emitPayload },
  emit: { answer: "at once", calls: none, unreadable: "emit takes one content block object; this value is not serializable", before: emitPayload },
};

export const isHostOp = (op: string): op is HostOp => Object.hasOwn(HOST_OPS, op);
