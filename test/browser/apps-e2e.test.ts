// Downstream MCP Apps through a REAL atrium over stdio, in Chromium, with ext-apps' AppBridge as
// the host (spec/app-calls.md). The host here is a strict one: it forwards an app's tools/call
// only for a tool atrium lists with "app" visibility. Behind atrium: the fixture Apps server
// (test/fixtures/apps-server.ts, which logs every call it receives) and two real ext-apps
// example servers from npm (basic-vanillajs, system-monitor), run unchanged behind a wrapper
// that logs every tools/call sent to them (test/fixtures/recording-server.ts). Every claim about
// what reached a downstream is read from that downstream's own log.
import { mkdtempSync, readFileSync, existsSync, rmSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type { Browser, BrowserContext, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { WAIT_MS, waitFor } from "../harness/until.js";
import { buildHostBundle, type HostBundle, type HostServer, openHostPage, startHostServer } from "./harness.js";
import { startAtrium, nodeServer, fixture, npmBin, type Atrium } from "../harness/atrium-client.js";

const logs = mkdtempSync(join(tmpdir(), "atrium-apps-e2e-"));
const logOf = (name: string) => join(logs, `${name}.log`);
/** The tools/call names a downstream received, in order, from its own log. */
const received = (name: string): string[] => (existsSync(logOf(name)) ? readFileSync(logOf(name), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l).tool) : []);
const board = (name: string, extra: Record<string, unknown> = {}) => nodeServer(fixture("apps-server"), { env: { FIXTURE_CALL_LOG: logOf(name), FIXTURE_PEER: "other" }, ...extra });
/** A real npm server over stdio, unchanged, its tools/call logged on the way in. */
const recorded = (name: string, bin: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [fixture("recording-server"), logOf(name), npmBin(bin), "--stdio"], ...extra });

let browser: Browser;
let context: BrowserContext;
let bundle: HostBundle;
let server: HostServer;
let atrium: Atrium;
/** What atrium lists to an Apps host, for the strict host's visibility check. */
let listed: Map<string, string[]>;
/** Every tools/call the host forwarded from a page to atrium, in order. */
const forwarded: { name: string; args: any }[] = [];

beforeAll(async () => {
  [bundle, browser, atrium] = await Promise.all([
    buildHostBundle(),
    launchChromium(),
    startAtrium({
      apps: true,
      config: {
        mcpServers: {
          board: board("board"),
          other: board("other"),
          writer: board("writer", { appWrites: true }),
          // get-time has no annotations: approval class, so the page's call of it is a write.
          time: recorded("time", "mcp-server-basic-vanillajs"),
          clock: recorded("clock", "mcp-server-basic-vanillajs", { appWrites: true }),
          // The operator declares the monitor's reads read-only (it annotates none).
          monitor: recorded("monitor", "mcp-system-monitor-server", { readOnlyTools: ["get-system-info", "poll-system-stats"] }),
        },
      },
    }),
  ]);
  server = await startHostServer(bundle);
  context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const { tools } = await atrium.client.listTools();
  listed = new Map(tools.map((t) => [t.name, ((t._meta as any)?.ui?.visibility as string[] | undefined) ?? ["model", "app"]]));
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await bundle?.dispose();
  await atrium?.close();
  rmSync(logs, { recursive: true, force: true });
});

const POLL = { timeout: WAIT_MS, interval: 100 };

/**
 * The model's direct call, then what an Apps host does with its result: reads the UI it names
 * from atrium, renders it with AppBridge, and hands it the call's input and result.
 */
