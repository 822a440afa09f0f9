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
import { invoke, type InvokeContext } from "../glue/calls/invoke.js";
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

describe("invoke: a call's deadline", () => {
  // A stand-in connector that records the deadline each call was given.
  const seen: number[] = [];
  const connector = { config: { timeoutMs: CONNECTOR_TIMEOUT_MS }, call: async (_n: string, _a: unknown, o: { timeoutMs: number }) => { seen.push(o.timeoutMs); return { content: [] }; } };
  const catalog = { connectorOf: () => undefined, resolve: () => ({ entry: { address: "x.y", name: "y", safety: "read_only" }, connector }) };
  const ctx = { catalog, core: core(), callPayloadBytes: 1024 } as unknown as InvokeContext;
  const call = (timeLeftMs?: () => number) => invoke(ctx, { address: "x.y", args: {}, allowApproval: false, timeLeftMs });

  it("is the connector's timeoutMs, or the caller's time left when that is smaller; with none left the call is not made", async () => {
    await call();
    await call(() => WALL_MS - 0.5);
    await call(() => CONNECTOR_TIMEOUT_MS * 2);
    expect(seen).toEqual([CONNECTOR_TIMEOUT_MS, WALL_MS, CONNECTOR_TIMEOUT_MS]);
    await expect(call(() => 0)).rejects.toMatchObject({ code: "timeout" });
    expect(seen).toHaveLength(3);
  });
});
