// The main thread's side of a program's host calls (glue/sandbox/bridge.ts), in process, with the
// real core and the real call path (invoke.ts), over a small fake catalog and connector: each
// operation's handler (search's phrasings and options, describe's one or many addresses, call's
// reason, batch's all-or-nothing admission and its items, the run's one view, emitted blocks);
// the run's counted budgets (host_calls, batch_calls, emit_bytes, emit_blocks: all of a charge or
// none, the hint naming the budget); the payload parsed once and refused when it is not JSON; the
// reply (a value, or the typed error cut at error_text_chars); the per-op stats and progress; and a
// call's way down: the run's approvals asked with the reason, its clock, its signal and time left,
// the address a batch read once, the data a private read leaves for the rest of the run.
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunBridge, type BridgeLimits } from "../glue/sandbox/bridge.js";
import type { HostCall, HostOp } from "../glue/sandbox/host-ops.js";
import type { RunScope } from "../glue/sandbox/pool.js";
import { DownstreamAccess, type DownstreamLink } from "../glue/calls/invoke.js";
import type { RunApprovals } from "../glue/calls/approvals.js";
import { callsInFlight } from "../glue/calls/calls-in-flight.js";
import type { SemanticSource } from "../glue/calls/discovery.js";
import type { Catalog } from "../glue/catalog/catalog.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";
import { buildSearchIndex } from "../glue/catalog/search-index.js";
import { core } from "../glue/decisions/core.js";
import { APPROVAL_REASON_CHARS_MAX, AppVisibility, Budget, SEARCH_PHRASINGS_MAX } from "../glue/decisions/generated/spec.js";
import { sinkOf, type ActivityEvent } from "../glue/activity/events.js";
import { AtriumError } from "../glue/support/errors.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";

afterEach(() => { vi.useRealTimers(); });

const ERROR_TEXT = core().limitDefault(Budget.error_text_chars);
const LIMITS: BridgeLimits = { hostCalls: 20, batchCalls: 10, callPayloadBytes: 65_536, emitBytes: 4_000, emitBlocks: 4 };

const entryOf = (connectorId: string, name: string, extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
  address: `${connectorId}.${name}`, connectorId, name, description: `${name.replace(/_/g, " ")} of ${connectorId}`, inputSchema: {}, safety: "read_only", reason: "annotated_read_only",
  maxResultBytes: 65_536, appVisibility: AppVisibility.app, appWrites: false, ...extra,
});
/** desk: two reads and a write; notes: a private read; web: a read that sends data out. */
const ENTRIES = (): CatalogEntry[] => [
  entryOf("desk", "list_items"),
  entryOf("desk", "get_item"),
  entryOf("desk", "create_item", { safety: "approval", reason: "not_annotated" }),
  entryOf("notes", "read_note", { privateData: true }),
  entryOf("web", "fetch_page", { egress: true }),
];

/** A catalog with the shapes the bridge and invoke.ts read: every address it is asked to locate, and the signals it was waited with. */
function catalogOf(entries: CatalogEntry[]) {
  const located: unknown[] = [];
  const waited: (AbortSignal | undefined)[] = [];
  const ids = [...new Set(entries.map((e) => e.connectorId))];
  const viewOf = (address: unknown) => {
    const id = typeof address === "string" ? address.split(".")[0]! : undefined;
    if (!id || !ids.includes(id)) return undefined;
    return { id, state: "ready", toolCount: 1, refreshing: false, privateData: entries.some((e) => e.connectorId === id && e.privateData), whenSettled: async (signal?: AbortSignal) => { waited.push(signal); }, unavailable: () => new AtriumError("unavailable", "down"), listingUnsettled: () => new AtriumError("unavailable", "changing") };
  };
  const resolve = (address: unknown) => {
    const entry = entries.find((e) => e.address === address);
    if (!entry) throw new AtriumError("unknown_address", `no tool ${String(address)}`);
    return { entry };
  };
  const catalog = {
    owner: LOCAL_PRINCIPAL.id,
    viewOf,
    resolve,
    locate: (address: unknown) => { located.push(address); return { view: viewOf(address), resolve: () => resolve(address) }; },
    classOf: (address: string) => entries.find((e) => e.address === address)?.safety ?? "unknown",
    index: () => buildSearchIndex(entries),
    missing: () => [],
    starting: () => [],
    connectorIds: () => ids,
    connectorNames: () => ids,
  } as unknown as Catalog;
  return { catalog, located, waited };
}

