// calls/invoke.ts in process, with the real core: the one call path's gates in order (the named
// connector settled, the address, the pin gate, the arguments, the app or read-only gate, the
// data-flow guard, the payload), a program's approval and the gates judged again after it, the
// connector's answer with its credentials redacted, a reload that stopped the connector, the
// activity record and the calls-in-flight table; and the two other doors through it
// (readAppResource, askPrompts). The catalog and the connector are small fakes with the shapes
// invoke.ts reads (the catalog's own resolution is proved elsewhere); every decision is the core's.
import { afterEach, describe, expect, it, vi } from "vitest";
import { askPrompts, DownstreamAccess, invoke, readAppResource, type DownstreamLink, type InvokeRequest } from "../glue/calls/invoke.js";
import { RunFlow } from "../glue/calls/run-flow.js";
import { callsInFlight } from "../glue/calls/calls-in-flight.js";
import type { Catalog } from "../glue/catalog/catalog.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";
import { core } from "../glue/decisions/core.js";
import { AppVisibility, PinDirection, PinPolicy, PinScope, PinState } from "../glue/decisions/generated/spec.js";
import { pinReasonText } from "../glue/decisions/messages.js";
import { sinkOf, type ActivityEvent } from "../glue/activity/events.js";
import { AtriumError } from "../glue/support/errors.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";
import { FAKE } from "./fixtures/fake-credentials.js";

const entryOf = (connectorId: string, name: string, extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
  address: `${connectorId}.${name}`, connectorId, name, description: "", inputSchema: {}, safety: "read_only", reason: "annotated_read_only",
  maxResultBytes: 50_000, appVisibility: AppVisibility.app, appWrites: false, ...extra,
});

/** A connector as invoke.ts reaches it: records its calls, answers `answer`. */
function linkOf(opts: { answer?: (name: string, args: Record<string, unknown>) => unknown; redacts?: boolean; stoppedAfterCall?: boolean; ready?: boolean; prompts?: boolean; resource?: Record<string, unknown> } = {}) {
  const calls: { name: string; args: Record<string, unknown>; opts: Record<string, unknown>; inFlight: ReturnType<typeof callsInFlight.callersOf> }[] = [];
  let stopped = false;
  /** The signals readResource and prompts were handed. */
  const seen: (AbortSignal | undefined)[] = [];
  const link: DownstreamLink = {
    async call(name, args, o) {
      calls.push({ name, args, opts: o as Record<string, unknown>, inFlight: callsInFlight.callersOf("desk") });
      if (opts.stoppedAfterCall) stopped = true;
      return (opts.answer?.(name, args) ?? { content: [{ type: "text", text: "ok" }] }) as never;
    },
    readResource: async (_uri, o) => { seen.push(o.signal); return opts.resource ?? {}; },
    prompts: async (method, params, o) => { seen.push(o.signal); return { method, params }; },
    offersPrompts: () => opts.prompts ?? false,
    ready: () => opts.ready ?? true,
    stopped: () => stopped,
    redactsSecrets: () => opts.redacts ?? true,
    unavailable: () => new AtriumError("unavailable", "desk was stopped by a reload", { recovering: false }),
  };
  return { link, calls, seen };
}

/** A catalog that resolves every address to `entries` by address (unknown_address otherwise), with an optional view of the named connector. */
function catalogOf(entries: CatalogEntry[], view?: { refreshing?: boolean; settled?: (signal?: AbortSignal) => void }) {
  const resolved: unknown[] = [];
  const catalog = {
    owner: LOCAL_PRINCIPAL.id,
    viewOf: (address: unknown) => view && typeof address === "string" ? {
      id: address.split(".")[0],
      refreshing: view.refreshing ?? false,
      whenSettled: async (signal?: AbortSignal) => { view.settled?.(signal); },
      listingUnsettled: () => new AtriumError("unavailable", "the listing is changing"),
    } : undefined,
    resolve: (address: unknown) => {
      resolved.push(address);
      const entry = entries.find((e) => e.address === address);
      if (!entry) throw new AtriumError("unknown_address", `no tool ${String(address)}`);
      return { entry };
    },
  } as unknown as Catalog & { viewOf: Catalog["viewOf"]; resolve: Catalog["resolve"] };
  // The address read once, as the catalog's own locate does: its view now, its resolution when asked.
  (catalog as { locate: Catalog["locate"] }).locate = (address: unknown) => ({ view: catalog.viewOf(address), resolve: () => catalog.resolve(address) });
  return { catalog, resolved };
}

