// The misbehaving fixture servers (test/fixtures/*-server.ts) over real stdio: each one does exactly what
// its header comment documents, both on the raw wire and as seen through the SDK Client.
// Needs `npx tsc -p .` first (the fixtures run from dist/test/fixtures/).
import { existsSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, type Tool } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { fixturePath, RawStdioPeer, type FixtureName } from "./fixtures/raw-stdio.js";
import { HUGE_BYTES, HUGE_LINES, hugeText, unicodeHugeText } from "./fixtures/payloads.js";
import { generateManyTools, MANY_TOOLS_ANNOTATIONS } from "./fixtures/many-tools-catalog.js";
import { startModernHttp } from "./fixtures/modern-kit.js";
import { waitFor } from "./harness/until.js";

// ---------------------------------------------------------------------------------------------------
// Harness: every client / raw peer is tracked and torn down after each test, so no child is orphaned.

interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  errors: Error[];
}

const clients: Connected[] = [];
const peers: RawStdioPeer[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.client.close().catch(() => {})));
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

beforeAll(() => {
  for (const f of ["annotations-server", "nasty-server", "many-tools-server", "modern-server", "strict-init-server"] as const) {
    if (!existsSync(fixturePath(f))) throw new Error(`${fixturePath(f)} missing — run \`npx tsc -p .\` first`);
  }
});

function transportFor(name: FixtureName, env: Record<string, string>): { transport: StdioClientTransport; stderr: () => string } {
  const transport = new StdioClientTransport({ command: process.execPath, args: [fixturePath(name)], stderr: "pipe", env });
  let text = "";
  transport.stderr!.on("data", (d: Buffer) => (text += d.toString("utf8")));
  return { transport, stderr: () => text };
}

async function connect(name: FixtureName, env: Record<string, string> = {}): Promise<Connected> {
  const client = new Client({ name: "fixtures-test", version: "0.0.0" });
  const { transport, stderr } = transportFor(name, env);
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  const c: Connected = { client, transport, stderr, errors };
  clients.push(c);
  await client.connect(transport);
  return c;
}

async function raw(name: FixtureName, env: Record<string, string> = {}): Promise<RawStdioPeer> {
  const peer = new RawStdioPeer(fixturePath(name), env);
  peers.push(peer);
  await peer.initialize();
  return peer;
}

/**
 * Follow nextCursor with the SDK client until the list is exhausted, one request per page (SDK 2's
 * listTools() without a cursor walks every page itself, so the pages are requested directly).
 */
async function listAllSdk(client: Client): Promise<{ tools: Tool[]; pages: number }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} });
    pages++;
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return { tools, pages };
}

/** Same over the raw wire; returns every page's size too. */
async function listAllRaw(peer: RawStdioPeer): Promise<{ tools: Record<string, unknown>[]; pageSizes: number[] }> {
  const tools: Record<string, unknown>[] = [];
  const pageSizes: number[] = [];
  let cursor: string | undefined;
  do {
    const res = await peer.request("tools/list", cursor ? { cursor } : undefined);
    expect(res.error).toBeUndefined();
    const page = res.result as { tools: Record<string, unknown>[]; nextCursor?: string };
    pageSizes.push(page.tools.length);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return { tools, pageSizes };
}

type CallResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

async function call(client: Client, name: string, args: Record<string, unknown> = {}, timeout?: number): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args }, timeout ? { timeout } : undefined)) as CallResult;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the promise to reject");
}


// ---------------------------------------------------------------------------------------------------

