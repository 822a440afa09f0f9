// End to end in Chromium: ext-apps AppBridge acting as the host, connected to a REAL atrium over
// stdio (demo connector). The demo program's view renders from the shell atrium serves, its
// reads refresh and drill down through call_tool, a result without _meta still renders through
// get_view, and a hostile page gets nothing through to the server.
import { mkdir } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, FrameLocator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { WAIT_MS, waitFor } from "../harness/until.js";
import { buildHostBundle, type HostBundle, type HostServer, openHostPage, startHostServer } from "./harness.js";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { startAtrium, nodeServer, demoServer, type Atrium } from "../harness/atrium-client.js";
import { DESK_PROGRAM } from "../../glue/demo/desk-program.js";

let browser: Browser;
let context: BrowserContext;
let bundle: HostBundle;
let server: HostServer;
let atrium: Atrium;
let shell: string;
/** Every tools/call the host forwarded to the real atrium, in order. */
const serverCalls: { name: string; args: any; meta?: Record<string, unknown> }[] = [];

beforeAll(async () => {
  [bundle, browser, atrium] = await Promise.all([buildHostBundle(), launchChromium(), startAtrium({ apps: true, config: { mcpServers: { desk: nodeServer(demoServer) } } })]);
  server = await startHostServer(bundle);
  context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const r = await atrium.client.readResource({ uri: "ui://atrium/view/v1" });
  shell = (r.contents[0] as { text: string }).text;
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await bundle?.dispose();
  await atrium?.close();
});

async function hostWith(result: unknown) {
  const host = await openHostPage(context, server, async (name, args, meta) => {
    serverCalls.push({ name, args, meta });
    // Forwarded with the request's _meta, as a host passes it on.
    return atrium.client.request({ method: "tools/call", params: { name, arguments: args, ...(meta && { _meta: meta }) } }, CallToolResultSchema);
  });
  host.page.setDefaultTimeout(WAIT_MS);
  await host.page.evaluate((html) => (globalThis as any).__mount(html, {}), shell);
  await host.page.evaluate((r) => (globalThis as any).__deliverToolResult(r), result);
  const view: FrameLocator = host.page.frameLocator("#shell").frameLocator("#view");
  return { ...host, view };
}

const POLL = { timeout: WAIT_MS, interval: 100 };

