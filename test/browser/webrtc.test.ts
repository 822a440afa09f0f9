// WebRTC is not governed by CSP: a page that can construct RTCPeerConnection sends STUN over
// UDP to any host and port it names. These tests run a page with every attack we know
// (test/browser/webrtc-attacks.ts), each aimed at its own UDP listener on 127.0.0.1, and
// require silence on every listener — in the shell's nested frame, in the offline file, and in a
// downstream app's page inside atrium's relay (glue/apps/relay-page.ts), as a host renders it.
// The positive controls run the same attacks where nothing guards them, in the same
// Chromium, so the silence cannot be vacuous.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, BrowserContext, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { shellHtml, VIEW_CSP } from "../../glue/views/shell-page.js";
import { writeOfflineView } from "../../glue/views/offline-file.js";
import { relayPage } from "../../glue/apps/relay-page.js";
import { allowAttribute, cspFor } from "../../glue/apps/csp.js";
import { launchChromium } from "./chromium.js";
import { buildHostBundle, FakeAtrium, type HostBundle, type HostServer, openHostPage, parseNotes, startHostServer } from "./harness.js";
import { ATTACKS, type Attack, attackPage, type Listener, udpListener } from "./webrtc-attacks.js";
import { WAIT_MS } from "../harness/until.js";

let browser: Browser;
let context: BrowserContext;
let bundle: HostBundle;
let server: HostServer;
let filesDir: string;

beforeAll(async () => {
  [bundle, browser, filesDir] = await Promise.all([buildHostBundle(), launchChromium(), mkdtemp(join(tmpdir(), "atrium-webrtc-"))]);
  server = await startHostServer(bundle);
  context = await browser.newContext({ viewport: { width: 900, height: 900 } });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await bundle?.dispose();
  if (filesDir) await rm(filesDir, { recursive: true, force: true });
});

const POLL = { timeout: WAIT_MS, interval: 100 };

async function listeners(ctx: TestContext) {
  const all = Object.fromEntries(await Promise.all(ATTACKS.map(async (a) => [a, await udpListener()] as const))) as Record<Attack, Listener>;
  ctx.onTestFinished(() => Promise.all(Object.values(all).map((l) => l.close())).then(() => undefined));
  const ports = Object.fromEntries(ATTACKS.map((a) => [a, all[a].port])) as Record<Attack, number>;
  /** Attacks whose listener received anything. */
  const leaks = () => ATTACKS.filter((a) => all[a].packets > 0).map((a) => `${a}: ${all[a].packets} packets`);
  return { all, ports, leaks };
}

/** `attached`: wait for the page to have run, whether or not its frame is laid out with a size. */
async function notesOf(view: FrameLocator | Page, state: "visible" | "attached" = "visible"): Promise<Record<string, string>> {
  await view.locator("#done").waitFor({ timeout: WAIT_MS, state });
  return parseNotes((await view.locator("#out").textContent()) ?? "");
}

/**
 * Silence is checked after a later packet of the same kind: once the page under test has run its
 * attacks, a page nothing guards sends STUN to a listener of its own, and the test waits for it to
 * arrive. STUN from an attack started earlier, in the same browser, would have arrived by then.
 */
async function canaryHeard(ctx: TestContext): Promise<void> {
  const canary = await udpListener();
  const page = await context.newPage();
  ctx.onTestFinished(async () => { await page.close(); await canary.close(); });
  await page.setContent(`<!doctype html><script>var pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${canary.port}" }] }); pc.createDataChannel("d"); pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });</script>`);
  await expect.poll(() => canary.packets, POLL).toBeGreaterThan(0);
}

function consoleOf(ctx: TestContext, page: Page) {
  const logs: string[] = [];
  page.on("console", (m) => logs.push(`${m.type()}: ${m.text().slice(0, 300)}`));
  page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
  ctx.onTestFailed(() => console.error(`browser console for "${ctx.task.name}":\n${logs.join("\n")}`));
}

/** What a guarded page must have seen: every constructor gone and not one child frame. */
function expectGuarded(notes: Record<string, string>) {
  expect(notes.direct).toMatch(/^threw TypeError/);
  expect(notes.webkit).toMatch(/^threw TypeError/);
  expect(notes.recovered).toBe("found 0 ");
  expect(notes.mediaDevices).toBe("undefined undefined undefined");
  expect(notes["window-open"]).toBe("null");
  expect(notes["tampered-builtins"]).toBe("div frames 0");
  expect(notes.frames).toBe("0");
}