describe("fixture-annotations", () => {
  const combos = ["true", "false", "absent"] as const;
  const expected: Record<string, Record<string, unknown> | undefined> = {};
  for (const ro of combos) {
    for (const de of combos) {
      const a: Record<string, unknown> = {};
      if (ro !== "absent") a.readOnlyHint = ro === "true";
      if (de !== "absent") a.destructiveHint = de === "true";
      expected[`ro_${ro}__de_${de}`] = a;
    }
  }
  expected.ro_malformed = { readOnlyHint: "true" };
  expected.no_annotations = undefined;

  it("puts every readOnlyHint × destructiveHint combination, the string hint and the missing object on the wire", async () => {
    const peer = await raw("annotations-server");
    const res = await peer.request("tools/list");
    const tools = (res.result as { tools: Array<Record<string, unknown>> }).tools;
    expect(tools.map((t) => t.name)).toEqual(Object.keys(expected));
    for (const t of tools) {
      if (expected[t.name as string] === undefined) expect(Object.hasOwn(t, "annotations")).toBe(false);
      else expect(t.annotations).toStrictEqual(expected[t.name as string]);
    }
    const malformed = tools.find((t) => t.name === "ro_malformed")!;
    expect(typeof (malformed.annotations as Record<string, unknown>).readOnlyHint).toBe("string");
    // "absent" really means absent: the key is not there, not `null`/`undefined`.
    expect(Object.keys(tools.find((t) => t.name === "ro_absent__de_absent")!.annotations as object)).toEqual([]);
    expect(Object.keys(tools.find((t) => t.name === "ro_true__de_absent")!.annotations as object)).toEqual(["readOnlyHint"]);
  });

  it("SDK Client: listTools() rejects the WHOLE list (SdkError INVALID_RESULT) because of one string hint", async () => {
    const { client } = await connect("annotations-server");
    const err = await rejection(client.listTools());
    expect(err).not.toBeInstanceOf(ProtocolError);
    expect(err).toBeInstanceOf(SdkError);
    expect((err as SdkError).code).toBe(SdkErrorCode.InvalidResult);
    // The zod issues are only in the message text (SDK 2 keeps no structured issues).
    const issues = JSON.parse((err as SdkError).message.replace(/^Invalid result for tools\/list: /, "")) as z.core.$ZodIssue[];
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: "invalid_type", expected: "boolean", path: ["tools", 9, "annotations", "readOnlyHint"] });
    // The connection survives; a permissive result schema gets the raw list through the same client.
    const loose = await client.request({ method: "tools/list" }, z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })) }));
    expect(loose.tools).toHaveLength(11);
    expect(loose.tools.find((t) => t.name === "ro_malformed")).toMatchObject({ annotations: { readOnlyHint: "true" } });
  });

  it("every tool echoes its arguments as text and structuredContent", async () => {
    const { client } = await connect("annotations-server");
    for (const name of Object.keys(expected)) {
      const args = { n: 1, s: "x", nested: { list: [1, "two", null] }, tool: name };
      const res = await call(client, name, args);
      expect(res.isError).toBeUndefined();
      expect(res.structuredContent).toStrictEqual({ tool: name, args });
      expect(res.content).toStrictEqual([{ type: "text", text: JSON.stringify({ tool: name, args }) }]);
    }
    expect((await call(client, "no_annotations")).structuredContent).toStrictEqual({ tool: "no_annotations", args: {} });
  });
});

// ---------------------------------------------------------------------------------------------------

const NASTY_TOOLS = ["echo", "hang", "slow", "crash", "huge", "unicode_huge", "malformed", "error_result", "throws", "stdout_garbage", "add_tool", "flood", "huge50", "mut", "mut_calls", "make_mut_destructive", "slow_write"];