function setup(entries: CatalogEntry[], link = linkOf(), opts: { view?: Parameters<typeof catalogOf>[1]; payload?: number; owners?: string[] } = {}) {
  const { catalog, resolved } = catalogOf(entries, opts.view);
  const events: ActivityEvent[] = [];
  const downstream = DownstreamAccess.grant({ link: (id, owner) => { opts.owners?.push(`${id}:${owner}`); return id === "desk" || id === "mail" || id === "files" ? link.link : undefined; } });
  const ctx = { catalog, core: core(), downstream, callPayloadBytes: opts.payload ?? 65_536, activity: sinkOf((e) => events.push(e)) };
  return { ctx, calls: link.calls, events, resolved };
}

const req = (address: string, extra: Partial<InvokeRequest> = {}): InvokeRequest => ({ principal: LOCAL_PRINCIPAL, address, args: {}, allowApproval: false, ...extra });

async function refusal(p: Promise<unknown>): Promise<AtriumError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(AtriumError);
  return e as AtriumError;
}

describe("a read-only call goes down the path to its connector", () => {
  afterEach(() => { vi.useRealTimers(); });

  it("the connector is called with the tool's own name and the arguments as given, for the catalog's owner", async () => {
    const owners: string[] = [];
    const { ctx, calls } = setup([entryOf("desk", "list_items")], undefined, { owners });
    const out = await invoke(ctx, req("desk.list_items", { args: { q: "a" } }));
    expect(calls.map((c) => [c.name, c.args])).toEqual([["list_items", { q: "a" }]]);
    expect(out.entry.address).toBe("desk.list_items");
    expect(out.result).toEqual({ content: [{ type: "text", text: "ok" }] });
    expect(out.durationMs).toBeGreaterThanOrEqual(0);
    expect(owners).toEqual([`desk:${LOCAL_PRINCIPAL.id}`]);
  });

  it("the call's duration is the time the connector took, on the clock (a fake one here)", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    vi.advanceTimersByTime(10_000);
    const { ctx } = setup([entryOf("desk", "list_items")], linkOf({ answer: () => { vi.advanceTimersByTime(250); return undefined; } }));
    expect((await invoke(ctx, req("desk.list_items"))).durationMs).toBe(250);
  });

  it("absent arguments are an empty object", async () => {
    const { ctx, calls } = setup([entryOf("desk", "list_items")]);
    await invoke(ctx, req("desk.list_items", { args: undefined }));
    expect(calls[0]!.args).toEqual({});
  });

  it("the time left, the signal and a progress callback are handed to the connector; no progress callback when none was asked for", async () => {
    const { ctx, calls } = setup([entryOf("desk", "list_items")]);
    const signal = new AbortController().signal;
    const onProgress = () => {};
    await invoke(ctx, req("desk.list_items", { timeLeftMs: () => 1234, signal, onProgress }));
    await invoke(ctx, req("desk.list_items"));
    expect(calls[0]!.opts).toEqual({ timeLeftMs: 1234, signal, onprogress: onProgress });
    expect(calls[1]!.opts).toEqual({ timeLeftMs: undefined, signal: undefined });
    expect("onprogress" in calls[1]!.opts).toBe(false);
  });

  it("while the call is out it is in the calls-in-flight table, as a direct call or as its run's; after it ends, it is not", async () => {
    const { ctx, calls } = setup([entryOf("desk", "list_items")]);
    await invoke(ctx, req("desk.list_items"));
    expect(calls[0]!.inFlight).toEqual({ runs: [], direct: 1 });
    const run = { approvals: {} as never, clock: {} as never };
    await invoke(ctx, req("desk.list_items", { run }));
    expect(calls[1]!.inFlight).toEqual({ runs: [run], direct: 0 });
    expect(callsInFlight.callersOf("desk")).toEqual({ runs: [], direct: 0 });
  });

  it("the call is recorded once in the activity log with its path and outcome", async () => {
    const { ctx, events } = setup([entryOf("desk", "list_items")]);
    await invoke(ctx, req("desk.list_items", { path: "program" }));
    await invoke(ctx, req("desk.list_items", { fromApp: "desk" }));
    await invoke(ctx, req("desk.list_items"));
    expect(events.map((e) => e.event === "call" && [e.connector, e.tool, e.path, e.outcome])).toEqual([["desk", "list_items", "program", "ok"], ["desk", "list_items", "app", "ok"], ["desk", "list_items", "direct", "ok"]]);
  });
});