/** A connector that records its calls and answers `answer` (default: the tool's name and args as JSON text). */
function linkOf(answer?: (name: string, args: Record<string, unknown>) => unknown, redacts = true) {
  const calls: { name: string; args: Record<string, unknown>; timeLeftMs?: number; signal?: AbortSignal; runs: number }[] = [];
  const link: DownstreamLink = {
    async call(name, args, o) {
      calls.push({ name, args, timeLeftMs: o.timeLeftMs, signal: o.signal, runs: callsInFlight.callersOf(name === "read_note" ? "notes" : "desk").runs.length });
      return (answer ? answer(name, args) : { content: [{ type: "text", text: JSON.stringify({ tool: name, args }) }] }) as never;
    },
    readResource: async () => ({}),
    prompts: async () => ({}),
    offersPrompts: () => false,
    ready: () => true,
    stopped: () => false,
    redactsSecrets: () => redacts,
    unavailable: () => new AtriumError("unavailable", "stopped"),
  };
  return { link, calls };
}

interface Setup { limits?: Partial<BridgeLimits>; answer?: Parameters<typeof linkOf>[0]; redacts?: boolean; approvals?: boolean; semantic?: SemanticSource; entries?: CatalogEntry[] }
function setup(o: Setup = {}) {
  const { catalog, located, waited } = catalogOf(o.entries ?? ENTRIES());
  const { link, calls } = linkOf(o.answer, o.redacts);
  const events: ActivityEvent[] = [];
  const progress: number[] = [];
  const gates: { address: string; args: unknown; argsJson: string; reason: string | undefined; run: unknown; flowFrom: unknown; inFlight: unknown[] }[] = [];
  const approvals = o.approvals ? ({
    gate: async (entry: CatalogEntry, args: unknown, argsJson: string, reason: string | undefined, run: unknown, flowFrom?: readonly string[]) => {
      gates.push({ address: entry.address, args, argsJson, reason, run, flowFrom, inFlight: callsInFlight.callersOf(entry.connectorId).runs });
    },
  } as unknown as RunApprovals) : undefined;
  const bridge = new RunBridge(
    { core: core(), catalog, downstream: DownstreamAccess.grant({ link: () => link }), principal: LOCAL_PRINCIPAL, activity: sinkOf((e) => events.push(e)), ...(o.semantic && { semantic: o.semantic }) },
    { ...LIMITS, ...o.limits },
    (n) => progress.push(n),
    approvals,
  );
  const controller = new AbortController();
  const scope: RunScope = { signal: controller.signal, msLeft: () => 4321, pause: () => () => {} };
  let callId = 0;
  /** One host call as the worker sends it: its JSON, its length, and the host calls it spends. */
  const hostCall = (op: HostOp, args: unknown, over: Partial<HostCall> = {}): HostCall => {
    const json = JSON.stringify(args) ?? "";
    const items = (args as { items?: unknown } | undefined)?.items;
    const calls = op === "batch" ? (Array.isArray(items) ? items.length : -1) : op === "ui" || op === "emit" ? 0 : 1;
    return { type: "host", runId: 1, callId: callId++, op, json, chars: json.length, calls, now: false, ...over };
  };
  /** Sends a host call; its reply, parsed. */
  const ask = async (op: HostOp, args: unknown, over: Partial<HostCall> = {}) => {
    const r = await bridge.answer(hostCall(op, args, over), scope);
    return { ok: r.ok, value: JSON.parse(r.json) as any, json: r.json };
  };
  return { bridge, ask, hostCall, scope, controller, calls, located, waited, events, progress, gates, approvals };
}

