// Views without a browser: what the core and the server decide for atrium.ui — every refused
// shape, the shared byte budget, delivery per host kind, discard on failure, the shell
// resource, and the app-only fetch-by-id tool.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { existsSync, readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { startAtrium, nodeServer, demoServer, fixture, type Atrium } from "./harness/atrium-client.js";
import { shellHtml } from "../glue/views/shell-page.js";
import { waitFor } from "./harness/until.js";

const READS = `{ reads: { incidents: { address: "desk.list_incidents", fixedArgs: { status: "open" }, viewArgs: ["cursor", "limit"] }, detail: { address: "desk.get_incident", viewArgs: ["id"] } } }`;
const VIEW_PROGRAM = `async () => { const d = await desk.list_incidents({ status: "open", limit: 5 }); atrium.ui("<h1>Open incidents</h1><p>" + d.incidents.length + "</p>", ${READS}); return { open: d.incidents.length }; }`;
const viewsDir = mkdtempSync(join(tmpdir(), "atrium-views-test-"));
const config = (views: Record<string, unknown> = {}, sandbox: Record<string, unknown> = {}) => ({ mcpServers: { desk: nodeServer(demoServer) }, atrium: { views: { directory: viewsDir, ...views }, sandbox } });

describe("views on an MCP Apps host", () => {
  let a: Atrium;
  beforeAll(async () => { a = await startAtrium({ apps: true, config: config({}, { emitBytes: 5000 }) }); });
  afterAll(async () => { await a.close(); });
  const run = async (code: string) => (await a.call("execute_code", { code })) as any;
  const refusal = async (call: string) => (await run(`async () => { try { ${call}; return "accepted"; } catch (e) { return { code: e.code, message: e.message, details: e.details }; } }`)).structuredContent.value;

  it("H1/E4: an accepted view goes inline in _meta, is kept for get_view, and structuredContent never holds the HTML", async () => {
    const r = await run(VIEW_PROGRAM);
    const view = r._meta["atrium/view"];
    expect(view.html).toContain("<h1>Open incidents</h1>");
    expect(view.reads.detail).toEqual({ address: "desk.get_incident", viewArgs: ["id"] });
    expect(r.structuredContent.view).toMatchObject({ id: view.id, delivery: "inline" });
    expect(JSON.stringify(r.structuredContent)).not.toContain("<h1>");
    expect(JSON.stringify(r.content)).not.toContain("<h1>");
    const fetched = (await a.call("get_view", { id: view.id })) as any;
    expect(fetched.structuredContent).toEqual({ id: view.id, html: view.html, reads: view.reads });
  });

  it("E5: a failed program delivers no view and says it was discarded", async () => {
    const r = await run(`async () => { atrium.ui("<p>half-built</p>"); throw new Error("boom"); }`);
    expect(r.isError).toBe(true);
    expect(r._meta?.["atrium/view"]).toBeUndefined();
    expect(r.structuredContent.view).toMatchObject({ delivery: "discarded" });
  });

  it("get_view for an unknown or expired id is a clean not_found", async () => {
    const r = (await a.call("get_view", { id: "00000000-0000-0000-0000-000000000000" })) as any;
    expect(r.structuredContent.error).toMatchObject({ code: "not_found", retryable: false });
  });

  it("lists get_view with visibility [\"app\"] and execute_code with the shell's resourceUri", async () => {
    const { tools } = await a.client.listTools();
    expect(tools.find((t) => t.name === "get_view")?._meta).toEqual({ ui: { visibility: ["app"] } });
    expect(tools.find((t) => t.name === "execute_code")?._meta).toEqual({ ui: { resourceUri: "ui://atrium/view/v1", visibility: ["model"] }, "ui/resourceUri": "ui://atrium/view/v1" });
  });

  it("serves the shell by resources/read and refuses every other ui:// URI", async () => {
    const r = await a.client.readResource({ uri: "ui://atrium/view/v1" });
    expect(r.contents[0]).toMatchObject({ uri: "ui://atrium/view/v1", mimeType: "text/html;profile=mcp-app" });
    expect((r.contents[0] as any).text).toBe(shellHtml());
    await expect(a.client.readResource({ uri: "ui://atrium/view/v2" })).rejects.toThrow(/not found/i);
    await expect(a.client.readResource({ uri: "ui://other/thing" })).rejects.toThrow(/not found/i);
  });

  it("V1–V13: every refused manifest shape throws catchably, naming the rule and the place", async () => {
    const cases: [string, string, string?][] = [
      [`atrium.ui("<p>x</p>", { reads: [] })`, "reads_not_object"],
      [`atrium.ui("<p>x</p>", { reads: {} })`, "no_bindings"],
      [`atrium.ui("<p>x</p>", { reads: Object.fromEntries(Array.from({ length: 33 }, (_, i) => ["b" + i, { address: "desk.list_services" }])) })`, "too_many_bindings"],
      [`atrium.ui("<p>x</p>", { reads: { constructor: { address: "desk.list_services" } } })`, "name_reserved", "constructor"],
      [`atrium.ui("<p>x</p>", { reads: { "2fast": { address: "desk.list_services" } } })`, "name_invalid", "2fast"],
      [`atrium.ui("<p>x</p>", { reads: { a: "desk.list_services" } })`, "binding_not_object", "a"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", method: "GET" } } })`, "key_unknown", "a.method"],
      [`atrium.ui("<p>x</p>", { reads: { a: { fixedArgs: {} } } })`, "address_missing", "a"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: 7 } } })`, "address_not_string", "a.address"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.nope" } } })`, "address_unknown", "a.address"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.close_incident" } } })`, "address_not_read_only", "a.address"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", fixedArgs: [1] } } })`, "fixed_args_not_object", "a.fixedArgs"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", viewArgs: "id" } } })`, "view_args_not_array", "a.viewArgs"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", viewArgs: Array.from({ length: 33 }, (_, i) => "k" + i) } } })`, "too_many_view_keys", "a.viewArgs"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", viewArgs: [1] } } })`, "view_key_not_string", "a.viewArgs[0]"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", viewArgs: ["x".repeat(129)] } } })`, "view_key_length", "a.viewArgs[0]"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", viewArgs: ["prototype"] } } })`, "view_key_reserved", "a.viewArgs[0]"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_services", viewArgs: ["q", "q"] } } })`, "view_key_duplicate", "a.viewArgs[1]"],
      [`atrium.ui("<p>x</p>", { reads: { a: { address: "desk.list_incidents", fixedArgs: { status: "open" }, viewArgs: ["status"] } } })`, "view_key_is_fixed_key", "a.viewArgs[0]"],
    ];
    for (const [call, check, at] of cases) {
      const v = await refusal(call);
      expect(v, call).toMatchObject({ code: "invalid_args", details: { check, ...(at && { at }) } });
    }
  });

  it("refuses bad ui arguments and a second view, keeping the first", async () => {
    expect(await refusal(`atrium.ui(42)`)).toMatchObject({ code: "invalid_args" });
    expect(await refusal(`atrium.ui("<p>x</p>", { reads: {}, extra: 1 })`)).toMatchObject({ code: "invalid_args" });
    const r = await run(`async () => { atrium.ui("<p>first</p>"); try { atrium.ui("<p>second</p>"); } catch (e) { return e.message; } }`);
    expect(r.structuredContent.value).toContain("one view per run");
    expect(r._meta["atrium/view"].html).toBe("<p>first</p>");
  });

  it("the view payload spends the emitted-byte budget shared with emit, and a refusal accepts nothing", async () => {
    const over = await run(`async () => { try { atrium.ui("x".repeat(6000)); } catch (e) { return [e.code, e.details.budget]; } }`);
    expect(over.structuredContent.value).toEqual(["budget_exceeded", "emit_bytes"]);
    expect(over._meta?.["atrium/view"]).toBeUndefined();
    const shared = await run(`async () => { atrium.emit({ type: "text", text: "y".repeat(3000) }); try { atrium.ui("x".repeat(2500)); return "accepted"; } catch (e) { return [e.code, e.details.room]; } }`);
    expect(shared.structuredContent.value[0]).toBe("budget_exceeded");
    expect(shared.structuredContent.value[1]).toBeLessThan(2500);
    expect(shared.structuredContent.emitted).toBe(1);
  });

  it("the usage guide tells program authors to return the summary the view shows", async () => {
    const r = (await a.call("skills", { name: "usage" })) as any;
    expect(r.content[0].text).toMatch(/atrium\.ui/);
    expect(r.content[0].text).toMatch(/return.*summary/i);
  });
});

describe("views on a host without MCP Apps", () => {
  it("H7: writes an offline sandboxed HTML file by default and gives the model its path; no view bytes on the wire", async () => {
    const a = await startAtrium({ config: config() });
    try {
      const r = (await a.call("execute_code", { code: VIEW_PROGRAM })) as any;
      expect(r._meta?.["atrium/view"]).toBeUndefined();
      expect(JSON.stringify(r)).not.toContain("<h1>");
      expect(r.structuredContent.view).toMatchObject({ delivery: "file" });
      const path = r.structuredContent.view.path as string;
      expect(path.startsWith(viewsDir)).toBe(true);
      const html = readFileSync(path, "utf8");
      expect(html).toMatch(/<iframe sandbox="allow-scripts"[^>]* srcdoc="[^"]*<h1>Open incidents<\/h1>/);
      expect(html).not.toContain("allow-same-origin");
      expect(html).toContain("connect-src 'none'");
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const { tools } = await a.client.listTools();
      expect(tools.map((t) => t.name)).not.toContain("get_view");
      await expect(a.call("get_view", { id: r.structuredContent.view.id })).rejects.toThrow(/Unknown tool: get_view/);
    } finally {
      await a.close();
    }
  });

  it("H7: without views.directory the file lands in the user's private state directory (ATRIUM_STATE_DIR here), 0700 and 0600", async () => {
    const state = mkdtempSync(join(tmpdir(), "atrium-state-test-"));
    const a = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer) } }, env: { ATRIUM_STATE_DIR: state } });
    try {
      const r = (await a.call("execute_code", { code: VIEW_PROGRAM })) as any;
      const path = r.structuredContent.view.path as string;
      expect(path).toBe(join(state, "views", `view-${r.structuredContent.view.id}.html`));
      expect(statSync(join(state, "views")).mode & 0o777).toBe(0o700);
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      await a.close();
      rmSync(state, { recursive: true, force: true });
    }
  });

  it("H7: with the file fallback off, no view is delivered and the model is told so", async () => {
    const a = await startAtrium({ config: config({ fileFallback: false }) });
    const r = (await a.call("execute_code", { code: VIEW_PROGRAM })) as any;
    expect(r.structuredContent).toMatchObject({ ok: true, view: { delivery: "none" } });
    expect(JSON.stringify(r)).not.toContain("<h1>");
    await a.close();
  });

  it("H8: the operator's delivery none silences views even on an Apps host", async () => {
    const a = await startAtrium({ apps: true, config: config({ delivery: "none" }) });
    const r = (await a.call("execute_code", { code: VIEW_PROGRAM })) as any;
    expect(r._meta?.["atrium/view"]).toBeUndefined();
    expect(r.structuredContent.view).toMatchObject({ delivery: "none" });
    await a.close();
  });

  it("H9: the operator's delivery file writes files even on an Apps host", async () => {
    const a = await startAtrium({ apps: true, config: config({ delivery: "file" }) });
    const r = (await a.call("execute_code", { code: VIEW_PROGRAM })) as any;
    expect(r.structuredContent.view.delivery).toBe("file");
    expect(existsSync(r.structuredContent.view.path)).toBe(true);
    await a.close();
  });
});

describe("a view is judged on the live catalog, the one every call resolves on", () => {
  it("a view declared after a tool became approval-only (tools/list_changed) is refused on the live catalog", async () => {
    const held = join(mkdtempSync(join(tmpdir(), "atrium-views-held-")), "go");
    const a = await startAtrium({ apps: true, config: {
      mcpServers: {
        nasty: nodeServer(fixture("nasty-server"), { env: { FIXTURE_LIST_DELAY_MS: "0" } }),
        gate: nodeServer(fixture("gate-server"), { timeoutMs: 120_000 }),
      },
      atrium: { views: { directory: viewsDir }, sandbox: { programWallMs: 120_000 } },
    } });
    try {
      const mut = async () => (await a.json("search_tools", { query: "mut", connector: "nasty" })).results.find((r: any) => r.address === "nasty.mut");
      expect(await mut()).toMatchObject({ safety: "read_only" });
      // The program waits, after its run started, until the test has seen the catalog change. The
      // one host call it makes meanwhile goes to another connector, whose answer carries nothing
      // of nasty's: only the catalog itself can tell it that nasty.mut stopped being read-only.
      const program = a.call("execute_code", { code: `async () => {
        await gate.wait_for_file({ path: ${JSON.stringify(held)} });
        try { atrium.ui("<p>x</p>", { reads: { m: { address: "nasty.mut" } } }); return "accepted"; } catch (e) { return [e.code, e.details.check]; }
      }` }) as Promise<any>;
      await waitFor(() => existsSync(`${held}.waiting`), "the program's run waiting at the gate");
      await a.call("call_tool", { address: "nasty.make_mut_destructive" });
      await waitFor(async () => (await mut())?.safety === "approval", "nasty.mut approval-only in the catalog");
      writeFileSync(held, "");
      const r = await program;
      expect(r.structuredContent.value).toEqual(["invalid_args", "address_not_read_only"]);
      expect(r._meta?.["atrium/view"]).toBeUndefined();
    } finally {
      await a.close();
      rmSync(dirname(held), { recursive: true, force: true });
    }
  });
});