describe("the gates before a call, each refusing with its typed error and calling nothing", () => {
  it("arguments that are not an object: invalid_args naming the address", async () => {
    const { ctx, calls } = setup([entryOf("desk", "list_items")]);
    for (const args of [null, [1], "text", 3]) {
      const e = await refusal(invoke(ctx, req("desk.list_items", { args })));
      expect(e.code).toBe("invalid_args");
      expect(e.message).toBe("args for desk.list_items must be an object");
      expect(e.details).toEqual({ address: "desk.list_items" });
    }
    expect(calls).toEqual([]);
  });

  it("arguments over call_payload_bytes: budget_exceeded with the bound; exactly at it, the call runs", async () => {
    // Multi-byte text: the bound is in bytes, not characters.
    const args = { q: "é".repeat(1_000) };
    const bytes = Buffer.byteLength(JSON.stringify(args));
    const over = setup([entryOf("desk", "list_items")], undefined, { payload: bytes - 1 });
    const e = await refusal(invoke(over.ctx, req("desk.list_items", { args })));
    expect(e.code).toBe("budget_exceeded");
    expect(e.details).toEqual({ budget: "call_payload_bytes", limit: bytes - 1, requested: bytes, room: bytes - 1 });
    expect(e.message).toContain(`${bytes} bytes`);
    expect(over.calls).toEqual([]);
    const at = setup([entryOf("desk", "list_items")], undefined, { payload: bytes });
    await invoke(at.ctx, req("desk.list_items", { args }));
    expect(at.calls).toHaveLength(1);
  });

  it("a tool that may write, called directly without call_destructive_tool: destructive_tool_requires_approval; with it, the call runs", async () => {
    const write = entryOf("desk", "file_ticket", { safety: "approval", reason: "not_annotated" });
    const { ctx, calls } = setup([write]);
    const e = await refusal(invoke(ctx, req("desk.file_ticket", { args: { t: 1 } })));
    expect(e.code).toBe("destructive_tool_requires_approval");
    expect(e.details).toMatchObject({ address: "desk.file_ticket", reason: "not_annotated" });
    expect(calls).toEqual([]);
    await invoke(ctx, req("desk.file_ticket", { args: { t: 1 }, allowApproval: true }));
    expect(calls).toHaveLength(1);
  });

  it("a quarantined tool is refused by every path, naming its change and the command that reviews it", async () => {
    const pin = { state: "changed" as const, facts: { state: PinState.changed, policy: PinPolicy.pin, scope: PinScope.definition, direction: PinDirection.none }, quarantined: { reason: "changed" as const, change: "its description changed", flags: [{ reason: "hidden_instructions" }] as never } };
    const { ctx, calls } = setup([entryOf("desk", "list_items", { pin })]);
    for (const extra of [{}, { fromApp: "desk" }, { allowApproval: true }]) {
      const e = await refusal(invoke(ctx, req("desk.list_items", extra)));
      expect(e.code).toBe("quarantined");
      expect(e.message).toContain("(its description changed)");
      expect(e.details).toEqual({ address: "desk.list_items", reason: "changed", review: "atrium pins", accept: "atrium pins accept desk list_items", flags: ["hidden_instructions"] });
      expect(e.nextAction).toMatchObject({ tool: "search_tools", arguments: { query: "", connector: "desk" } });
      expect(e.nextAction!.purpose).toContain("list_items stays quarantined until a person runs `atrium pins accept desk list_items`");
    }
    expect(calls).toEqual([]);
  });

  it("a tool whose pin matches is called; one without flags names none", async () => {
    const matches = { state: "matches" as const, facts: { state: PinState.matches, policy: PinPolicy.pin, scope: PinScope.definition, direction: PinDirection.none } };
    const quarantined = { state: "new_tool" as const, facts: { state: PinState.new_tool, policy: PinPolicy.pin, scope: PinScope.definition, direction: PinDirection.none }, quarantined: { reason: "new_tool" as const, change: "", flags: [] } };
    const { ctx, calls } = setup([entryOf("desk", "list_items", { pin: matches }), entryOf("desk", "new_one", { pin: quarantined })]);
    await invoke(ctx, req("desk.list_items"));
    expect(calls).toHaveLength(1);
    const e = await refusal(invoke(ctx, req("desk.new_one")));
    expect(e.details).not.toHaveProperty("flags");
    expect(e.message).toContain(`is quarantined: ${pinReasonText.new_tool}; `);
  });

  it("a tool the core quarantines on its facts alone (no record of why) is refused all the same", async () => {
    const pin = { state: "changed" as const, facts: { state: PinState.changed, policy: PinPolicy.pin, scope: PinScope.definition, direction: PinDirection.none } };
    const { ctx, calls } = setup([entryOf("desk", "list_items", { pin })]);
    const e = await refusal(invoke(ctx, req("desk.list_items")));
    expect(e.code).toBe("quarantined");
    expect(e.details).not.toHaveProperty("flags");
    expect(calls).toEqual([]);
  });

  it("a connector's own app may not write through a tool of the approval class unless the connector's appWrites allows it", async () => {
    const { ctx, calls } = setup([entryOf("desk", "file_ticket", { safety: "approval", appWrites: false })]);
    const e = await refusal(invoke(ctx, req("desk.file_ticket", { fromApp: "desk" })));
    expect(e.details).toMatchObject({ reason: "writes_not_allowed" });
    expect(calls).toEqual([]);
  });

  it("a downstream app's call is judged by the app rules, not the read-only gate", async () => {
    const write = entryOf("desk", "file_ticket", { safety: "approval", appWrites: true });
    const { ctx, calls } = setup([write, entryOf("mail", "list", { appVisibility: AppVisibility.model_only })]);
    await invoke(ctx, req("desk.file_ticket", { fromApp: "desk" }));
    expect(calls).toHaveLength(1);
    const e = await refusal(invoke(ctx, req("desk.file_ticket", { fromApp: "board" })));
    expect(e.code).toBe("app_call_refused");
    expect(e.details).toEqual({ address: "desk.file_ticket", app: "board", reason: "other_connector" });
    expect(e.message).toContain("board's app may not call desk.file_ticket");
    const hidden = await refusal(invoke(ctx, req("mail.list", { fromApp: "mail" })));
    expect(hidden.code).toBe("app_call_refused");
  });

  it("a connector gone since the catalog resolved it: unavailable, not recovering", async () => {
    const { ctx } = setup([entryOf("gone", "list")]);
    const e = await refusal(invoke(ctx, req("gone.list")));
    expect(e.code).toBe("unavailable");
    expect(e.message).toBe("connector gone has been stopped");
    expect(e.recovering).toBe(false);
    expect(e.details).toEqual({ connector: "gone" });
  });

  it("the named connector is waited for (with the call's signal); a listing that is changing refuses the call", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const signal = new AbortController().signal;
    const settled = setup([entryOf("desk", "list_items")], undefined, { view: { settled: (s) => signals.push(s) } });
    await invoke(settled.ctx, req("desk.list_items", { signal }));
    expect(signals).toEqual([signal]);
    const changing = setup([entryOf("desk", "list_items")], undefined, { view: { refreshing: true } });
    const e = await refusal(invoke(changing.ctx, req("desk.list_items")));
    expect(e.message).toBe("the listing is changing");
    expect(changing.calls).toEqual([]);
  });

  it("a refused call is recorded with its error code once its tool was resolved", async () => {
    const { ctx, events } = setup([entryOf("desk", "list_items")]);
    await refusal(invoke(ctx, req("desk.list_items", { args: [] })));
    await refusal(invoke(ctx, req("nowhere.x")));
    expect(events.map((e) => e.event === "call" && e.outcome)).toEqual(["invalid_args"]);
  });
});