describe("call: a tool down the one call path, its value serialized once", () => {
  it("the connector is called with the tool's name and the args; the program gets the value", async () => {
    const s = setup();
    const r = await s.ask("call", { address: "desk.get_item", args: { id: 7 } });
    expect(r).toMatchObject({ ok: true, value: { tool: "get_item", args: { id: 7 } } });
    expect(r.json).toBe('{"tool":"get_item","args":{"id":7}}');
    expect(s.calls.map((c) => c.args)).toEqual([{ id: 7 }]);
  });

  it("the run's signal and time left go down with the call, and the named connector is waited for with the run's signal", async () => {
    const s = setup();
    await s.ask("call", { address: "desk.get_item", args: {} });
    expect(s.calls[0]).toMatchObject({ timeLeftMs: 4321, signal: s.scope.signal });
    expect(s.waited).toEqual([s.scope.signal]);
  });

  it("the activity log records the call as the program's", async () => {
    const s = setup();
    await s.ask("call", { address: "desk.get_item", args: {} });
    expect(s.events).toMatchObject([{ event: "call", connector: "desk", tool: "get_item", path: "program", outcome: "ok" }]);
  });

  it("a tool that may write is refused without the run's approvals (destructive_tool_requires_approval), and never runs", async () => {
    const s = setup();
    const r = await s.ask("call", { address: "desk.create_item", args: { title: "x" } });
    expect([r.ok, r.value.code]).toEqual([false, "destructive_tool_requires_approval"]);
    expect(s.calls).toEqual([]);
  });

  it("with the run's approvals, a write is asked (entry, args, their JSON, the reason, the run's clock) before it runs, with the run's call in flight", async () => {
    const s = setup({ approvals: true });
    const r = await s.ask("call", { address: "desk.create_item", args: { title: "x" }, options: { reason: "file the ticket" } });
    expect(r.ok).toBe(true);
    expect(s.gates).toEqual([{ address: "desk.create_item", args: { title: "x" }, argsJson: '{"title":"x"}', reason: "file the ticket", run: s.scope, flowFrom: undefined, inFlight: [] }]);
    expect(s.calls.map((c) => [c.name, c.runs])).toEqual([["create_item", 1]]);
    expect(callsInFlight.callersOf("desk").runs).toEqual([]);
  });

  it("while a program's call is out, its run (approvals and clock) is the connector's caller", async () => {
    let seen: unknown;
    const t = setup({ approvals: true, answer: () => { seen = callsInFlight.callersOf("desk"); return { content: [{ type: "text", text: "1" }] }; } });
    await t.ask("call", { address: "desk.get_item", args: {} });
    expect(seen).toEqual({ runs: [{ approvals: t.approvals, clock: t.scope }], direct: 0 });
    expect(t.gates).toEqual([]);
  });

  it("a read-only call asks no one, even with the run's approvals", async () => {
    const s = setup({ approvals: true });
    expect((await s.ask("call", { address: "desk.get_item", args: {} })).ok).toBe(true);
    expect(s.gates).toEqual([]);
  });

  it("an answer with nothing JSON can carry is null", async () => {
    const s = setup({ answer: () => ({ content: () => 1 }), redacts: false });
    const r = await s.ask("call", { address: "desk.get_item", args: {} });
    expect([r.ok, r.json]).toEqual([true, "null"]);
  });

  it("an answer nested too deeply to serialize is refused, typed, naming the tool", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const s = setup({ answer: () => ({ structuredContent: deep }), redacts: false });
    const r = await s.ask("call", { address: "desk.get_item", args: {} });
    expect(r.ok).toBe(false);
    expect(r.value).toMatchObject({ code: "connector_call_failed", message: "desk.get_item returned a value that cannot be passed to the program (nested too deeply)", details: { address: "desk.get_item" } });
  });

  it("an answer over call_payload_bytes is refused, typed, with its size and what to ask for", async () => {
    const s = setup({ limits: { callPayloadBytes: 1024 }, answer: () => ({ structuredContent: { s: "a".repeat(1100) } }) });
    const r = await s.ask("call", { address: "desk.get_item", args: {} });
    const bytes = JSON.stringify({ s: "a".repeat(1100) }).length;
    expect(r.value).toMatchObject({ code: "budget_exceeded", details: { budget: "call_payload_bytes", limit: 1024, requested: bytes } });
    expect(r.value.message).toMatch(new RegExp(`; the result of desk\\.get_item is ${bytes} bytes; ask the tool for less \\(filters, paging, fields\\)$`));
  });

  it("an answer of exactly call_payload_bytes passes", async () => {
    const text = JSON.stringify({ s: "" });
    const s = setup({ limits: { callPayloadBytes: 1024 }, answer: () => ({ structuredContent: { s: "a".repeat(1024 - text.length) } }) });
    expect((await s.ask("call", { address: "desk.get_item", args: {} })).ok).toBe(true);
  });
});

describe("call's options: absent, or { reason } with a short string", () => {
  const withOptions = async (options: unknown) => {
    const s = setup({ approvals: true });
    const r = await s.ask("call", { address: "desk.create_item", args: {}, ...(options !== undefined && { options }) });
    return { r, gates: s.gates };
  };

  it("absent, null or {} options ask with no reason", async () => {
    for (const options of [undefined, null, {}]) {
      const { r, gates } = await withOptions(options);
      expect(r.ok).toBe(true);
      expect(gates.map((g) => g.reason)).toEqual([undefined]);
    }
  });

  it(`a reason of ${APPROVAL_REASON_CHARS_MAX} characters is asked with`, async () => {
    const { r, gates } = await withOptions({ reason: "r".repeat(APPROVAL_REASON_CHARS_MAX) });
    expect(r.ok).toBe(true);
    expect(gates[0]!.reason).toBe("r".repeat(APPROVAL_REASON_CHARS_MAX));
  });

  it("one character more is refused, typed, before anyone is asked", async () => {
    const { r, gates } = await withOptions({ reason: "r".repeat(APPROVAL_REASON_CHARS_MAX + 1) });
    expect(r.value).toMatchObject({ code: "invalid_args", message: `atrium.call: options.reason is ${APPROVAL_REASON_CHARS_MAX + 1} characters; at most ${APPROVAL_REASON_CHARS_MAX} (say in a sentence why this call is needed)` });
    expect(gates).toEqual([]);
  });

  it.each([["a string", "why"], ["an array", ["why"]], ["a number", 3], ["a reason that is not a string", { reason: 3 }], ["a null reason", { reason: null }]])("%s is refused, typed", async (_, options) => {
    const { r, gates } = await withOptions(options);
    expect(r.value).toMatchObject({ code: "invalid_args", message: "atrium.call(address, args, options): options is { reason } with reason a string" });
    expect(gates).toEqual([]);
  });
});

