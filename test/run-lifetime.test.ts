// One lifetime per run, seen from the downstream's side: when a program's run ends — its wall
// clock runs out, the MCP request is cancelled, or it simply returns — every downstream call it
// still has in flight is cancelled (the downstream receives notifications/cancelled) and never
// does its late work. The fixture's slow_write logs "start", "cancelled" or "late write" per call.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { startAtrium, fixture, nodeServer, type Atrium } from "./harness/atrium-client.js";
import { ConnectorRegistry } from "../glue/connectors/registry.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";

const WALL_MS = 1500;
const CONNECTOR_TIMEOUT_MS = 60_000; // far longer than the run: a call must still end with its run
const SLACK_MS = 1500; // how late after the run's end the downstream may hear of it

let a: Atrium;
let logFile: string;

const lines = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").filter(Boolean) : []);
const lineFor = (kind: string, tag: string) => lines().find((l) => l.startsWith(`${kind} `) && l.endsWith(` ${tag}`));
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}
/** Waits out the call's own ms (plus slack) and checks it never wrote late. */
async function neverWritesLate(tag: string, ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms + SLACK_MS));
  expect(lineFor("late write", tag)).toBeUndefined();
}
const run = (code: string) => a.call("execute_code", { code }) as Promise<any>;

describe("a run's downstream calls end with the run", () => {
  beforeAll(async () => {
    logFile = join(mkdtempSync(join(tmpdir(), "atrium-lifetime-")), "writes.log");
    a = await startAtrium({
      config: {
        mcpServers: { nasty: nodeServer(fixture("nasty-server"), { timeoutMs: CONNECTOR_TIMEOUT_MS, env: { FIXTURE_WRITE_LOG: logFile } }) },
        atrium: { sandbox: { programWallMs: WALL_MS } },
      },
    });
  });
  afterAll(async () => {
    await a?.close();
    rmSync(dirname(logFile), { recursive: true, force: true });
  });

  it("a run that times out (program_wall_ms) cancels its in-flight call; the downstream never writes late", async () => {
    const started = Date.now();
    const r = await run(`async () => { await nasty.slow_write({ ms: 5000, tag: "wall" }); return "finished"; }`);
    expect(r.structuredContent.error).toMatchObject({ code: "timeout", details: { budget: "program_wall_ms", limit: WALL_MS } });
    expect(await until(() => lineFor("cancelled", "wall") !== undefined, SLACK_MS)).toBe(true);
    expect(Date.now() - started).toBeLessThan(WALL_MS + 2 * SLACK_MS);
    await neverWritesLate("wall", 5000 - (Date.now() - started));
  }, 20_000);

  it("a cancelled MCP request cancels its in-flight call; the downstream never writes late", async () => {
    const ctl = new AbortController();
    const pending = a.client.request({ method: "tools/call", params: { name: "execute_code", arguments: { code: `async () => { await nasty.slow_write({ ms: 5000, tag: "client" }); return "finished"; }` } } }, CallToolResultSchema, { signal: ctl.signal });
    pending.catch(() => {});
    expect(await until(() => lineFor("start", "client") !== undefined, WALL_MS)).toBe(true);
    const started = Date.now();
    ctl.abort("the person stopped it");
    await expect(pending).rejects.toThrow();
    expect(await until(() => lineFor("cancelled", "client") !== undefined, SLACK_MS)).toBe(true);
    expect(Date.now() - started).toBeLessThan(SLACK_MS);
    await neverWritesLate("client", 5000);
  }, 20_000);

  it("a run that returns cancels the calls it left in flight (an unawaited call, a batch item)", async () => {
    const started = Date.now();
    // The awaited echo goes down the same pipe after the two slow calls, so they have reached the downstream by then.
    const r = await run(`async () => {
      atrium.call("nasty.slow_write", { ms: 3000, tag: "loose" }).catch(() => {});
      atrium.batch([{ address: "nasty.slow_write", args: { ms: 3000, tag: "batched" } }]);
      await nasty.echo({});
      return 1;
    }`);
    expect(r.structuredContent).toMatchObject({ ok: true, value: 1 });
    expect(lineFor("start", "loose")).toBeDefined();
    expect(lineFor("start", "batched")).toBeDefined();
    expect(await until(() => lineFor("cancelled", "loose") !== undefined && lineFor("cancelled", "batched") !== undefined, SLACK_MS)).toBe(true);
    await neverWritesLate("loose", 3000 - (Date.now() - started));
    expect(lineFor("late write", "batched")).toBeUndefined();
  }, 20_000);

  it("a call's deadline is the run's time left, not the connector's timeoutMs: a program that catches its failure still ends at program_wall_ms, the call with it", async () => {
    const started = Date.now();
    const r = await run(`async () => { try { await nasty.slow_write({ ms: 5000, tag: "capped" }); return "finished"; } catch (e) { return e.code; } }`);
    const ended = Date.now() - started;
    expect(r.structuredContent.error).toMatchObject({ code: "timeout", details: { budget: "program_wall_ms" } });
    expect(ended).toBeLessThan(WALL_MS + SLACK_MS);
    expect(await until(() => lineFor("cancelled", "capped") !== undefined, SLACK_MS)).toBe(true);
    expect(Date.now() - started).toBeLessThan(WALL_MS + 2 * SLACK_MS);
    await neverWritesLate("capped", 5000 - (Date.now() - started));
  }, 20_000);
});