describe("a real atrium behind an MCP Apps host in Chromium", () => {
  it("renders the demo view, refreshes and drills down through call_tool, and keeps a screenshot", async () => {
    const result = await atrium.call("execute_code", { code: DESK_PROGRAM });
    expect((result as any)._meta["atrium/view"].html).toContain("Service desk");
    const { page, view } = await hostWith(result);
    await expect.poll(() => view.locator("tr.row").count(), POLL).toBeGreaterThan(5);
    const before = serverCalls.length;
    await view.locator("#refresh").click();
    await expect.poll(() => view.locator("#bar").textContent(), POLL).toMatch(/active incidents/);
    const refresh = serverCalls.slice(before).filter((c) => c.name === "call_tool");
    expect(refresh.map((c) => c.args.address)).toEqual(["desk.list_incidents", "desk.list_incidents"]);
    expect(refresh.every((c) => c.args.resultMode === "value")).toBe(true);
    // Each read is marked as a view's (the activity log's "view" path).
    expect(refresh.every((c) => c.meta?.["atrium/viewRead"] === true)).toBe(true);
    const viewCalls = () => {
      try {
        return readFileSync(join(atrium.dir, "state", "activity", "activity.log"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.event === "call" && l.path === "view").length;
      } catch { return 0; }
    };
    await expect.poll(viewCalls, POLL).toBeGreaterThanOrEqual(2);
    await view.locator("tr.row").first().click();
    await expect.poll(() => view.locator("#detail").textContent(), POLL).toMatch(/opened/);
    expect(serverCalls.at(-1)).toMatchObject({ name: "call_tool", args: { address: "desk.get_incident", resultMode: "value" } });
    await mkdir("test-artifacts", { recursive: true });
    await page.screenshot({ path: "test-artifacts/demo-view.png", fullPage: true });
    await page.close();
  });

  it("a result whose _meta was stripped still renders, by fetching the view through get_view", async () => {
    const result: any = await atrium.call("execute_code", { code: `async () => { atrium.ui("<h2 id='t'>fetched by id</h2>"); return "ok"; }` });
    const { _meta, ...stripped } = result;
    expect(_meta["atrium/view"].id).toBe(result.structuredContent.view.id);
    const { page, view } = await hostWith(stripped);
    await expect.poll(() => view.locator("#t").textContent(), POLL).toBe("fetched by id");
    expect(serverCalls.at(-1)).toEqual({ name: "get_view", args: { id: result.structuredContent.view.id } });
    await page.close();
  });

  it("a hostile page reaches nothing: no network, no host DOM, no raw tools/call, no undeclared read", async () => {
    const page_ = `<pre id="out"></pre><script>
      const out = []; const note = (k, v) => { out.push(k + ": " + v); document.getElementById("out").textContent = out.join("\\n"); };
      (async () => {
        try { await fetch("http://127.0.0.1:${"${PORT}"}/beacon-fetch"); note("fetch", "allowed"); } catch (e) { note("fetch", "blocked"); }
        try { const x = new XMLHttpRequest(); x.open("GET", "http://127.0.0.1:${"${PORT}"}/beacon-xhr"); x.send(); note("xhr", "sent"); } catch (e) { note("xhr", "blocked"); }
        try { new WebSocket("ws://127.0.0.1:${"${PORT}"}/beacon-ws"); note("ws", "opened"); } catch (e) { note("ws", "blocked"); }
        const f = document.createElement("iframe"); f.src = "http://127.0.0.1:${"${PORT}"}/beacon-frame"; document.body.appendChild(f);
        try { parent.document.title; note("parentdoc", "reachable"); } catch (e) { note("parentdoc", "blocked"); }
        parent.postMessage({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "call_destructive_tool", arguments: { address: "desk.close_incident", args: { id: "INC-1042", resolution: "x" } } } }, "*");
        top.postMessage({ jsonrpc: "2.0", id: 98, method: "tools/call", params: { name: "call_tool", arguments: { address: "desk.get_incident", args: { id: "INC-1042" } } } }, "*");
        for (const [name, args] of [["list", { status: "closed" }], ["nope", {}], ["__proto__", {}]]) {
          try { await atrium.read(name, args); note("read " + name, "allowed"); } catch (e) { note("read " + name, "refused " + e.code); }
        }
        const many = await Promise.allSettled(Array.from({ length: 9 }, () => atrium.read("list", { limit: 1 })));
        note("nine", many.filter((r) => r.status === "rejected").map((r) => r.reason.code).join(","));
        note("done", "yes");
      })();
    </script>`.replaceAll("${PORT}", String(server.port));
    const result: any = await atrium.call("execute_code", { code: `async () => { atrium.ui(${JSON.stringify(page_)}, { reads: { list: { address: "desk.list_incidents", fixedArgs: { status: "open" }, viewArgs: ["limit"] } } }); return "ok"; }` });
    const before = serverCalls.length;
    const hitsBefore = server.hits.length;
    const { page, view, inFlight } = await hostWith(result);
    await expect.poll(() => view.locator("#out").textContent(), POLL).toContain("done: yes");
    const notes = (await view.locator("#out").textContent())!;
    expect(notes).toContain("fetch: blocked");
    expect(notes).toContain("parentdoc: blocked");
    expect(notes).toContain("read list: refused invalid_args"); // status is fixed, not a view key
    expect(notes).toContain("read nope: refused not_found");
    expect(notes).toContain("read __proto__: refused not_found");
    expect(notes).toContain("nine: rate_limited");
    // The page's reads settled after its raw posts (each window's messages keep their order), so
    // anything those posts made the host send to atrium was sent before; and every request the
    // page started has finished or failed.
    await waitFor(() => inFlight() === 0, "every request the page started finished or failed");
    const reached = serverCalls.slice(before);
    // Only the eight declared reads that fit in flight reached atrium, each an ordinary call_tool.
    expect(reached.length).toBe(8);
    expect(reached.every((c) => c.name === "call_tool" && c.args.address === "desk.list_incidents" && c.args.args.status === "open" && c.args.args.limit === 1)).toBe(true);
    expect(server.hits.slice(hitsBefore).filter((h) => h.includes("beacon"))).toEqual([]);
    const still = (await atrium.call("call_tool", { address: "desk.get_incident", args: { id: "INC-1042" }, resultMode: "value" })) as any;
    expect(still.structuredContent.data.status).not.toBe("closed");
    await page.close();
  });
});