describe("host_calls: counted here, before the payload is parsed", () => {
  it("each call spends one; past host_calls the call is refused, typed, with the hint, and nothing runs", async () => {
    const s = setup({ limits: { hostCalls: 2 } });
    await s.ask("call", { address: "desk.get_item", args: {} });
    await s.ask("search", { query: "items" });
    expect(s.bridge.hostCalls).toBe(2);
    const r = await s.ask("call", { address: "desk.get_item", args: {} });
    expect(r.value).toMatchObject({ code: "budget_exceeded", details: { budget: "host_calls", limit: 2, used: 2, requested: 1, room: 0 } });
    expect(r.value.message).toMatch(/; do fewer calls per program \(batch related reads\) or split the work$/);
    expect(s.calls).toHaveLength(1);
    expect(s.bridge.hostCalls).toBe(2);
  });

  it("a refused call is counted before its payload is read: one that is not JSON still spends", async () => {
    const s = setup();
    const r = await s.ask("call", undefined, { json: "{not json", chars: 9 });
    expect(r.value).toEqual({ code: "invalid_args", message: "the arguments are not serializable", retryable: false });
    expect(s.bridge.hostCalls).toBe(1);
  });
});

describe("batch: all or nothing, each item down the call path", () => {
  const item = (address: string, args: unknown = {}, extra: Record<string, unknown> = {}) => ({ address, args, ...extra });

  it("each item's answer in order: ok with its data, or ok false with its typed error", async () => {
    const s = setup();
    const r = await s.ask("batch", { items: [item("desk.get_item", { id: 1 }), item("nope.tool"), item("desk.list_items")] });
    expect(r.ok).toBe(true);
    expect(r.value).toMatchObject([
      { ok: true, data: { tool: "get_item", args: { id: 1 } } },
      { ok: false, error: { code: "unknown_address", message: "no tool nope.tool" } },
      { ok: true, data: { tool: "list_items", args: {} } },
    ]);
    expect(r.json.startsWith('[{"ok":true,"data":{"tool":"get_item"')).toBe(true);
    expect(s.bridge.hostCalls).toBe(3);
  });

  it("an empty batch is an empty answer and spends nothing", async () => {
    const s = setup();
    expect(await s.ask("batch", { items: [] })).toMatchObject({ ok: true, json: "[]" });
    expect(s.bridge.hostCalls).toBe(0);
  });

  it("a batch that is not an array (calls -1) is refused whole, typed, and spends nothing", async () => {
    const s = setup();
    const r = await s.ask("batch", { items: "x" });
    expect(r.value).toMatchObject({ code: "invalid_args", message: "atrium.batch takes an array of { address, args }; it is refused as a whole and none of it runs" });
    expect(s.bridge.hostCalls).toBe(0);
  });

  it("a batch over batch_calls is refused whole with its hint; one of exactly batch_calls runs", async () => {
    const s = setup({ limits: { batchCalls: 2 } });
    const r = await s.ask("batch", { items: [item("desk.get_item"), item("desk.get_item"), item("desk.get_item")] });
    expect(r.value).toMatchObject({ code: "budget_exceeded", details: { budget: "batch_calls", limit: 2, used: 0, requested: 3 } });
    expect(r.value.message).toMatch(/; split the batch; a batch over batch_calls is refused as a whole and none of its items runs$/);
    expect(s.calls).toEqual([]);
    expect(s.bridge.hostCalls).toBe(0);
    expect((await s.ask("batch", { items: [item("desk.get_item"), item("desk.get_item")] })).value).toHaveLength(2);
  });

  it("a batch that costs more host calls than are left is refused whole, and none of it runs", async () => {
    const s = setup({ limits: { hostCalls: 3 } });
    await s.ask("call", { address: "desk.get_item", args: {} });
    const r = await s.ask("batch", { items: [item("desk.get_item"), item("desk.get_item"), item("desk.get_item")] });
    expect(r.value).toMatchObject({ code: "budget_exceeded", details: { budget: "host_calls", room: 2 } });
    expect([s.calls.length, s.bridge.hostCalls]).toEqual([1, 1]);
  });

  it("a batch that did not arrive as it was counted is unavailable (not an array, or another length)", async () => {
    const s = setup();
    const other = await s.ask("batch", { items: [item("desk.get_item")] }, { calls: 2 });
    expect(other.value).toMatchObject({ code: "unavailable", message: "the batch did not arrive as it was counted; try again" });
    const notArray = await s.ask("batch", { items: { 0: item("desk.get_item"), length: 1 } }, { calls: 1 });
    expect(notArray.value).toMatchObject({ code: "unavailable" });
    expect(s.calls).toEqual([]);
  });

  it("an item that is not an object is its own typed error; the others run", async () => {
    const s = setup();
    const r = await s.ask("batch", { items: [null, 3, "desk.get_item", item("desk.get_item")] });
    const each = { ok: false, error: { code: "invalid_args", message: "each batch item is { address, args, reason? }", retryable: false } };
    expect(r.value).toEqual([each, each, each, { ok: true, data: { tool: "get_item", args: {} } }]);
  });

  it("each item's address is read once, and the same reading is the one judged", async () => {
    const s = setup();
    await s.ask("batch", { items: [item("desk.get_item"), item("desk.list_items")] });
    expect(s.located).toEqual(["desk.get_item", "desk.list_items"]);
  });

  it("an item's reason is asked with; an item without one asks with none", async () => {
    const s = setup({ approvals: true });
    const r = await s.ask("batch", { items: [item("desk.create_item", { a: 1 }, { reason: "first" }), item("desk.create_item", { b: 1 })] });
    expect(r.value.map((x: { ok: boolean }) => x.ok)).toEqual([true, true]);
    expect(s.gates.map((g) => [g.argsJson, g.reason])).toEqual([['{"a":1}', "first"], ['{"b":1}', undefined]]);
  });

  it("an item's reason that is not a string is that item's typed error", async () => {
    const s = setup({ approvals: true });
    const r = await s.ask("batch", { items: [item("desk.create_item", {}, { reason: 5 })] });
    expect(r.value).toMatchObject([{ ok: false, error: { code: "invalid_args" } }]);
  });

  it("a batch holding a private read gates its egress item as after that read, even placed first", async () => {
    const s = setup({ approvals: true });
    await s.ask("batch", { items: [item("web.fetch_page", { url: "u" }), item("notes.read_note")] });
    expect(s.gates.map((g) => [g.address, g.flowFrom])).toEqual([["web.fetch_page", ["notes"]]]);
  });

  it("without a private read in the batch or the run, an egress read asks no one", async () => {
    const s = setup({ approvals: true });
    await s.ask("batch", { items: [item("web.fetch_page", { url: "u" }), item("desk.get_item")] });
    expect(s.gates).toEqual([]);
  });

  it("a private read by an earlier call gates a later egress call", async () => {
    const s = setup({ approvals: true });
    await s.ask("call", { address: "notes.read_note", args: {} });
    await s.ask("call", { address: "web.fetch_page", args: {} });
    expect(s.gates.map((g) => [g.address, g.flowFrom])).toEqual([["web.fetch_page", ["notes"]]]);
  });
});

