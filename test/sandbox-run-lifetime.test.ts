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
import { waitFor } from "./harness/until.js";
import { ConnectorRegistry } from "../glue/connectors/registry.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";

// Long enough for a run to reach its first call on a loaded machine; ended by it, never by the call.
const WALL_MS = 5000;
const CONNECTOR_TIMEOUT_MS = 60_000; // far longer than the run: a call must still end with its run
// How long slow_write waits before its late write: longer than any test here lasts, so a late
// write can only mean the call was never cancelled. That the downstream was cancelled is read from
// its own log ("cancelled <id>"), and the fixture never writes late after that line.
const CALL_MS = 600_000;

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
const lineIn = (file: string, kind: string, tag: string) => lines(file).find((l) => l.startsWith(`${kind} `) && l.endsWith(` ${tag}`));
/** Waits for the downstream's "cancelled" line of the call tagged `tag`; it wrote nothing late before it. */
async function cancelledDownstream(file: string, tag: string): Promise<void> {
  await waitFor(() => lineIn(file, "cancelled", tag) !== undefined, `the downstream's "cancelled … ${tag}" line`);
  expect(lineIn(file, "late write", tag)).toBeUndefined();
}

/** An atrium whose one connector is the recording fixture, writing to its own log. */
async function recordingAtrium(wallMs: number): Promise<{ a: Atrium; log: string }> {
  const log = join(mkdtempSync(join(tmpdir(), "atrium-lifetime-")), "writes.log");
  const a = await startAtrium({
    config: {
      mcpServers: { nasty: nodeServer(fixture("nasty-server"), { timeoutMs: CONNECTOR_TIMEOUT_MS, env: { FIXTURE_WRITE_LOG: log } }) },
      atrium: { sandbox: { programWallMs: wallMs } },
    },
  });
  return { a, log };
}
const run = (a: Atrium, code: string) => a.call("execute_code", { code }) as Promise<any>;

describe("a run's downstream calls end with the run", () => {
  // Two atriums: one whose runs end by program_wall_ms, and one whose wall is far away, for the
  // runs that must end another way (a cancelled request, a return) however slow the machine is.
  let short: { a: Atrium; log: string };
  let roomy: { a: Atrium; log: string };
  beforeAll(async () => {
    [short, roomy] = await Promise.all([recordingAtrium(WALL_MS), recordingAtrium(CONNECTOR_TIMEOUT_MS)]);
  });
  afterAll(async () => {
    for (const x of [short, roomy]) {
      await x?.a.close();
      if (x) rmSync(dirname(x.log), { recursive: true, force: true });
    }
  });

  it("a run that times out (program_wall_ms) cancels its in-flight call; the downstream never writes late", async () => {
    const r = await run(short.a, `async () => { await nasty.slow_write({ ms: ${CALL_MS}, tag: "wall" }); return "finished"; }`);
    expect(r.structuredContent.error).toMatchObject({ code: "timeout", details: { budget: "program_wall_ms", limit: WALL_MS } });
    // The run ended while its call was still running downstream, then the call was cancelled there.
    expect(lineIn(short.log, "start", "wall")).toBeDefined();
    await cancelledDownstream(short.log, "wall");
  });

  it("a cancelled MCP request cancels its in-flight call; the downstream never writes late", async () => {
    const ctl = new AbortController();
    const pending = roomy.a.client.request({ method: "tools/call", params: { name: "execute_code", arguments: { code: `async () => { await nasty.slow_write({ ms: ${CALL_MS}, tag: "client" }); return "finished"; }` } } }, CallToolResultSchema, { signal: ctl.signal });
    pending.catch(() => {});
    await waitFor(() => lineIn(roomy.log, "start", "client") !== undefined, "the call running downstream");
    ctl.abort("the person stopped it");
    await expect(pending).rejects.toThrow();
    await cancelledDownstream(roomy.log, "client");
  });

  it("a run that returns cancels the calls it left in flight (an unawaited call, a batch item)", async () => {
    // The awaited echo goes down the same pipe after the two slow calls, so they have reached the downstream by then.
    const r = await run(roomy.a, `async () => {
      atrium.call("nasty.slow_write", { ms: ${CALL_MS}, tag: "loose" }).catch(() => {});
      atrium.batch([{ address: "nasty.slow_write", args: { ms: ${CALL_MS}, tag: "batched" } }]);
      await nasty.echo({});
      return 1;
    }`);
    expect(r.structuredContent).toMatchObject({ ok: true, value: 1 });
    expect(lineIn(roomy.log, "start", "loose")).toBeDefined();
    expect(lineIn(roomy.log, "start", "batched")).toBeDefined();
    await cancelledDownstream(roomy.log, "loose");
    await cancelledDownstream(roomy.log, "batched");
  });

  it("a call's deadline is the run's time left, not the connector's timeoutMs: a program that catches its failure still ends at program_wall_ms, the call with it", async () => {
    const r = await run(short.a, `async () => { try { await nasty.slow_write({ ms: ${CALL_MS}, tag: "capped" }); return "finished"; } catch (e) { return e.code; } }`);
    // Ended by the run's wall (not by the connector's 60 s timeout, which names no budget), and
    // the program never went on after it: no value, the wall's error.
    expect(r.structuredContent.error).toMatchObject({ code: "timeout", details: { budget: "program_wall_ms" } });
    await cancelledDownstream(short.log, "capped");
  });
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
  it("with less time left than timeoutMs, the call is cut at the time left and the downstream hears it was cancelled", async () => {
    // The error names the deadline that fired (the time left, not the connector's 60 s), and the
    // downstream had not finished its call when it was cut.
    await expect(connectorFor().call("slow_write", { ms: CALL_MS, tag: "tight" }, { timeLeftMs: TIGHT_MS })).rejects.toMatchObject({ code: "timeout", details: { budget: "program_wall_ms", timeoutMs: TIGHT_MS } });
    await cancelledDownstream(log, "tight");
  });

  it("with no time left the call is never made", async () => {
    await expect(connectorFor().call("slow_write", { ms: 10, tag: "none" }, { timeLeftMs: 0 })).rejects.toMatchObject({ code: "timeout", details: { budget: "program_wall_ms" } });
    // A call made after it goes down the same pipe: once it has been answered, the downstream has
    // read everything sent before it, and a call tagged "none" is not among it.
    await connectorFor().call("slow_write", { ms: 10, tag: "after-none" }, { timeLeftMs: CONNECTOR_TIMEOUT_MS });
    expect(lineIn(log, "start", "after-none")).toBeDefined();
    expect(lineIn(log, "start", "none")).toBeUndefined();
  });

  it("with more time left than timeoutMs, the connector's own timeoutMs holds (the call completes normally)", async () => {
    const r = await connectorFor().call("slow_write", { ms: 10, tag: "roomy" }, { timeLeftMs: CONNECTOR_TIMEOUT_MS * 2 });
    expect(r.structuredContent).toEqual({ wrote: true });
  });
});
