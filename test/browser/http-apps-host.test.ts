// Chromium as an MCP Apps host of a REAL `atrium serve --http`, over Streamable HTTP. The host
// page is the one of atrium-e2e (ext-apps AppBridge, test/browser/host/host-entry.js); its
// tools/call go out through `__hostCallTool` to an SDK client (@modelcontextprotocol/client's
// StreamableHTTPClientTransport) in Node that declares the Apps extension, on 2026-07-28
// (stateless: the capabilities ride in each request's _meta) and on 2025-11-25 (declared at
// initialize, one Mcp-Session-Id). The client sits on the Node side, where the harness relays the
// host's calls as atrium-e2e does over stdio: /mcp sends no CORS headers, so the host page (served
// from another port) could not read atrium's answers itself.
// The demo program's dashboard renders in the view frame, its refresh and drill-down reads reach
// atrium and come back, a result stripped of its _meta still renders through get_view, and each
// 2025-11-25 session is judged by its own capabilities, whatever session came before it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, FrameLocator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { launchChromium } from "./chromium.js";
import { buildHostBundle, type HostBundle, type HostServer, openHostPage, startHostServer } from "./harness.js";
import { programValue } from "../harness/atrium-client.js";
import { connectHttp, startHttpAtrium, type HttpAtrium, type HttpClient } from "../harness/atrium-http.js";
import { WAIT_MS, waitFor } from "../harness/until.js";
import { DESK_PROGRAM } from "../../glue/demo/desk-program.js";

/** What an MCP Apps host declares (the io.modelcontextprotocol/ui extension with the app MIME type). */
const APPS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
const SHELL_URI = "ui://atrium/view/v1";
const POLL = { timeout: WAIT_MS, interval: 100 };
const REVISIONS = ["2026-07-28", "2025-11-25"] as const;

let browser: Browser;
let context: BrowserContext;
let bundle: HostBundle;
let server: HostServer;
let atrium: HttpAtrium;
const clients: HttpClient[] = [];
const others: HttpAtrium[] = [];

/** An Apps host's SDK client on `revision`, once the demo connector's tools are in atrium's catalog. */
async function appsClient(on: HttpAtrium, revision: (typeof REVISIONS)[number]): Promise<HttpClient> {
  const c = await connectHttp(on.url, { revision, capabilities: APPS });
  clients.push(c);
  await waitFor(async () => programValue(await c.call("execute_code", { code: "return (await atrium.search('incidents')).total" })) > 0, "the demo connector's tools", 60_000);
  return c;
}

beforeAll(async () => {
  [bundle, browser, atrium] = await Promise.all([buildHostBundle(), launchChromium(), startHttpAtrium()]);
  server = await startHostServer(bundle);
  context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
}, 90_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await context?.close();
  await browser?.close();
  await server?.close();
  await bundle?.dispose();
  for (const a of others) await a.stop();
  await atrium?.stop();
});

/** Opens the host page, mounts atrium's shell (read over HTTP) and hands it `result`; every tools/call from the view goes to atrium through `c`. */
async function hostWith(c: HttpClient, result: unknown) {
  const forwarded: { name: string; args: any; meta?: Record<string, unknown> }[] = [];
  const host = await openHostPage(context, server, async (name, args, meta) => {
    forwarded.push({ name, args, meta });
    return c.client.request({ method: "tools/call", params: { name, arguments: args, ...(meta && { _meta: meta }) } }, CallToolResultSchema);
  });
  host.page.setDefaultTimeout(WAIT_MS);
  const r = await c.client.readResource({ uri: SHELL_URI });
  const shell = (r.contents[0] as { text: string }).text;
  await host.page.evaluate((html) => (globalThis as any).__mount(html, {}), shell);
  await host.page.evaluate((res) => (globalThis as any).__deliverToolResult(res), result);
  const view: FrameLocator = host.page.frameLocator("#shell").frameLocator("#view");
  return { ...host, view, forwarded };
}

