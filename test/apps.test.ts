// Downstream MCP Apps through atrium, without a browser (spec/app-calls.md): what a direct
// call's result says about the tool's UI per host kind, what resources/read serves for it, and
// which of an app's own calls run — each shown from the downstream's side, in the fixture's call
// log. The browser suite (test/browser/apps-e2e.test.ts) renders the same apps through AppBridge.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startAtrium, nodeServer, fixture, type Atrium } from "./harness/atrium-client.js";
import { core } from "../glue/decisions/core.js";
import { invoke } from "../glue/calls/invoke.js";
import { fakeDownstream } from "./harness/fake-downstream.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";
import type { Catalog } from "../glue/catalog/catalog.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";
import { AppVisibility } from "../glue/decisions/generated/spec.js";
import { atriumUiUri, parseAtriumUiUri } from "../glue/apps/uri.js";
import { allowAttribute, cspFor, sanitizeCsp, sanitizePermissions } from "../glue/apps/csp.js";
import { appMeta } from "../glue/apps/result-meta.js";
import { relayPage } from "../glue/apps/relay-page.js";
import { PAGE_GUARD_CSP, PAGE_GUARD_SCRIPT } from "../glue/views/page-guard.js";

const logs = mkdtempSync(join(tmpdir(), "atrium-apps-"));
const logOf = (name: string) => join(logs, `${name}.log`);
/** Every tools/call the fixture named `name` received, in order. */
const received = (name: string): { tool: string; args: unknown }[] =>
  existsSync(logOf(name)) ? readFileSync(logOf(name), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
const board = (name: string, extra: Record<string, unknown> = {}) => nodeServer(fixture("apps-server"), { env: { FIXTURE_CALL_LOG: logOf(name), FIXTURE_PEER: "other" }, ...extra });

const BOARD_UI = "ui://atrium/c/board/board/app.html";

afterAll(() => rmSync(logs, { recursive: true, force: true }));

describe("downstream apps on an MCP Apps host", () => {
  let a: Atrium;
  beforeAll(async () => {
    a = await startAtrium({ apps: true, config: { mcpServers: { board: board("board"), other: board("other"), writer: board("writer", { appWrites: true }) } } });
  });
  afterAll(async () => { await a.close(); });
  const app = (connector: string, tool: string, args: Record<string, unknown> = {}) => a.call("call_app_tool", { connector, tool, arguments: args }) as Promise<any>;

  it("A6: call_tool of a tool with a UI names it under atrium's URI in both keys; the downstream's content is untouched", async () => {
    const r: any = await a.call("call_tool", { address: "board.show_board", args: {} });
    expect(r._meta).toEqual({ ui: { resourceUri: BOARD_UI }, "ui/resourceUri": BOARD_UI });
    expect(r.structuredContent).toEqual({ items: ["first", "second"] });
    expect(r.content).toEqual([{ type: "text", text: JSON.stringify({ items: ["first", "second"] }) }]);
  });

  it("A6: call_destructive_tool keeps the UI the same way", async () => {
    const r: any = await a.call("call_destructive_tool", { address: "board.show_board", args: {}, reason: "look" });
    expect(r._meta["ui/resourceUri"]).toBe(BOARD_UI);
  });

  it("A6: value mode, a projection or a tool without a UI name none", async () => {
    expect(((await a.call("call_tool", { address: "board.show_board", resultMode: "value" })) as any)._meta).toBeUndefined();
    expect(((await a.call("call_tool", { address: "board.show_board", fields: ["items"] })) as any)._meta).toBeUndefined();
    expect(((await a.call("call_tool", { address: "board.peek_secret" })) as any)._meta).toBeUndefined();
  });

  it("A7: resources/read of atrium's URI serves the relay around the downstream document, as an MCP App, CSP and permissions carried stricter", async () => {
    const r = await a.client.readResource({ uri: BOARD_UI });
    const c: any = r.contents[0];
    expect(c.uri).toBe(BOARD_UI);
    expect(c.mimeType).toBe("text/html;profile=mcp-app");
    // 'data:' and the keyword smuggled with a domain would loosen the policy: dropped; the unknown
    // permission too; the downstream's own domain is not atrium's.
    expect(c._meta).toEqual({ ui: { csp: { connectDomains: ["https://api.board.test"], resourceDomains: ["https://cdn.board.test"] }, permissions: { clipboardWrite: {} }, prefersBorder: true } });
    expect(c.text).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' https://cdn.board.test;`);
    expect(c.text).toContain("connect-src https://api.board.test; frame-src 'none'; base-uri 'none'; object-src 'none'");
    const config = JSON.parse(/<script type="application\/json" id="atrium-relay">(.*?)<\/script>/s.exec(c.text)![1]);
    expect(config).toMatchObject({ connector: "board", tool: "call_app_tool", allow: "clipboard-write" });
    expect(Buffer.from(config.html, "base64").toString("utf8")).toContain('<h2 id="title">Board</h2>');
    expect(c.text).not.toContain("unsafe-eval");
  });

  it("A7: a URI of no connector, or of a document the downstream does not have, does not exist", async () => {
    await expect(a.client.readResource({ uri: "ui://atrium/c/nobody/board/app.html" })).rejects.toThrow(/not found/i);
    await expect(a.client.readResource({ uri: "ui://atrium/c/board" })).rejects.toThrow(/not found/i);
    await expect(a.client.readResource({ uri: "ui://atrium/c/board/board/missing.html" })).rejects.toThrow(/board\/missing\.html/);
  });

  it("call_app_tool is listed for the app only (visibility app), never for the model", async () => {
    const { tools } = await a.client.listTools();
    expect(tools.find((t) => t.name === "call_app_tool")?._meta).toEqual({ ui: { visibility: ["app"] } });
  });

  it("A1: an app's read of its own connector runs and reaches the downstream, app-only tools included", async () => {
    const before = received("board").length;
    const r = await app("board", "list_items");
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ items: ["first", "second"] });
    expect(received("board").slice(before)).toEqual([{ tool: "list_items", args: {} }]);
  });

  it("A2: an app's write is refused, app_call_refused, and never reaches the downstream", async () => {
    const before = received("board").length;
    const r = await app("board", "add_item", { text: "from the app" });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "app_call_refused", retryable: false, details: { address: "board.add_item", app: "board", reason: "writes_not_allowed" } });
    expect(r.structuredContent.error.message).toMatch(/appWrites/);
    expect(received("board").slice(before)).toEqual([]);
  });

  it("A2: with appWrites on its connector, the app's write runs", async () => {
    const before = received("writer").length;
    const r = await app("writer", "add_item", { text: "from the app" });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent.items).toContain("from the app");
    expect(received("writer").slice(before)).toEqual([{ tool: "add_item", args: { text: "from the app" } }]);
  });

  it("A4: a model-only tool is refused to the app; the model still reaches it through call_tool", async () => {
    const before = received("board").length;
    const r = await app("board", "peek_secret");
    expect(r.structuredContent.error).toMatchObject({ code: "app_call_refused", details: { reason: "not_app_visible" } });
    expect(received("board").slice(before)).toEqual([]);
    expect(((await a.call("call_tool", { address: "board.peek_secret" })) as any).structuredContent).toEqual({ secret: "model only" });
  });

  it("A3: whatever name an app sends is a tool of its own connector: another connector's tools stay out of reach", async () => {
    const before = received("other").length;
    for (const tool of ["other.list_items", "call_tool", "call_app_tool", "list_items.other"]) {
      const r = await app("board", tool, { address: "other.list_items", connector: "other", tool: "list_items" });
      expect(r.structuredContent.error.code).toBe("unknown_tool");
    }
    expect(received("other").slice(before)).toEqual([]);
  });

  it("the downstream's own error reaches the app as its own result", async () => {
    expect(await app("board", "fail_read")).toEqual({ content: [{ type: "text", text: "the board is closed" }], isError: true });
  });
});