async function render(tool: "call_tool" | "call_destructive_tool", address: string, args: Record<string, unknown> = {}): Promise<{ page: Page; app: FrameLocator; notes: () => Promise<string>; result: any; inFlight: () => number }> {
  const result: any = await atrium.call(tool, { address, args, ...(tool === "call_destructive_tool" && { reason: "show it" }) });
  const uri = result._meta?.ui?.resourceUri;
  expect(uri).toMatch(new RegExp(`^ui://atrium/c/${address.split(".")[0]}/`));
  expect(result._meta["ui/resourceUri"]).toBe(uri);
  const read = await atrium.client.readResource({ uri });
  expect(read.contents[0].mimeType).toBe("text/html;profile=mcp-app");
  const host = await openHostPage(context, server, async (name, a) => {
    if (!listed.get(name)?.includes("app")) throw new Error(`host policy: ${name} is not visible to apps`);
    forwarded.push({ name, args: a });
    return atrium.call(name, a);
  });
  host.page.setDefaultTimeout(WAIT_MS);
  await host.page.evaluate((html) => (globalThis as any).__mount(html, {}), (read.contents[0] as { text: string }).text);
  await host.page.evaluate(([r, input]) => (globalThis as any).__deliverToolResult(r, { args: input }), [result, { address, args }] as const);
  const app = host.page.frameLocator("#shell").frameLocator("#app");
  return { page: host.page, app, result, inFlight: host.inFlight, notes: async () => (await app.locator("#out").textContent()) ?? "" };
}

/**
 * From inside a page: every way it might try to reach another connector's tool, past its relay
 * too. Returns once the three its relay passes on (as calls of its own connector) are answered:
 * atrium answers a call after whatever it sent downstream for it. The two posted to the host
 * window around the relay reach no transport (the host listens to its frame only).
 */
async function reachForOther(app: FrameLocator): Promise<void> {
  await app.locator("body").evaluate(() => new Promise<void>((done) => {
    const answered = new Set<number>();
    addEventListener("message", (e) => {
      if ([7001, 7002, 7003].includes(e.data?.id) && (e.data.result !== undefined || e.data.error !== undefined)) answered.add(e.data.id);
      if (answered.size === 3) done();
    });
    const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
    parent.postMessage(call(7001, "other.list_items", {}), "*");
    parent.postMessage(call(7002, "call_tool", { address: "other.list_items" }), "*");
    parent.postMessage(call(7003, "call_app_tool", { connector: "other", tool: "list_items", arguments: {} }), "*");
    top!.postMessage(call(7004, "call_app_tool", { connector: "other", tool: "list_items", arguments: {} }), "*");
    top!.postMessage(call(7005, "call_tool", { address: "other.list_items" }), "*");
  }));
}