/** How many of a view's reads atrium's activity log recorded (path "view"): what reached atrium, from atrium's side. */
const viewReadsLogged = (on: HttpAtrium) => {
  try {
    return readFileSync(join(on.dir, "state", "activity", "activity.log"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.event === "call" && l.path === "view").length;
  } catch {
    return 0;
  }
};

describe("Chromium as an MCP Apps host of serve --http", () => {
  for (const revision of REVISIONS) {
    it(`renders the demo dashboard over Streamable HTTP, and its refresh and drill-down reach atrium through the host (${revision})`, async () => {
      const c = await appsClient(atrium, revision);
      const result: any = await c.call("execute_code", { code: DESK_PROGRAM });
      expect(result.structuredContent.view.delivery).toBe("inline");
      expect(result._meta["atrium/view"].html).toContain("Service desk");
      const { page, view, forwarded, failures } = await hostWith(c, result);
      // The view's own page rendered, visibly, with the incidents the program read.
      await expect.poll(() => view.locator("h1").textContent(), POLL).toBe("Service desk — active incidents");
      expect(await view.locator("h1").isVisible()).toBe(true);
      await expect.poll(() => view.locator("tr.row").count(), POLL).toBeGreaterThan(5);
      const logged = viewReadsLogged(atrium);
      // Refresh: the view's declared read goes view → shell → AppBridge → HTTP → atrium → demo connector, and back.
      const before = forwarded.length;
      await view.locator("#refresh").click();
      await expect.poll(() => view.locator("#bar").textContent(), POLL).toMatch(/active incidents/);
      const refresh = forwarded.slice(before).filter((f) => f.name === "call_tool");
      expect(refresh.map((f) => f.args.address)).toEqual(["desk.list_incidents", "desk.list_incidents"]);
      expect(refresh.every((f) => f.meta?.["atrium/viewRead"] === true)).toBe(true);
      await expect.poll(() => viewReadsLogged(atrium), POLL).toBeGreaterThanOrEqual(logged + 2);
      // Drill-down: one incident read through the host, its answer shown in the view.
      await view.locator("tr.row").first().click();
      await expect.poll(() => view.locator("#detail").textContent(), POLL).toMatch(/opened/);
      expect(forwarded.at(-1)).toMatchObject({ name: "call_tool", args: { address: "desk.get_incident", resultMode: "value" } });
      expect(failures).toEqual([]);
      await page.close();
    }, 90_000);

    it(`renders a result whose _meta was stripped by fetching the view through get_view over HTTP (${revision})`, async () => {
      const c = await appsClient(atrium, revision);
      const result: any = await c.call("execute_code", { code: `async () => { atrium.ui("<h2 id='t'>fetched over http</h2>"); return "ok"; }` });
      const { _meta, ...stripped } = result;
      expect(_meta["atrium/view"].id).toBe(result.structuredContent.view.id);
      const { page, view, forwarded } = await hostWith(c, stripped);
      await expect.poll(() => view.locator("#t").textContent(), POLL).toBe("fetched over http");
      expect(forwarded).toEqual([{ name: "get_view", args: { id: result.structuredContent.view.id }, meta: undefined }]);
      await page.close();
    }, 90_000);
  }

  it("each 2025-11-25 session is its own host: an Apps host after a plain client's session gets its view inline and rendered, a plain one after it does not", async () => {
    const fresh = await startHttpAtrium();
    others.push(fresh);
    // A plain client (no Apps extension) opens the first 2025-11-25 session on this atrium.
    const plain = await connectHttp(fresh.url, { revision: "2025-11-25" });
    clients.push(plain);
    await waitFor(async () => programValue(await plain.call("execute_code", { code: "return (await atrium.search('incidents')).total" })) > 0, "the demo connector's tools", 60_000);
    const plainView: any = await plain.call("execute_code", { code: `async () => { atrium.ui("<p>x</p>"); return "ok"; }` });
    expect(plainView.structuredContent.view.delivery).toBe("file");
    // Then an Apps host's own session: its capabilities, not the first session's, decide.
    const c = await appsClient(fresh, "2025-11-25");
    const result: any = await c.call("execute_code", { code: `async () => { atrium.ui("<h2 id='t'>my own session</h2>"); return "ok"; }` });
    expect(result.structuredContent.view.delivery).toBe("inline");
    expect(result._meta?.["atrium/view"]).toBeDefined();
    expect((await c.client.listTools()).tools.map((t) => t.name)).toContain("get_view");
    const { page, view } = await hostWith(c, result);
    await expect.poll(() => view.locator("#t").textContent(), POLL).toBe("my own session");
    await page.close();
    // And the other way round: a plain client's session after the Apps host's is still plain.
    const later = await connectHttp(fresh.url, { revision: "2025-11-25" });
    clients.push(later);
    const laterView: any = await later.call("execute_code", { code: `async () => { atrium.ui("<p>y</p>"); return "ok"; }` });
    expect(laterView.structuredContent.view.delivery).toBe("file");
    expect(laterView._meta?.["atrium/view"]).toBeUndefined();
    expect((await later.client.listTools()).tools.map((t) => t.name)).not.toContain("get_view");
  }, 90_000);
});