describe("search: a query or phrasings, and the options it reads", () => {
  const found = (r: { value: any }) => r.value.results.map((x: { address: string }) => x.address).sort();

  it("a query is searched: the answer is the discovery service's, serialized once", async () => {
    const s = setup();
    const r = await s.ask("search", { query: "items" });
    expect(r.ok).toBe(true);
    expect(r.value).toMatchObject({ ranking: "lexical" });
    expect(found(r)).toEqual(["desk.create_item", "desk.get_item", "desk.list_items"]);
  });

  it(`1 to ${SEARCH_PHRASINGS_MAX} phrasings are searched, as phrasings, with no query of their own`, async () => {
    const asked: (readonly string[])[] = [];
    const s = setup({ semantic: { scores: (q) => { asked.push(q); return undefined; } } });
    expect((await s.ask("search", { query: ["list items", "note"] })).ok).toBe(true);
    expect((await s.ask("search", { query: Array.from({ length: SEARCH_PHRASINGS_MAX }, (_, i) => `p${i}`) })).ok).toBe(true);
    expect((await s.ask("search", { query: "one" })).ok).toBe(true);
    expect(asked).toEqual([["list items", "note"], ["p0", "p1", "p2", "p3", "p4"], ["one"]]);
  });

  it("phrasings find what each finds", async () => {
    const s = setup();
    expect(found(await s.ask("search", { query: ["note", "fetch page"] }))).toEqual(expect.arrayContaining(["notes.read_note", "web.fetch_page"]));
  });

  it.each([["no phrasing", []], [`${SEARCH_PHRASINGS_MAX + 1} phrasings`, Array.from({ length: SEARCH_PHRASINGS_MAX + 1 }, () => "x")], ["a phrasing that is not a string", ["x", 3]]])("%s is refused, typed", async (_, query) => {
    const s = setup();
    expect((await s.ask("search", { query })).value).toMatchObject({ code: "invalid_args", message: `atrium.search([phrasings]): 1 to ${SEARCH_PHRASINGS_MAX} strings` });
  });

  it.each([["absent", {}], ["a number", { query: 3 }], ["an object", { query: { q: "x" } }]])("a query %s is refused, typed", async (_, args) => {
    const s = setup();
    expect((await s.ask("search", args)).value).toMatchObject({ code: "invalid_args", message: "atrium.search(query): query must be a string or an array of phrasings" });
  });

  it("connector narrows the search to one connector; one that names none is refused; one that is not a string is ignored", async () => {
    const s = setup();
    expect(found(await s.ask("search", { query: "", options: { connector: "desk" } }))).toEqual(["desk.create_item", "desk.get_item", "desk.list_items"]);
    expect((await s.ask("search", { query: "", options: { connector: "nowhere" } })).value).toMatchObject({ code: "invalid_args" });
    expect(found(await s.ask("search", { query: "", options: { connector: 3 } }))).toHaveLength(5);
  });

  it("safety narrows to read_only or approval; any other value searches all", async () => {
    const s = setup();
    expect(found(await s.ask("search", { query: "", options: { safety: "read_only" } }))).toEqual(["desk.get_item", "desk.list_items", "notes.read_note", "web.fetch_page"]);
    expect(found(await s.ask("search", { query: "", options: { safety: "approval" } }))).toEqual(["desk.create_item"]);
    expect(found(await s.ask("search", { query: "", options: { safety: "writes" } }))).toHaveLength(5);
  });

  it("limit and offset page the answer; ones that are not numbers are ignored", async () => {
    const s = setup();
    const all = (await s.ask("search", { query: "" })).value.results.map((x: { address: string }) => x.address);
    const page = (options: unknown) => s.ask("search", { query: "", options }).then((r) => r.value.results.map((x: { address: string }) => x.address));
    expect(await page({ limit: 2 })).toEqual(all.slice(0, 2));
    expect(await page({ limit: 2, offset: 1 })).toEqual(all.slice(1, 3));
    expect(await page({ limit: "2", offset: "1" })).toEqual(all);
  });

  it("an offset that is not a number is no offset: a first page of weak matches still carries the hint", async () => {
    const s = setup();
    const weak = await s.ask("search", { query: "desk", options: { offset: "1" } });
    expect(weak.value.results.every((x: { weak?: boolean }) => x.weak)).toBe(true);
    expect(weak.value.hint).toBeDefined();
    expect((await s.ask("search", { query: "desk", options: { offset: 1 } })).value.hint).toBeUndefined();
  });

  it("options that are not an object are ignored", async () => {
    const s = setup();
    expect(found(await s.ask("search", { query: "", options: "desk" }))).toHaveLength(5);
  });
});