describe("downstream apps on a plain host: no change", () => {
  let a: Atrium;
  beforeAll(async () => { a = await startAtrium({ config: { mcpServers: { board: board("plain") } } }); });
  afterAll(async () => { await a.close(); });

  it("A6: call_tool answers as before downstream UIs: no _meta", async () => {
    const r: any = await a.call("call_tool", { address: "board.show_board", args: {} });
    expect(r).toEqual({ content: [{ type: "text", text: JSON.stringify({ items: ["first", "second"] }) }], structuredContent: { items: ["first", "second"] } });
  });

  it("A7: atrium's URI for the downstream UI does not exist (-32002), and the downstream is not asked", async () => {
    await expect(a.client.readResource({ uri: BOARD_UI })).rejects.toMatchObject({ code: -32002 });
  });

  it("H14: call_app_tool is neither listed nor callable", async () => {
    const { tools } = await a.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("call_app_tool");
    await expect(a.call("call_app_tool", { connector: "board", tool: "list_items" })).rejects.toThrow(/Unknown tool: call_app_tool/);
    expect(received("plain").map((c) => c.tool)).toEqual(["show_board"]);
  });
});

describe("downstream apps on 2026-07-28: each request judged on its own capabilities (H13)", () => {
  let apps: Atrium, plain: Atrium;
  beforeAll(async () => {
    [apps, plain] = await Promise.all([
      startAtrium({ revision: "2026-07-28", apps: true, config: { mcpServers: { board: board("modern-apps") } } }),
      startAtrium({ revision: "2026-07-28", config: { mcpServers: { board: board("modern-plain") } } }),
    ]);
  });
  afterAll(async () => { await Promise.all([apps, plain].map((a) => a?.close())); });

  it("an Apps request gets the UI named, its document, and call_app_tool; a plain one none of them", async () => {
    const r: any = await apps.call("call_tool", { address: "board.show_board" });
    expect(r._meta["ui/resourceUri"]).toBe(BOARD_UI);
    expect((await apps.client.readResource({ uri: BOARD_UI })).contents[0].mimeType).toBe("text/html;profile=mcp-app");
    expect(((await apps.call("call_app_tool", { connector: "board", tool: "list_items" })) as any).structuredContent).toEqual({ items: ["first", "second"] });

    // (Every 2026-07-28 result carries the SDK's serverInfo in _meta; nothing of the UI.)
    const p: any = await plain.call("call_tool", { address: "board.show_board" });
    expect(Object.keys(p._meta ?? {})).toEqual(["io.modelcontextprotocol/serverInfo"]);
    await expect(plain.client.readResource({ uri: BOARD_UI })).rejects.toThrow(/not found/i);
    // Listed to every 2026-07-28 client (H14), run only for an Apps request.
    expect((await plain.client.listTools()).tools.map((t) => t.name)).toContain("call_app_tool");
    await expect(plain.call("call_app_tool", { connector: "board", tool: "list_items" })).rejects.toThrow(/Unknown tool: call_app_tool/);
    expect(received("modern-plain").map((c) => c.tool)).toEqual(["show_board"]);
  });
});