describe("fixture-nasty", () => {
  it("lists its tools, all readOnlyHint: true, and echoes", async () => {
    const { client } = await connect("nasty-server");
    expect(client.getServerVersion()?.name).toBe("fixture-nasty");
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(NASTY_TOOLS);
    for (const t of tools) expect(t.annotations).toStrictEqual({ readOnlyHint: true });
    const args = { a: [1, 2, { b: "c" }], unicode: "é中😀" };
    expect((await call(client, "echo", args)).structuredContent).toStrictEqual({ tool: "echo", args });
  });

  it("hang never answers: the SDK times out with SdkError REQUEST_TIMEOUT, sends notifications/cancelled, and the server sees it", async () => {
    const c = await connect("nasty-server");
    const started = Date.now();
    const err = await rejection(call(c.client, "hang", {}, 300));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(err).toBeInstanceOf(SdkError);
    expect((err as SdkError).code).toBe(SdkErrorCode.RequestTimeout); // SDK 1: McpError -32001
    expect((err as SdkError).message).toBe("Request timed out");
    expect((err as SdkError).data).toStrictEqual({ timeout: 300 });
    await waitFor(() => /fixture-nasty: hang cancelled \d+/.test(c.stderr()), "the server saw the hang cancelled");
    // The server is still alive and responsive after the abandoned call.
    expect((await call(c.client, "echo", { still: "here" })).structuredContent).toStrictEqual({ tool: "echo", args: { still: "here" } });
  });

  it("hang really hangs on the raw wire (no response at all, even after cancellation)", async () => {
    const peer = await raw("nasty-server");
    const pending = peer.request("tools/call", { name: "hang", arguments: {} }, 400);
    await expect(pending).rejects.toThrow(/no response within 400 ms/);
    expect(peer.lines.filter((l) => l.includes('"id":2'))).toEqual([]);
  });

  it("slow waits ms, reports progress when asked, and is cancellable", async () => {
    const c = await connect("nasty-server");
    const t0 = Date.now();
    const progress: number[] = [];
    const res = (await c.client.callTool({ name: "slow", arguments: { ms: 150 } }, {
      onprogress: (p) => progress.push(p.progress),
    })) as CallResult;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(res.structuredContent).toStrictEqual({ waited: 150 });
    // SDK quirk (1.32.2 and 2.4.0): notifications are dispatched on a microtask but responses synchronously, so when
    // the final progress and the response land in the same stdout chunk the client has already dropped the
    // progress handler — that progress is lost and reported to onerror as "unknown token".
    expect(progress[0]).toBe(0);
    const lost = c.errors.filter((e) => /progress notification for an unknown token/.test(e.message));
    expect(progress.length + lost.length).toBe(2);

    // The wire itself always carries 0/1, 1/1, then the result.
    const peer = await raw("nasty-server");
    await peer.request("tools/call", { name: "slow", arguments: { ms: 20 }, _meta: { progressToken: "tok" } });
    expect(peer.lines.slice(1).map((l) => JSON.parse(l) as { method?: string; params?: { progress?: number } })).toMatchObject([
      { method: "notifications/progress", params: { progressToken: "tok", progress: 0, total: 1 } },
      { method: "notifications/progress", params: { progressToken: "tok", progress: 1, total: 1 } },
      { id: 2, result: { structuredContent: { waited: 20 } } },
    ]);

    const err = await rejection(call(c.client, "slow", { ms: 5_000 }, 200));
    expect((err as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    await waitFor(() => /fixture-nasty: slow cancelled \d+/.test(c.stderr()), "the server saw slow cancelled");
  });

  it("crash kills the process mid-call: SDK sees SdkError CONNECTION_CLOSED; raw sees exit 1 + stderr", async () => {
    const c = await connect("nasty-server");
    let closed = false;
    c.client.onclose = () => (closed = true);
    const err = await rejection(call(c.client, "crash"));
    expect(err).toBeInstanceOf(SdkError);
    expect((err as SdkError).code).toBe(SdkErrorCode.ConnectionClosed); // SDK 1: McpError -32000
    expect((err as SdkError).message).toBe("Connection closed");
    expect(closed).toBe(true);
    expect(c.stderr()).toContain("fixture-nasty: crashing on purpose\n");

    const peer = await raw("nasty-server");
    const pending = peer.request("tools/call", { name: "crash", arguments: {} }, 5_000).catch((e: Error) => e);
    expect(await peer.exited).toStrictEqual({ code: 1, signal: null });
    expect(peer.stderr).toBe("fixture-nasty: crashing on purpose\n");
    expect(String(await pending)).toMatch(/child exited \(code 1, signal null\) without responding/); // never answered
    expect(peer.lines.some((l) => l.includes('"id":2'))).toBe(false);
  });

  it("huge is exactly 1,048,576 bytes of deterministic ASCII in one text block", async () => {
    const { client } = await connect("nasty-server");
    const res = await call(client, "huge");
    expect(res.content).toHaveLength(1);
    const text = res.content[0].text!;
    expect(Buffer.byteLength(text, "utf8")).toBe(1_048_576);
    expect(text.length).toBe(1_048_576);
    expect(text).toBe(hugeText());
    const lines = text.split("\n");
    expect(lines.pop()).toBe(""); // ends with a newline
    expect(lines).toHaveLength(HUGE_LINES);
    expect(lines.every((l) => l.length === 63)).toBe(true);
    expect(lines[16383]).toMatch(/^16383:0123456789abcdef/);
    expect(res.structuredContent).toStrictEqual({ bytes: HUGE_BYTES, lines: HUGE_LINES });
  });

  it("unicode_huge carries 2-, 3- and 4-byte UTF-8 characters intact", async () => {
    const { client } = await connect("nasty-server");
    const res = await call(client, "unicode_huge");
    const text = res.content[0].text!;
    expect(text).toBe(unicodeHugeText());
    expect(Buffer.byteLength(text, "utf8")).toBe(202_000);
    for (const ch of ["é", "中", "😀"]) expect(text).toContain(ch);
    expect(text).not.toContain("\uFFFD");
    expect(res.structuredContent).toStrictEqual({ bytes: 202_000, codePoints: 82_000, utf16Units: 102_000, lines: 2000 });
  });

  it("malformed goes over the wire verbatim; the SDK Client rejects it with SdkError INVALID_RESULT (not ProtocolError)", async () => {
    const peer = await raw("nasty-server");
    const res = await peer.request("tools/call", { name: "malformed", arguments: {} });
    expect(res.error).toBeUndefined();
    expect(res.result).toStrictEqual({ content: [{ type: "nonsense", value: 1 }, "bare string", { type: "text" }] });

    const { client, errors } = await connect("nasty-server");
    const err = await rejection(call(client, "malformed"));
    expect(err).not.toBeInstanceOf(ProtocolError);
    expect((err as SdkError).code).toBe(SdkErrorCode.InvalidResult);
    const issues = JSON.parse((err as SdkError).message.replace(/^Invalid result for tools\/call: /, "")) as z.core.$ZodIssue[];
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((i) => i.path[0] === "content")).toBe(true);
    expect(issues.map((i) => i.path[1]).sort()).toEqual([0, 1, 2]);
    expect(errors).toEqual([]); // not routed to onerror; the connection stays usable
    expect((await call(client, "echo", { ok: 1 })).structuredContent).toStrictEqual({ tool: "echo", args: { ok: 1 } });
  });

  it("error_result is a normal result with isError: true", async () => {
    const { client } = await connect("nasty-server");
    const res = await call(client, "error_result");
    expect(res).toStrictEqual({ isError: true, content: [{ type: "text", text: "downstream said no" }] });
  });

  it("throws becomes a JSON-RPC error (-32603 / the thrown error's code), which the SDK Client raises as ProtocolError", async () => {
    const peer = await raw("nasty-server");
    const wire = await peer.request("tools/call", { name: "throws", arguments: {} });
    expect(wire.result).toBeUndefined();
    expect(wire.error).toStrictEqual({ code: -32603, message: "fixture-nasty: thrown on purpose" });
    const coded = await peer.request("tools/call", { name: "throws", arguments: { code: -32099, message: "custom" } });
    expect(coded.error).toStrictEqual({ code: -32099, message: "MCP error -32099: custom" });
    const unknown = await peer.request("tools/call", { name: "no_such_tool", arguments: {} });
    expect(unknown.error).toStrictEqual({ code: -32602, message: "MCP error -32602: Tool no_such_tool not found" });

    const { client } = await connect("nasty-server");
    const err = await rejection(call(client, "throws", { message: "kaboom" }));
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe(ProtocolErrorCode.InternalError); // -32603
    expect((err as ProtocolError).message).toBe("kaboom"); // SDK 1: "MCP error -32603: kaboom"
  });

  it("stdout_garbage: the SDK transport skips the non-JSON line silently and the call succeeds", async () => {
    const { client, errors } = await connect("nasty-server");
    const res = await call(client, "stdout_garbage");
    expect(res.structuredContent).toStrictEqual({ ok: true });
    expect(errors).toEqual([]); // SDK 1 reported a SyntaxError to onerror
  });

  it("add_tool adds an echo tool and sends notifications/tools/list_changed", async () => {
    const { client } = await connect("nasty-server");
    let notified = 0;
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      notified++;
    });
    const res = await call(client, "add_tool", { name: "late_tool" });
    expect(res.structuredContent).toStrictEqual({ added: "late_tool", total: NASTY_TOOLS.length + 1 });
    await waitFor(() => notified === 1, "one notification");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...NASTY_TOOLS, "late_tool"]);
    expect(tools.at(-1)!.annotations).toStrictEqual({ readOnlyHint: true });
    expect((await call(client, "late_tool", { x: 1 })).structuredContent).toStrictEqual({ tool: "late_tool", args: { x: 1 } });
    expect((await call(client, "add_tool", { name: "late_tool" })).isError).toBe(true);

    // On the raw wire the notification precedes the tools/call response.
    const peer = await raw("nasty-server");
    await peer.request("tools/call", { name: "add_tool", arguments: { name: "raw_added" } });
    const iNote = peer.lines.findIndex((l) => l.includes('"notifications/tools/list_changed"'));
    const iResp = peer.lines.findIndex((l) => l.includes('"raw_added"'));
    expect(iNote).toBeGreaterThan(-1);
    expect(iNote).toBeLessThan(iResp);
  });

  it("FIXTURE_PAGE_SIZE pages tools/list with nextCursor; all tools arrive across pages", async () => {
    const peer = await raw("nasty-server", { FIXTURE_PAGE_SIZE: "3" });
    const first = await peer.request("tools/list");
    expect((first.result as { tools: unknown[] }).tools).toHaveLength(3);
    expect(typeof first.result!.nextCursor).toBe("string");
    const { tools, pageSizes } = await listAllRaw(peer);
    expect(pageSizes).toEqual(Array.from({ length: Math.ceil(NASTY_TOOLS.length / 3) }, (_, i) => Math.min(3, NASTY_TOOLS.length - 3 * i)));
    expect(tools.map((t) => t.name)).toEqual(NASTY_TOOLS);
    const bad = await peer.request("tools/list", { cursor: "garbage" });
    expect(bad.error?.code).toBe(-32602);

    const { client } = await connect("nasty-server", { FIXTURE_PAGE_SIZE: "4" });
    const all = await listAllSdk(client);
    expect(all.pages).toBe(Math.ceil(NASTY_TOOLS.length / 4));
    expect(all.tools.map((t) => t.name)).toEqual(NASTY_TOOLS);
  });

  it("FIXTURE_CRASH_ON_START=1 exits 3 with the stderr line before speaking", async () => {
    const peer = new RawStdioPeer(fixturePath("nasty-server"), { FIXTURE_CRASH_ON_START: "1" });
    peers.push(peer);
    expect(await peer.exited).toStrictEqual({ code: 3, signal: null });
    expect(peer.stderr).toBe("fixture-nasty: refusing to start\n");
    expect(peer.lines).toEqual([]);

    const client = new Client({ name: "fixtures-test", version: "0.0.0" });
    const { transport, stderr } = transportFor("nasty-server", { FIXTURE_CRASH_ON_START: "1" });
    clients.push({ client, transport, stderr, errors: [] });
    const err = await rejection(client.connect(transport));
    expect(err).toBeInstanceOf(SdkError);
    expect((err as SdkError).code).toBe(SdkErrorCode.ConnectionClosed);
    await waitFor(() => stderr().includes("fixture-nasty: refusing to start"), "the refusal on stderr");
  });

  it("FIXTURE_STDERR_SPAM=N writes N junk lines to stderr and still serves", async () => {
    const c = await connect("nasty-server", { FIXTURE_STDERR_SPAM: "2000" });
    expect((await call(c.client, "echo", { a: 1 })).structuredContent).toStrictEqual({ tool: "echo", args: { a: 1 } });
    await waitFor(() => c.stderr().split("\n").filter((l) => l.startsWith("fixture-nasty: stderr junk line ")).length === 2000, "2,000 stderr lines");
    expect(c.stderr()).toContain("fixture-nasty: stderr junk line 2000 of 2000 ");
  });
});