describe("describe: one address or a list", () => {
  it("an address is described as one answer, waited for with the run's signal", async () => {
    const s = setup();
    const r = await s.ask("describe", { addresses: "desk.get_item" });
    expect(r.value).toMatchObject({ ok: true, address: "desk.get_item", description: "get item of desk", safety: "read_only" });
    expect(s.waited).toEqual([s.scope.signal]);
  });

  it("a list is described in order, each address's failure its own typed answer", async () => {
    const s = setup();
    const r = await s.ask("describe", { addresses: ["desk.get_item", "nope.x", 5] });
    expect(r.value).toMatchObject([
      { ok: true, address: "desk.get_item" },
      { ok: false, address: "nope.x", error: { code: "unknown_address", message: "no tool nope.x" } },
      { ok: false, address: null, error: { code: "unknown_address" } },
    ]);
  });

  it("an address's error text is cut at error_text_chars", async () => {
    const long = `nope.${"x".repeat(ERROR_TEXT * 2)}`;
    const s = setup();
    const r = await s.ask("describe", { addresses: [long] });
    const full = `no tool ${long}`;
    expect(r.value[0].error.message).toBe(`${full.slice(0, ERROR_TEXT)}… [cut: ${full.length} characters]`);
  });

  it("a list of exactly MAX_DESCRIBE addresses is described", async () => {
    const s = setup();
    expect((await s.ask("describe", { addresses: Array(50).fill("desk.get_item") })).value).toHaveLength(50);
  });

  it.each([["an empty list", []], ["51 addresses", Array(51).fill("desk.get_item")], ["a number", 5], ["nothing", undefined]])("%s is refused, typed", async (_, addresses) => {
    const s = setup();
    expect((await s.ask("describe", { addresses })).value).toMatchObject({ code: "invalid_args", message: "atrium.describe takes an address or an array of 1 to 50 addresses" });
  });
});