describe("a program's write: its approval, and every gate judged again after it", () => {
  const write = entryOf("desk", "file_ticket", { safety: "approval", reason: "not_annotated" });

  it("without an approval channel the write is refused as a direct one would be", async () => {
    const { ctx, calls } = setup([write]);
    const e = await refusal(invoke(ctx, req("desk.file_ticket", { flow: new RunFlow(), path: "program" })));
    expect(e.code).toBe("destructive_tool_requires_approval");
    expect(calls).toEqual([]);
  });

  it("the approval is asked with the entry, the arguments and their JSON; once given, the gates are judged again and the call runs", async () => {
    const { ctx, calls, resolved } = setup([write]);
    const asked: unknown[][] = [];
    await invoke(ctx, req("desk.file_ticket", { args: { t: 1 }, flow: new RunFlow(), approve: async (...a) => { asked.push(a); } }));
    expect(asked).toEqual([[write, { t: 1 }, '{"t":1}', undefined]]);
    expect(resolved).toEqual(["desk.file_ticket", "desk.file_ticket"]);
    expect(calls).toHaveLength(1);
  });

  it("a read-only call is not asked", async () => {
    const { ctx, calls, resolved } = setup([entryOf("desk", "list_items")]);
    let asked = 0;
    await invoke(ctx, req("desk.list_items", { flow: new RunFlow(), approve: async () => { asked++; } }));
    expect(asked).toBe(0);
    expect(resolved).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("a refused approval runs nothing", async () => {
    const { ctx, calls } = setup([write]);
    const e = await refusal(invoke(ctx, req("desk.file_ticket", { approve: async () => { throw new AtriumError("approval_declined", "no"); } })));
    expect(e.code).toBe("approval_declined");
    expect(calls).toEqual([]);
  });

  it("an approval that arrives after the run ended runs nothing", async () => {
    const { ctx, calls } = setup([write]);
    const controller = new AbortController();
    await expect(invoke(ctx, req("desk.file_ticket", { signal: controller.signal, approve: async () => { controller.abort(new Error("the run ended")); } }))).rejects.toThrow("the run ended");
    expect(calls).toEqual([]);
  });

  it("a tool quarantined while the person decided is refused after the answer", async () => {
    const entry = { ...write };
    const { ctx, calls } = setup([entry]);
    const e = await refusal(invoke(ctx, req("desk.file_ticket", { approve: async () => {
      entry.pin = { state: "changed", facts: { state: PinState.changed, policy: PinPolicy.pin, scope: PinScope.definition, direction: PinDirection.none }, quarantined: { reason: "changed", change: "", flags: [] } };
    } })));
    expect(e.code).toBe("quarantined");
    expect(calls).toEqual([]);
  });

  it("arguments over the payload bound are refused before the person is asked", async () => {
    const { ctx } = setup([write], undefined, { payload: 1_024 });
    let asked = 0;
    const e = await refusal(invoke(ctx, req("desk.file_ticket", { args: { long: "x".repeat(1_024) }, approve: async () => { asked++; } })));
    expect(e.code).toBe("budget_exceeded");
    expect(asked).toBe(0);
  });
});

describe("the data-flow guard on a program's calls (spec/data-flow.md)", () => {
  const files = entryOf("files", "read", { privateData: true });
  const mail = entryOf("mail", "send", { egress: true });
  const desk = entryOf("desk", "list_items");

  it("a call to a private connector counts as a read once every gate let it through; a refused one does not", async () => {
    const { ctx } = setup([files, entryOf("files", "bad", { privateData: true })]);
    const flow = new RunFlow();
    await refusal(invoke(ctx, req("files.bad", { flow, args: [] })));
    expect(flow.privateReads).toEqual([]);
    await invoke(ctx, req("files.read", { flow }));
    expect(flow.privateReads).toEqual(["files"]);
  });

  it("after a private read, a call to an egress connector is a flow: asked with what was read", async () => {
    const { ctx, calls } = setup([files, mail]);
    const flow = new RunFlow();
    await invoke(ctx, req("files.read", { flow }));
    const asked: unknown[] = [];
    await invoke(ctx, req("mail.send", { flow, approve: async (_e, _a, _j, from) => { asked.push(from); } }));
    expect(asked).toEqual([["files"]]);
    expect(calls.map((c) => c.name)).toEqual(["read", "send"]);
  });

  it("a flow with no one to ask is refused data_flow_requires_approval, no_question", async () => {
    const { ctx, calls } = setup([files, mail]);
    const flow = new RunFlow();
    await invoke(ctx, req("files.read", { flow }));
    const e = await refusal(invoke(ctx, req("mail.send", { flow })));
    expect(e.code).toBe("data_flow_requires_approval");
    expect(e.details).toEqual({ address: "mail.send", readFrom: ["files"], reason: "no_question" });
    expect(calls).toHaveLength(1);
  });

  it("a call to an egress connector before any private read, or a read of another connector after one, is no flow", async () => {
    const { ctx, calls } = setup([files, mail, desk]);
    const flow = new RunFlow();
    await invoke(ctx, req("mail.send", { flow }));
    expect(flow.privateReads).toEqual([]);
    await invoke(ctx, req("files.read", { flow }));
    await invoke(ctx, req("desk.list_items", { flow }));
    expect(calls).toHaveLength(3);
    expect(flow.privateReads).toEqual(["files"]);
  });

  it("a direct call of a private connector (no run) records nothing and runs", async () => {
    const { ctx, calls } = setup([files]);
    await invoke(ctx, req("files.read"));
    expect(calls).toHaveLength(1);
  });

  it("a direct call (no run) is judged by its class alone", async () => {
    const { ctx, calls } = setup([mail]);
    await invoke(ctx, req("mail.send"));
    expect(calls).toHaveLength(1);
  });
});

describe("the answer: credentials redacted, and none from a connector a reload stopped", () => {
  const answer = () => ({ content: [{ type: "text", text: FAKE.github.line }] });

  it("a connector that redacts has its answer's credentials replaced", async () => {
    const { ctx } = setup([entryOf("desk", "list_items")], linkOf({ answer }));
    const out = await invoke(ctx, req("desk.list_items"));
    expect(JSON.stringify(out.result)).not.toContain(FAKE.github.secret);
    expect(JSON.stringify(out.result)).toContain("[redacted:github]");
  });

  it("a connector the operator set redactSecrets false for answers as it is", async () => {
    const { ctx } = setup([entryOf("desk", "list_items")], linkOf({ answer, redacts: false }));
    const out = await invoke(ctx, req("desk.list_items"));
    expect(JSON.stringify(out.result)).toContain(FAKE.github.secret);
  });

  it("an answer the scan cannot read is not passed on: connector_call_failed", async () => {
    const unreadable = () => { const o: Record<string, unknown> = { content: [] }; Object.defineProperty(o, "structuredContent", { enumerable: true, get() { throw new Error("boom"); } }); return o; };
    const { ctx } = setup([entryOf("desk", "list_items")], linkOf({ answer: unreadable }));
    const e = await refusal(invoke(ctx, req("desk.list_items")));
    expect(e.code).toBe("connector_call_failed");
    expect(e.message).toContain("desk.list_items");
  });

  it("a connector a reload stopped while the call was out ends it with the connector's unavailable", async () => {
    const { ctx } = setup([entryOf("desk", "list_items")], linkOf({ stoppedAfterCall: true }));
    const e = await refusal(invoke(ctx, req("desk.list_items")));
    expect(e.message).toBe("desk was stopped by a reload");
  });
});

describe("a downstream app's UI document and a connector's prompts go through the same door", () => {
  const resource = { contents: [{ uri: "ui://desk/app.html", text: `<p>${FAKE.github.line}</p>` }] };

  it("readAppResource: the connector's answer, redacted; undefined for a connector atrium does not have", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const link = linkOf({ resource });
    const { ctx } = setup([], link, { view: { settled: (s) => signals.push(s) } });
    const signal = new AbortController().signal;
    const got = await readAppResource(ctx, "desk", "ui://desk/app.html", signal);
    expect(JSON.stringify(got)).toContain("[redacted:github]");
    expect(signals).toEqual([signal]);
    expect(link.seen).toEqual([signal]);
    expect(await readAppResource(ctx, "gone", "ui://gone/app.html")).toBeUndefined();
    const noView = setup([], linkOf({ resource }));
    expect(await readAppResource(noView.ctx, "desk", "ui://desk/app.html")).toBeUndefined();
  });

  it("readAppResource of an answer the scan cannot read: connector_call_failed naming the connector and the URI", async () => {
    const unreadable: Record<string, unknown> = {};
    Object.defineProperty(unreadable, "contents", { enumerable: true, get() { throw new Error("boom"); } });
    const { ctx } = setup([], linkOf({ resource: unreadable }), { view: {} });
    const e = await refusal(readAppResource(ctx, "desk", "ui://desk/app.html"));
    expect(e.code).toBe("connector_call_failed");
    expect(e.message).toContain("desk ui://desk/app.html");
  });

  it("readAppResource of a connector that does not redact answers as it is", async () => {
    const { ctx } = setup([], linkOf({ resource, redacts: false }), { view: {} });
    expect(JSON.stringify(await readAppResource(ctx, "desk", "ui://desk/app.html"))).toContain(FAKE.github.secret);
  });

  it("askPrompts: asked of a connector that offers prompts; undefined when it is ready and offers none, or atrium has no such connector", async () => {
    let waited = 0;
    const link = linkOf({ prompts: true });
    const offering = setup([], link, { view: { settled: () => { waited++; } } });
    const signal = new AbortController().signal;
    expect(await askPrompts(offering.ctx, "desk", "prompts/get", { name: "p" }, { wait: true, signal })).toEqual({ method: "prompts/get", params: { name: "p" } });
    expect(link.seen).toEqual([signal]);
    expect(waited).toBe(1);
    expect(await askPrompts(offering.ctx, "desk", "prompts/list", {}, { wait: false })).toEqual({ method: "prompts/list", params: {} });
    expect(waited).toBe(1);
    const none = setup([], linkOf({ prompts: false }), { view: {} });
    expect(await askPrompts(none.ctx, "desk", "prompts/list", {}, { wait: false })).toBeUndefined();
    expect(await askPrompts(offering.ctx, "gone", "prompts/list", {}, { wait: false })).toBeUndefined();
    expect(await askPrompts(setup([], linkOf({ prompts: true })).ctx, "desk", "prompts/list", {}, { wait: false })).toBeUndefined();
  });

  it("askPrompts of a connector that is not ready is asked all the same (its own answer says it is unavailable)", async () => {
    const { ctx } = setup([], linkOf({ prompts: false, ready: false }), { view: {} });
    expect(await askPrompts(ctx, "desk", "prompts/list", {}, { wait: false })).toEqual({ method: "prompts/list", params: {} });
  });
});
