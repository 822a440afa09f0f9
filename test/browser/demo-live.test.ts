// `atrium demo --serve` in Chromium: the scripted session ends in a local MCP Apps host where the
// service-desk view renders from atrium's shell and its refresh and drill-down reads work.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./chromium.js";
import { atriumBin } from "../harness/atrium-client.js";
import { WAIT_MS, waitForValue } from "../harness/until.js";

let browser: Browser;
let demo: ChildProcess;
let url: string;
let out = "";
let err = "";
/** How long the failure report may spend reading the shell's status line. */
const DESCRIBE_MS = 5_000;

beforeAll(async () => {
  demo = spawn(process.execPath, [atriumBin, "demo", "--serve"], { stdio: ["ignore", "pipe", "pipe"] });
  demo.stdout!.on("data", (c) => { out += c; });
  // Kept so that a view that never shows its rows fails with what the demo said (a busy-machine pass once did).
  demo.stderr!.on("data", (c) => { err += c; });
  [browser, url] = await Promise.all([
    launchChromium(),
    waitForValue(() => /live view: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1], "the live URL from atrium demo --serve"),
  ]);
});
afterAll(async () => {
  await browser?.close();
  // Wait for the demo to end: it writes to the test's state directory, which is removed after this.
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    const ended = new Promise((resolve) => demo.once("exit", resolve));
    demo.kill("SIGINT");
    await ended;
  }
});

describe("atrium demo --serve", () => {
  it("serves the live service-desk view: it renders, refreshes and drills down through atrium", async () => {
    expect(out).toContain("delivered inline");
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(url);
    const view = page.frameLocator("#shell").frameLocator("#view");
    await view.locator("tr.row").first().waitFor().catch(async (e: Error) => {
      // What the shell said (its status line) and what its frame holds. A short read, only to describe
      // the failure: a second full wait would run past the test's own timeout and lose this report.
      const shell = page.frameLocator("#shell");
      const said = {
        status: await shell.locator("#status").textContent({ timeout: DESCRIBE_MS }).catch((x: Error) => x.message),
        viewFrames: await shell.locator("#view").count().catch((x: Error) => x.message),
      };
      throw new Error(`${e.message}\n--- the shell: ${JSON.stringify(said)}\n--- the demo's stdout:\n${out}\n--- its stderr:\n${err}`);
    });
    const rows = await view.locator("tr.row").count();
    expect(rows).toBeGreaterThan(5);
    await view.locator("#bar").evaluate((el) => { el.textContent = ""; });
    await view.locator("#refresh").click();
    await expect.poll(() => view.locator("#bar").textContent(), { timeout: WAIT_MS }).toMatch(/^\d+ active incidents/);
    await view.locator("tr.row").nth(1).click();
    await expect.poll(() => view.locator("#detail").textContent(), { timeout: WAIT_MS }).toMatch(/INC-\d+ — .*opened/);
    await mkdir("test-artifacts", { recursive: true });
    await page.screenshot({ path: "test-artifacts/demo-view-live.png", fullPage: true });
    await page.close();
  });

  it("the demo host forwards only call_tool and get_view to atrium", async () => {
    const r = await fetch(new URL("/call", url), { method: "POST", body: JSON.stringify({ name: "call_destructive_tool", arguments: { address: "desk.close_incident", args: { id: "INC-1042", resolution: "x" } } }) });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toContain("forwards only call_tool and get_view");
  });
});