describe("ui: one view per run, judged on the live catalog, sharing emit_bytes", () => {
  it("a view is kept with its bytes, spent from emit_bytes; it answers null at once", async () => {
    const s = setup();
    const call = s.hostCall("ui", { html: "<p>hi</p>", options: { reads: { items: { address: "desk.list_items" } } } });
    const r = s.bridge.answer(call, s.scope);
    expect(r).toEqual({ ok: true, json: "null" });
    const view = { html: "<p>hi</p>", reads: { items: { address: "desk.list_items" } } };
    expect(s.bridge.output.view).toEqual({ ...view, bytes: Buffer.byteLength(JSON.stringify(view)) });
    expect(s.bridge.emittedBytes).toBe(Buffer.byteLength(JSON.stringify(view)));
  });

  it("a second view is refused; the first stands", async () => {
    const s = setup();
    await s.ask("ui", { html: "<p>one</p>" });
    const r = await s.ask("ui", { html: "<p>two</p>" });
    expect(r.value).toMatchObject({ code: "invalid_args", message: "atrium.ui: one view per run; the first view stands" });
    expect(s.bridge.output.view).toEqual({ html: "<p>one</p>", bytes: Buffer.byteLength('{"html":"<p>one</p>"}') });
  });

  it("a view whose reads bind a tool that may write is refused by its manifest", async () => {
    const s = setup();
    const r = await s.ask("ui", { html: "<p>x</p>", options: { reads: { add: { address: "desk.create_item" } } } });
    expect(r.value).toMatchObject({ code: "invalid_args" });
    expect(s.bridge.output.view).toBeUndefined();
    expect(s.bridge.emittedBytes).toBe(0);
  });

  it("after a private read, a view that binds an egress read is refused; without one it stands", async () => {
    const s = setup();
    await s.ask("call", { address: "notes.read_note", args: {} });
    const reads = { reads: { page: { address: "web.fetch_page" } } };
    const r = await s.ask("ui", { html: "<p>x</p>", options: reads });
    expect(r.ok).toBe(false);
    expect(s.bridge.output.view).toBeUndefined();
    const t = setup();
    expect((await t.ask("ui", { html: "<p>x</p>", options: reads })).ok).toBe(true);
  });

  it("a view larger than the emitted bytes left is refused before it is parsed, naming the shared budget", async () => {
    const s = setup({ limits: { emitBytes: 100 } });
    await s.ask("emit", { type: "text", text: "x".repeat(40) });
    const spent = s.bridge.emittedBytes;
    const r = await s.ask("ui", undefined, { json: "{not json", chars: 100 - spent + 1 });
    expect(r.value).toMatchObject({ code: "budget_exceeded", details: { budget: "emit_bytes", used: spent, requested: 100 - spent + 1 } });
    expect(r.value.message).toMatch(/; the view payload shares the emitted-byte budget with emitted blocks$/);
  });

  it("a view whose serialized payload is over what is left is refused when spent, naming the shared budget", async () => {
    const s = setup({ limits: { emitBytes: 30 } });
    // The call's text fits the bytes left; the view as kept (with its reads) does not.
    const r = await s.ask("ui", { html: "<p>x</p>", options: { reads: { a: { address: "desk.list_items" } } } }, { chars: 10 });
    expect(r.value).toMatchObject({ code: "budget_exceeded", details: { budget: "emit_bytes" } });
    expect(r.value.message).toMatch(/; the view payload shares the emitted-byte budget with emitted blocks$/);
    expect(s.bridge.output.view).toBeUndefined();
  });

  it("arguments that are not JSON are refused with ui's own words", async () => {
    const s = setup();
    expect((await s.ask("ui", undefined, { json: "", chars: 0 })).value).toMatchObject({ code: "invalid_args", message: "atrium.ui(html, options?): the arguments are not serializable" });
  });
});