describe("downstream apps through atrium, in Chromium with AppBridge as the host", () => {
  it("the fixture's app renders through atrium with its own input and result; its read reaches its server", async () => {
    const { page, app, notes } = await render("call_tool", "board.show_board", { filter: "all" });
    await expect.poll(notes, POLL).toContain("ready: yes");
    await expect.poll(() => app.locator("#board li").count(), POLL).toBe(2);
    // The relay hands the page the tool's own arguments, not call_tool's.
    expect(await notes()).toContain('input: {"filter":"all"}');
    const before = received("board").length;
    await app.locator("#read").click();
    await expect.poll(notes, POLL).toContain('read: ok {"items":["first","second"]}');
    expect(received("board").slice(before)).toEqual(["list_items"]);
    expect(forwarded.at(-1)).toEqual({ name: "call_app_tool", args: { connector: "board", tool: "list_items", arguments: {} } });
    await mkdirSync("test-artifacts", { recursive: true });
    await page.screenshot({ path: "test-artifacts/downstream-app.png", fullPage: true });
    await page.close();
  });

  it("the fixture's app: a write is refused (the server never sees it), a model-only tool too, and its own resources are not relayed", async () => {
    const { page, app, notes } = await render("call_tool", "board.show_board");
    await expect.poll(notes, POLL).toContain("ready: yes");
    const before = received("board").length;
    await app.locator("#write").click();
    await expect.poll(notes, POLL).toContain("write: refused app_call_refused");
    await app.locator("#model").click();
    await expect.poll(notes, POLL).toContain("model: refused app_call_refused");
    await app.locator("#resource").click();
    await expect.poll(notes, POLL).toContain("resource: error -32601");
    expect(received("board").slice(before)).toEqual([]);
    await page.close();
  });

  it("the fixture's app on a connector with appWrites: its write runs", async () => {
    const { page, app, notes } = await render("call_tool", "writer.show_board");
    await expect.poll(notes, POLL).toContain("ready: yes");
    const before = received("writer").length;
    await app.locator("#write").click();
    await expect.poll(notes, POLL).toContain('write: ok {"items":["first","second","from the app"]}');
    expect(received("writer").slice(before)).toEqual(["add_item"]);
    await page.close();
  });

  it("the fixture's app cannot reach another connector by any name, through the host or around its relay: the other server hears nothing", async () => {
    const { page, app, notes } = await render("call_tool", "board.show_board");
    await expect.poll(notes, POLL).toContain("ready: yes");
    const seen = forwarded.length;
    await app.locator("#peer").click();
    await expect.poll(notes, POLL).toContain("peer: done");
    const text = await notes();
    for (const how of ["peer address", "peer via call_tool", "peer via call_app_tool"]) expect(text).toContain(`${how}: refused unknown_tool`);
    expect(text).toContain("relay document: blocked");
    await reachForOther(app);
    expect(received("other")).toEqual([]);
    // Everything the host forwarded was call_app_tool for the page's own connector.
    expect(forwarded.slice(seen).every((c) => c.name === "call_app_tool" && c.args.connector === "board")).toBe(true);
    await page.close();
  });

  it("the page runs under the CSP its server declared even though this host applies none: an undeclared origin, the host's own included, is never reached", async () => {
    const { page, app, notes, inFlight } = await render("call_tool", "board.show_board");
    await expect.poll(notes, POLL).toContain("ready: yes");
    const hits = server.hits.length;
    const outcome = await app.locator("body").evaluate(async (_, port) => {
      const img = new Image();
      img.src = `http://127.0.0.1:${port}/beacon-img`;
      try { await fetch(`http://127.0.0.1:${port}/beacon-fetch`); return "fetched"; } catch { return "blocked"; }
    }, server.port);
    expect(outcome).toBe("blocked");
    await waitFor(() => inFlight() === 0, "every request the page started finished or failed");
    expect(server.hits.slice(hits).filter((h) => h.includes("beacon"))).toEqual([]);
    await page.close();
  });

  it("basic-vanillajs (npm): renders the time through call_destructive_tool; its unannotated get-time, a write for atrium, is refused to the app and never reaches the server", async () => {
    const { page, app } = await render("call_destructive_tool", "time.get-time");
    const time = app.locator("#server-time");
    await expect.poll(() => time.textContent(), POLL).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(received("time")).toEqual(["get-time"]);
    await app.locator("#get-time-btn").click();
    await expect.poll(() => time.textContent(), POLL).toBe("[ERROR]");
    // Shown once atrium had answered the refusal: it refuses before any downstream call.
    expect(received("time")).toEqual(["get-time"]);
    await reachForOther(app);
    expect(received("other")).toEqual([]);
    await page.close();
  });

  it("basic-vanillajs (npm) on a connector with appWrites: the app's own get-time runs and updates the time", async () => {
    const { page, app, result } = await render("call_destructive_tool", "clock.get-time");
    const time = app.locator("#server-time");
    await expect.poll(() => time.textContent(), POLL).toBe(result.structuredContent.time);
    // The next time the server reads must differ from the one shown: wait for the clock to pass it.
    await waitFor(() => new Date().toISOString() > result.structuredContent.time, "the clock past the time shown");
    await app.locator("#get-time-btn").click();
    await expect.poll(() => time.textContent(), POLL).not.toBe(result.structuredContent.time);
    expect(await time.textContent()).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(received("clock")).toEqual(["get-time", "get-time"]);
    await page.close();
  });

  it("system-monitor (npm): renders the host's info through call_tool and polls its app-only read through atrium; another connector hears nothing", async () => {
    const { page, app, result } = await render("call_tool", "monitor.get-system-info");
    await expect.poll(() => app.locator("#info-hostname").textContent(), POLL).toBe(result.structuredContent.hostname);
    await app.locator("#poll-toggle-btn").click();
    await expect.poll(() => app.locator("#memory-percent").textContent(), POLL).toMatch(/^\d+(\.\d+)?%$/);
    await app.locator("#poll-toggle-btn").click();
    expect(received("monitor")[0]).toBe("get-system-info");
    expect(received("monitor").slice(1).length).toBeGreaterThan(0);
    expect(new Set(received("monitor").slice(1))).toEqual(new Set(["poll-system-stats"]));
    await reachForOther(app);
    expect(received("other")).toEqual([]);
    await page.screenshot({ path: "test-artifacts/downstream-system-monitor.png", fullPage: true });
    await page.close();
  });
});