describe("WebRTC in a view (UDP listeners on 127.0.0.1)", () => {
  it("positive control: in a plain page of the same Chromium the attacks reach the listeners", async (ctx) => {
    const { ports, all, leaks } = await listeners(ctx);
    const page = await context.newPage();
    consoleOf(ctx, page);
    ctx.onTestFinished(() => page.close());
    await page.setContent(`<!doctype html><html><head></head><body>${attackPage(ports)}</body></html>`);
    const notes = await notesOf(page);
    expect(notes.direct).toBe("sent");
    await expect.poll(() => all.direct.packets, POLL).toBeGreaterThan(0);
    // The canary the guarded tests wait for comes after these attacks' packets, so their silence
    // is not the canary's haste.
    await canaryHeard(ctx);
    expect(leaks().length).toBeGreaterThan(3);
  });

  it("positive control: a nested srcdoc frame under the view's sandbox and CSP alone reaches the listener", async (ctx) => {
    const { ports, all } = await listeners(ctx);
    const page = await context.newPage();
    consoleOf(ctx, page);
    ctx.onTestFinished(() => page.close());
    const attr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
    const child = `<script>var pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${ports["markup-srcdoc"]}" }] }); pc.createDataChannel("d"); pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });</script>`;
    const inner = `<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}"><iframe srcdoc="${attr(child)}"></iframe>`;
    await page.setContent(`<!doctype html><iframe sandbox="allow-scripts" srcdoc="${attr(inner)}"></iframe>`);
    await expect.poll(() => all["markup-srcdoc"].packets, POLL).toBeGreaterThan(0);
  });

  it("a view in the shell's nested frame reaches no UDP listener by any attack, and has no constructor and no child frame", async (ctx) => {
    const { ports, leaks } = await listeners(ctx);
    const fake = new FakeAtrium();
    const host = await openHostPage(context, server, (name, args) => fake.callTool(name, args));
    ctx.onTestFailed(() => console.error(`browser console for "${ctx.task.name}":\n${host.console.join("\n")}`));
    ctx.onTestFinished(() => host.page.close());
    await host.page.evaluate((html) => (globalThis as any).__mount(html, {}), shellHtml());
    await host.page.evaluate((r) => (globalThis as any).__deliverToolResult(r), fake.resultFor({ id: "webrtc-1", html: attackPage(ports) }));
    const notes = await notesOf(host.page.frameLocator("#shell").frameLocator("#view"));
    await canaryHeard(ctx);
    expect(leaks()).toEqual([]);
    expectGuarded(notes);
  });

  it("a view in the offline file reaches no UDP listener by any attack, and has no constructor and no child frame", async (ctx) => {
    const { ports, leaks } = await listeners(ctx);
    const { path } = writeOfflineView(randomUUID(), { html: attackPage(ports) }, filesDir) as { path: string };
    const page = await context.newPage();
    consoleOf(ctx, page);
    ctx.onTestFinished(() => page.close());
    await page.goto(pathToFileURL(path).href);
    const notes = await notesOf(page.frameLocator("iframe"));
    await canaryHeard(ctx);
    expect(leaks()).toEqual([]);
    expectGuarded(notes);
  });

  it("a downstream app's page in atrium's relay reaches no UDP listener by any attack, and has no constructor and no child frame", async (ctx) => {
    const { ports, leaks } = await listeners(ctx);
    const fake = new FakeAtrium();
    const host = await openHostPage(context, server, (name, args) => fake.callTool(name, args));
    ctx.onTestFailed(() => console.error(`browser console for "${ctx.task.name}":\n${host.console.join("\n")}`));
    ctx.onTestFinished(() => host.page.close());
    // A whole downstream document, as a server serves it (its doctype stays first).
    const html = `<!doctype html><html><head><title>hostile app</title></head><body>${attackPage(ports)}</body></html>`;
    await host.page.evaluate((doc) => (globalThis as any).__mount(doc, {}), relayPage({ connector: "hostile", html, csp: cspFor(undefined), allow: allowAttribute(undefined) }));
    const app = host.page.frameLocator("#shell").frameLocator("#app");
    // The host harness gives the relay's frame no height until the app asks for one.
    const notes = await notesOf(app, "attached");
    await canaryHeard(ctx);
    expect(leaks()).toEqual([]);
    expectGuarded(notes);
    // The page kept its rendering mode: the guard went in after its doctype.
    expect(await app.locator("body").evaluate(() => document.compatMode)).toBe("CSS1Compat");
  });

  it("a frame that appears by a path the guard does not wrap (DevTools inserting markup) is removed before its document can run", async (ctx) => {
    const { all, ports } = await listeners(ctx);
    const { path } = writeOfflineView(randomUUID(), { html: `<div id="slot"></div><p id="ready">ready</p>` }, filesDir) as { path: string };
    const page = await context.newPage();
    consoleOf(ctx, page);
    ctx.onTestFinished(() => page.close());
    await page.goto(pathToFileURL(path).href);
    const view = page.frameLocator("iframe");
    await view.locator("#ready").waitFor();
    // The sandboxed frame may run out of process; then it has its own DevTools target.
    const frame = page.frames()[1];
    const cdp = await context.newCDPSession(frame).catch(() => context.newCDPSession(page));
    const { root } = await cdp.send("DOM.getDocument", { depth: -1, pierce: true });
    const find = (n: any): any => (n.attributes?.includes("slot") ? n : [...(n.children ?? []), ...(n.contentDocument ? [n.contentDocument] : [])].map(find).find(Boolean));
    const slot = find(root);
    expect(slot).toBeTruthy();
    const child = `<script>var pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${ports.direct}" }] }); pc.createDataChannel("d"); pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });</script>`;
    await cdp.send("DOM.setOuterHTML", { nodeId: slot.nodeId, outerHTML: `<div id="slot"><iframe srcdoc="${child.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"></iframe></div>` });
    await canaryHeard(ctx);
    expect(all.direct.packets).toBe(0);
    expect(await view.locator("#slot").count()).toBe(1);
    expect(await view.locator("iframe").count()).toBe(0);
  });
});