describe("emit: one content block, counted in emit_blocks and emit_bytes", () => {
  it("a block is kept with the bytes of its JSON, and answers null at once", async () => {
    const s = setup();
    const call = s.hostCall("emit", { type: "text", text: "héllo" });
    expect(s.bridge.answer(call, s.scope)).toEqual({ ok: true, json: "null" });
    expect(s.bridge.output.emitted).toEqual([{ block: { type: "text", text: "héllo" }, bytes: Buffer.byteLength(call.json) }]);
    expect(s.bridge.emittedBytes).toBe(Buffer.byteLength(call.json));
    expect(Buffer.byteLength(call.json)).toBe(call.json.length + 1);
  });

  it("a block that is not a content block is refused with checkBlock's words, and nothing is spent", async () => {
    const s = setup();
    const r = await s.ask("emit", { type: "video" });
    expect(r.value).toMatchObject({ code: "invalid_args", message: 'emit: type must be "text", "image" or "audio", got "video"' });
    expect([s.bridge.output.emitted, s.bridge.emittedBytes]).toEqual([[], 0]);
  });

  it("past emit_blocks a block is refused; a block over the bytes left spends no block either (all of a charge or none)", async () => {
    const s = setup({ limits: { emitBlocks: 2, emitBytes: 200 } });
    await s.ask("emit", { type: "text", text: "a" });
    // Its text fits the bytes left as sent; its JSON does not: refused on emit_bytes at the spend.
    const over = await s.ask("emit", { type: "text", text: "é".repeat(90) });
    expect(over.value).toMatchObject({ code: "budget_exceeded", details: { budget: "emit_bytes" } });
    expect(over.value.message).toMatch(/ left$/);
    expect((await s.ask("emit", { type: "text", text: "b" })).ok).toBe(true);
    const third = await s.ask("emit", { type: "text", text: "c" });
    expect(third.value).toMatchObject({ code: "budget_exceeded", details: { budget: "emit_blocks", limit: 2, used: 2 } });
    expect(s.bridge.output.emitted.map((e) => e.block.text)).toEqual(["a", "b"]);
  });

  it("a block larger than the bytes left is refused before it is parsed, with no hint of its own", async () => {
    const s = setup({ limits: { emitBytes: 10 } });
    const r = await s.ask("emit", undefined, { json: "{not json", chars: 11 });
    expect(r.value).toMatchObject({ code: "budget_exceeded", details: { budget: "emit_bytes", requested: 11 } });
    expect(r.value.message).toBe("emit_bytes budget exceeded: 11 requested, 10 of 10 left");
  });

  it("a value that is not JSON is refused with emit's own words", async () => {
    const s = setup();
    expect((await s.ask("emit", undefined, { json: "", chars: 0 })).value).toMatchObject({ code: "invalid_args", message: "emit takes one content block object; this value is not serializable" });
  });
});

describe("the reply, the stats and progress", () => {
  it("a downstream's error text reaches the program cut at error_text_chars", async () => {
    const s = setup({ answer: () => ({ isError: true, content: [{ type: "text", text: "e".repeat(ERROR_TEXT * 3) }] }) });
    const r = await s.ask("call", { address: "desk.get_item", args: {} });
    expect(r.value.code).toBe("connector_call_failed");
    expect(r.value.message.startsWith("desk.get_item reported an error: eee")).toBe(true);
    expect(r.value.message).toMatch(new RegExp(`^.{${ERROR_TEXT}}… \\[cut: \\d+ characters\\]$`, "s"));
  });

  it("per op: calls, failures, bytes in (the payload) and out (the reply)", async () => {
    const s = setup();
    const a = s.hostCall("call", { address: "desk.get_item", args: {} });
    const b = s.hostCall("call", { address: "nope.x", args: {} });
    const e = s.hostCall("emit", { type: "text", text: "hi" });
    const ra = await s.bridge.answer(a, s.scope);
    const rb = await s.bridge.answer(b, s.scope);
    const re = await s.bridge.answer(e, s.scope);
    expect(s.bridge.stats.call).toMatchObject({ count: 2, failures: 1, bytesIn: a.json.length + b.json.length, bytesOut: ra.json.length + rb.json.length });
    expect(s.bridge.stats.emit).toMatchObject({ count: 1, failures: 0, bytesIn: e.json.length, bytesOut: re.json.length });
    expect(Object.keys(s.bridge.stats).sort()).toEqual(["call", "emit"]);
  });

  it("per op: the time its calls took, on the clock (a fake one here)", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    vi.advanceTimersByTime(10_000);
    const s = setup({ answer: () => { vi.advanceTimersByTime(250); return { content: [{ type: "text", text: "1" }] }; } });
    await s.ask("call", { address: "desk.get_item", args: {} });
    await s.ask("call", { address: "desk.get_item", args: {} });
    expect(s.bridge.stats.call!.ms).toBe(500);
  });

  it("each call answered by a promise, done or refused, is progress; ui and emit are not", async () => {
    const s = setup({ limits: { hostCalls: 2 } });
    await s.ask("call", { address: "desk.get_item", args: {} });
    await s.ask("emit", { type: "text", text: "hi" });
    await s.ask("ui", { html: "<p>x</p>" });
    await s.ask("search", { query: "x" });
    await s.ask("call", { address: "desk.get_item", args: {} });
    expect(s.progress).toEqual([1, 2, 3]);
    expect(s.bridge.completed).toBe(3);
  });

  it("no progress is reported once the run has ended; the call still counts as completed", async () => {
    const s = setup();
    s.controller.abort();
    await s.ask("describe", { addresses: 5 });
    expect(s.progress).toEqual([]);
    expect(s.bridge.completed).toBe(1);
  });
});