describe("downstream apps, the pieces", () => {
  const entry = (connectorId: string, extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
    address: `${connectorId}.list_items`, connectorId, name: "list_items", description: "", inputSchema: {}, safety: "read_only", reason: "annotated_read_only",
    maxResultBytes: 50_000, appVisibility: AppVisibility.app, appWrites: true, ...extra,
  });
  const catalogResolving = (e: CatalogEntry, ran: string[]) =>
    ({ viewOf: () => undefined, resolve: () => ({ entry: e }), locate: () => ({ resolve: () => ({ entry: e }) }) }) as unknown as Catalog;
  const downstreamRecording = (ran: string[]) => fakeDownstream(async (name) => { ran.push(name); return { content: [] }; });

  it("A3 on the call path: a call from one connector's app that resolves to another connector's tool is refused before it is made", async () => {
    const ran: string[] = [];
    const ctx = { catalog: catalogResolving(entry("other"), ran), downstream: downstreamRecording(ran), core: core(), callPayloadBytes: 65_536 };
    await expect(invoke(ctx, { principal: LOCAL_PRINCIPAL, address: "other.list_items", args: {}, allowApproval: false, fromApp: "board" })).rejects.toMatchObject({ code: "app_call_refused", details: { reason: "other_connector" } });
    await expect(invoke(ctx, { principal: LOCAL_PRINCIPAL, address: "other.list_items", args: {}, allowApproval: false, fromApp: "other" })).resolves.toBeDefined();
    expect(ran).toEqual(["list_items"]);
  });

  it("A2 on the call path: call_destructive_tool's allowApproval does not open a write to an app", async () => {
    const ran: string[] = [];
    const ctx = { catalog: catalogResolving(entry("board", { safety: "approval", appWrites: false }), ran), downstream: downstreamRecording(ran), core: core(), callPayloadBytes: 65_536 };
    await expect(invoke(ctx, { principal: LOCAL_PRINCIPAL, address: "board.list_items", args: {}, allowApproval: true, fromApp: "board" })).rejects.toMatchObject({ code: "app_call_refused", details: { reason: "writes_not_allowed" } });
    expect(ran).toEqual([]);
  });

  it("atrium's URI for a downstream UI round-trips, and no other URI parses as one", () => {
    expect(atriumUiUri("board", "ui://board/app.html")).toBe(BOARD_UI);
    expect(parseAtriumUiUri(BOARD_UI)).toEqual({ connector: "board", downstream: "ui://board/app.html" });
    for (const uri of ["ui://atrium/view/v1", "ui://atrium/c/", "ui://atrium/c/board", "ui://atrium/c/board/", "ui://atrium/c/Board/x", "ui://atrium/c//x", "ui://board/app.html"]) expect(parseAtriumUiUri(uri)).toBeUndefined();
  });

  it("declared CSP domains keep only plain http(s)/ws(s) sources; permissions only the four the specification names", () => {
    expect(sanitizeCsp({ connectDomains: ["https://a.test", "wss://rt.a.test:8443", "https://*.cdn.test/path/", "*", "data:", "'self'", "https://a.test; script-src *", "https://a.test, https://b.test", 7], frameDomains: "https://x.test", extra: ["https://y.test"] }))
      .toEqual({ connectDomains: ["https://a.test", "wss://rt.a.test:8443", "https://*.cdn.test/path/"] });
    expect(sanitizeCsp(null)).toBeUndefined();
    expect(sanitizePermissions({ camera: {}, microphone: true, geolocation: {}, usb: {} })).toEqual({ camera: {}, geolocation: {} });
    expect(allowAttribute({ camera: {}, clipboardWrite: {} })).toBe("camera; clipboard-write");
    expect(allowAttribute(undefined)).toBe("");
  });

  it("without declared domains the policy is the specification's restrictive default, closed further (no 'self': in the relay it is the host's origin)", () => {
    expect(cspFor(undefined)).toBe("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'; object-src 'none'");
    expect(cspFor({ frameDomains: ["https://www.youtube.com"], baseUriDomains: ["https://cdn.test"] })).toContain("frame-src https://www.youtube.com; base-uri https://cdn.test");
  });

  it("a result's own ui:// URI, else the tool's, moves under atrium's in both keys; other _meta keys stay", () => {
    expect(appMeta("board", { ui: { resourceUri: "ui://board/other.html", visibility: ["app"] }, hydrate: 1 }, "ui://board/app.html"))
      .toEqual({ ui: { resourceUri: "ui://atrium/c/board/board/other.html", visibility: ["app"] }, "ui/resourceUri": "ui://atrium/c/board/board/other.html", hydrate: 1 });
    expect(appMeta("board", { "ui/resourceUri": "https://not.ui" }, "ui://board/app.html")).toEqual({ ui: { resourceUri: BOARD_UI }, "ui/resourceUri": BOARD_UI });
    expect(appMeta("board", { hydrate: 1 })).toEqual({ hydrate: 1 });
  });

  it("the page the relay carries runs the page guard first, after its doctype, with its frame tags renamed", () => {
    const carried = (html: string) => {
      const relay = relayPage({ connector: "board", html, csp: "default-src 'none'", allow: "" });
      const config = JSON.parse(/<script type="application\/json" id="atrium-relay">(.*?)<\/script>/s.exec(relay)![1]);
      return Buffer.from(config.html, "base64").toString("utf8");
    };
    const guard = `<meta http-equiv="Content-Security-Policy" content="${PAGE_GUARD_CSP}"><script>${PAGE_GUARD_SCRIPT}</script>`;
    expect(carried("<!-- c --> <!DOCTYPE html><html><body><iframe src=x></iframe></body></html>")).toBe(`<!-- c --> <!DOCTYPE html>${guard}<html><body><atrium-blocked-iframe src=x></atrium-blocked-iframe></body></html>`);
    expect(carried("<p>fragment</p><embed src=y>")).toBe(`${guard}<p>fragment</p><atrium-blocked-embed src=y>`);
  });

  it("the relay document cannot be ended early by the page it carries", () => {
    const page = relayPage({ connector: "board", html: "</script><script>alert(1)</script>", csp: "default-src 'none'", allow: "" });
    expect(page.match(/<script/g)).toHaveLength(2);
    expect(page).not.toContain("alert(1)");
  });
});