// ---------------------------------------------------------------------------------------------------

describe("fixture-many", () => {
  it("lists 500 deterministic read-only tools, 100 per page", async () => {
    const peer = await raw("many-tools-server");
    const { tools, pageSizes } = await listAllRaw(peer);
    expect(pageSizes).toEqual([100, 100, 100, 100, 100]);
    expect(tools).toStrictEqual(JSON.parse(JSON.stringify(generateManyTools(500))));
    expect(new Set(tools.map((t) => t.name)).size).toBe(500);
    for (const t of tools) {
      expect(t.name).toMatch(/^[a-z]+_[a-z]+_[a-z]+$/);
      expect(t.annotations).toStrictEqual(MANY_TOOLS_ANNOTATIONS);
      expect((t.description as string).length).toBeGreaterThan(20);
    }
    expect(tools[0].name).toBe("github_list_issues");
    const bad = await peer.request("tools/list", { cursor: "not-a-cursor" });
    expect(bad.error?.code).toBe(-32602);
  });

  it("SDK Client pages through FIXTURE_TOOL_COUNT tools and every tool echoes", async () => {
    const { client } = await connect("many-tools-server", { FIXTURE_TOOL_COUNT: "650" });
    const { tools, pages } = await listAllSdk(client);
    expect(pages).toBe(7);
    expect(tools).toHaveLength(650);
    expect(new Set(tools.map((t) => t.name)).size).toBe(650);
    expect(tools[560].name).toBe("github_list_issues_2");
    for (const name of [tools[0].name, tools[337].name, tools[649].name]) {
      const args = { query: "needle", limit: 5 };
      expect((await call(client, name, args)).structuredContent).toStrictEqual({ tool: name, args });
    }
  });

  it("is identical across runs", async () => {
    const a = await raw("many-tools-server", { FIXTURE_TOOL_COUNT: "120" });
    const b = await raw("many-tools-server", { FIXTURE_TOOL_COUNT: "120" });
    const [la, lb] = await Promise.all([listAllRaw(a), listAllRaw(b)]);
    expect(la.pageSizes).toEqual([100, 20]);
    expect(la.tools).toStrictEqual(lb.tools);
  });
});