describe("a call's deadline (the connector's timeoutMs, capped by its caller's time left)", () => {
  // A real connector to the recording fixture, in process: the deadline it gives a call is seen
  // from the downstream's side (a call cut at its deadline is cancelled there and never writes).
  const TIGHT_MS = 300;
  let registry: ConnectorRegistry;
  let log: string;
  const connectorFor = () => registry.get("nasty")!;
  beforeAll(async () => {
    log = join(mkdtempSync(join(tmpdir(), "atrium-deadline-")), "writes.log");
    const v = validateConfig({ mcpServers: { nasty: nodeServer(fixture("nasty-server"), { timeoutMs: CONNECTOR_TIMEOUT_MS, env: { FIXTURE_WRITE_LOG: log } }) } }, core());
    if (!v.ok) throw new Error(JSON.stringify(v));
    registry = new ConnectorRegistry(v.config, "test");
    await registry.startAll();
  });
  afterAll(async () => {
    await registry?.stopAll();
    rmSync(dirname(log), { recursive: true, force: true });
  });
  const logged = () => (existsSync(log) ? readFileSync(log, "utf8") : "");

  it("with less time left than timeoutMs, the call is cut at the time left and the downstream hears it was cancelled", async () => {
    const started = Date.now();
    await expect(connectorFor().call("slow_write", { ms: 5000, tag: "tight" }, { timeLeftMs: TIGHT_MS })).rejects.toMatchObject({ code: "timeout", details: { budget: "program_wall_ms", timeoutMs: TIGHT_MS } });
    expect(Date.now() - started).toBeLessThan(CONNECTOR_TIMEOUT_MS);
    expect(await until(() => /cancelled \S+ tight/.test(logged()), SLACK_MS)).toBe(true);
  });

  it("with no time left the call is never made", async () => {
    await expect(connectorFor().call("slow_write", { ms: 10, tag: "none" }, { timeLeftMs: 0 })).rejects.toMatchObject({ code: "timeout", details: { budget: "program_wall_ms" } });
    await new Promise((r) => setTimeout(r, 200));
    expect(logged()).not.toMatch(/ none\n/);
  });

  it("with more time left than timeoutMs, the connector's own timeoutMs holds (the call completes normally)", async () => {
    const r = await connectorFor().call("slow_write", { ms: 10, tag: "roomy" }, { timeLeftMs: CONNECTOR_TIMEOUT_MS * 2 });
    expect(r.structuredContent).toEqual({ wrote: true });
  });
});