// ---------------------------------------------------------------------------------------------------
// The revision fixtures: a 2026-07-28-only server (SDK 2's serving entries) and a 2025-11-25 server
// that mishandles requests before initialize.

/** The per-request envelope a 2026-07-28 request carries. */
const ENVELOPE = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {} } };
const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } };

function peer(name: FixtureName, env: Record<string, string> = {}): RawStdioPeer {
  const p = new RawStdioPeer(fixturePath(name), env);
  peers.push(p);
  return p;
}

async function modernClient(env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "fixtures-test", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const { transport, stderr } = transportFor("modern-server", env);
  clients.push({ client, transport, stderr, errors: [] });
  await client.connect(transport);
  return client;
}

describe("fixture-modern", () => {
  it("over stdio speaks only 2026-07-28: server/discover offers it, initialize is refused with -32022 naming it", async () => {
    const p = peer("modern-server");
    const discover = await p.request("server/discover", ENVELOPE);
    expect(discover.result).toMatchObject({ supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: true } } });
    const init = await p.request("initialize", INITIALIZE);
    expect(init.error).toMatchObject({ code: -32022, data: { supported: ["2026-07-28"] } });
  });

  it("MODERN_DISCOVER=malformed answers server/discover with something that is not a DiscoverResult; MODERN_LEGACY=serve serves initialize", async () => {
    const p = peer("modern-server", { MODERN_DISCOVER: "malformed", MODERN_LEGACY: "serve" });
    const discover = await p.request("server/discover", ENVELOPE);
    expect(discover.result).toEqual({ supportedVersions: "2026-07-28", note: "not a DiscoverResult" });
    expect((await p.request("initialize", INITIALIZE)).result).toMatchObject({ protocolVersion: "2025-11-25" });
    expect((await p.request("tools/call", { name: "server_era", arguments: {} })).result).toMatchObject({ content: [{ text: "legacy" }] });
  });

  it("a pinned SDK client lists its tools with the ttlMs hint, calls them on the modern era, and add_tool and harden reach a subscriptions/listen stream", async () => {
    const client = await modernClient({ MODERN_TTL_MS: "250" });
    const list = (await client.request({ method: "tools/list", params: {} })) as { tools: Tool[]; ttlMs?: number };
    expect(list.tools.map((t) => t.name)).toEqual(["read_note", "slow_read", "server_era", "delete_note", "add_tool", "harden"]);
    expect(list.ttlMs).toBe(250);
    expect((await call(client, "server_era")).content[0].text).toBe("modern");
    let changes = 0;
    client.setNotificationHandler("notifications/tools/list_changed", () => { changes++; });
    await client.listen({ toolsListChanged: true });
    await call(client, "add_tool", { name: "late" });
    await waitFor(() => changes === 1, "one tools/list_changed");
    await call(client, "harden");
    await waitFor(() => changes === 2, "a second tools/list_changed");
    const after = (await client.request({ method: "tools/list", params: {} })) as { tools: Tool[] };
    expect(after.tools.map((t) => t.name)).toContain("late");
    expect(after.tools.find((t) => t.name === "read_note")?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
  });

  it("MODERN_LIST_CHANGED=false advertises no tools.listChanged and announces nothing", async () => {
    const client = await modernClient({ MODERN_LIST_CHANGED: "false" });
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    let changes = 0;
    client.setNotificationHandler("notifications/tools/list_changed", () => { changes++; });
    await call(client, "add_tool", { name: "quiet" });
    // A request after add_tool: by its answer, anything add_tool announced has arrived.
    expect(((await client.request({ method: "tools/list", params: {} })) as { tools: Tool[] }).tools.map((t) => t.name)).toContain("quiet");
    expect(changes).toBe(0);
  });

  it("over Streamable HTTP the same: 2026-07-28 only, and a change reaches the listen stream through the handler's bus", async () => {
    const http = await startModernHttp();
    try {
      const refused = await fetch(http.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INITIALIZE }) });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toMatchObject({ code: -32022, data: { supported: ["2026-07-28"] } });
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
      const client = new Client({ name: "fixtures-test", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      try {
        let changes = 0;
        client.setNotificationHandler("notifications/tools/list_changed", () => { changes++; });
        await client.listen({ toolsListChanged: true });
        await call(client, "add_tool", { name: "remote_late" });
        await waitFor(() => changes === 1, "one tools/list_changed");
        expect(http.state.extra).toEqual(["remote_late"]);
        expect(http.methods).toContain("subscriptions/listen 2026-07-28");
      } finally {
        await client.close();
      }
    } finally {
      await http.close();
    }
  });
});

describe("fixture-strict-init", () => {
  it("exits with code 3 on a request before initialize", async () => {
    const p = peer("strict-init-server");
    await expect(p.request("server/discover", ENVELOPE)).rejects.toThrow(/exited \(code 3/);
    expect((await p.exited).code).toBe(3);
  });

  it("STRICT_INIT=silent never answers a request before initialize, then serves", async () => {
    const p = peer("strict-init-server", { STRICT_INIT: "silent" });
    await expect(p.request("server/discover", ENVELOPE, 300)).rejects.toThrow(/no response within 300 ms/);
    expect((await p.request("initialize", INITIALIZE)).result).toMatchObject({ protocolVersion: "2025-11-25" });
    p.notify("notifications/initialized");
    expect((await p.request("tools/call", { name: "peek", arguments: {} })).result).toMatchObject({ content: [{ text: "peeked" }] });
  });
});
