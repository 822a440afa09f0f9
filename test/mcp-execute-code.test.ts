// execute_code over real stdio: the guest API, the one call path (same gate and errors as
// call_tool), typed errors, emitted blocks, diagnostics, progress and cancellation.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { startAtrium, fixture, nodeServer, demoServer, npmBin, atriumBin, type Atrium } from "./harness/atrium-client.js";
import { RawStdioPeer } from "./fixtures/raw-stdio.js";
import { waitFor } from "./harness/until.js";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";

let a: Atrium;
const writes = join(mkdtempSync(join(tmpdir(), "atrium-execute-code-")), "writes.log");
const written = () => (existsSync(writes) ? readFileSync(writes, "utf8").split("\n") : []);
const run = async (code: string, extra: Record<string, unknown> = {}) => (await a.call("execute_code", { code, ...extra })) as any;
const value = (code: string) => a.value(code);

beforeAll(async () => {
  a = await startAtrium({
    config: {
      mcpServers: {
        desk: nodeServer(demoServer),
        nasty: nodeServer(fixture("nasty-server"), { env: { FIXTURE_WRITE_LOG: writes } }),
        // A short deadline for the hang, only ever waited out.
        stuck: nodeServer(fixture("nasty-server"), { timeoutMs: 1000 }),
        everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] },
      },
    },
  });
});
afterAll(async () => {
  await a.close();
  rmSync(dirname(writes), { recursive: true, force: true });
});

describe("execute_code", () => {
  it("is listed first with a description that carries the API, the limits and the connectors", async () => {
    const { tools } = await a.client.listTools();
    const t = tools.find((x) => x.name === "execute_code")!;
    for (const s of ["atrium.search", "atrium.describe", "atrium.call", "atrium.batch", "atrium.emit", "20 host calls", "desk", "nasty", "everything"]) expect(t.description).toContain(s);
    expect(t.description!.length).toBeLessThan(2000);
    expect(t.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("runs search, call and a reduction, returning only the value", async () => {
    const v = await value(`async () => {
      const s = await atrium.search("incidents", { safety: "read_only" });
      const list = await atrium.call(s.results[0].address, { status: "open", limit: 50 });
      return { first: s.results[0].address, open: list.incidents.length };
    }`);
    expect(v.first).toBe("desk.list_incidents");
    expect(v.open).toBeGreaterThan(0);
  });

  it("connector globals are sugar for atrium.call, with non-identifier characters turned into _", async () => {
    expect(await value(`async () => (await desk.get_incident({ id: "INC-1042" })).id`)).toBe("INC-1042");
    expect(JSON.stringify(await value(`async () => everything.get_sum({ a: 40, b: 2 })`))).toContain("42");
  });

  it("describe takes one address or many; a bad entry is an inline typed failure, never a throw", async () => {
    const v = await value(`async () => {
      const one = await atrium.describe("desk.get_incident");
      const many = await atrium.describe(["desk.get_incident", "desk.nope", "nowhere.x"]);
      return { one: Object.keys(one.inputSchema.properties), many: many.map((d) => d.ok ? d.address : d.error.code) };
    }`);
    expect(v).toEqual({ one: ["id"], many: ["desk.get_incident", "unknown_tool", "unknown_address"] });
  });

  it("batch runs calls in parallel; a failing item comes back inline as { ok: false, error } and the others run", async () => {
    const v = await value(`async () => (await atrium.batch([
      { address: "desk.get_incident", args: { id: "INC-1042" } },
      { address: "desk.get_incident", args: { id: "INC-0000" } },
      { address: "desk.close_incident", args: { id: "INC-1042", resolution: "x" } },
      { address: "nasty.slow", args: { ms: 50 } },
    ])).map((r) => r.ok ? "ok" : r.error.code)`);
    expect(v).toEqual(["ok", "connector_call_failed", "destructive_tool_requires_approval", "ok"]);
  });

  it("an empty batch is [] and costs no host call", async () => {
    const r = await run(`async () => atrium.batch([])`, { diagnostics: true });
    expect(r.structuredContent).toMatchObject({ ok: true, value: [] });
    expect(r.structuredContent.diagnostics.hostCalls).toBe(0);
  });

  it("a batch that breaks a rule of the whole (not an array, over batch_calls) is refused as a whole, typed, and none of it runs; the guide says so", async () => {
    const v = await value(`async () => {
      const out = [];
      for (const items of [Array.from({ length: 11 }, () => ({ address: "desk.list_services", args: {} })), "desk.list_services", { address: "desk.list_services" }]) {
        try { await atrium.batch(items); out.push("ran"); } catch (e) { out.push(e.code + (e.details ? ":" + e.details.budget : "")); }
      }
      return out;
    }`);
    expect(v).toEqual(["budget_exceeded:batch_calls", "invalid_args", "invalid_args"]);
    const guide = ((await a.call("skills", { name: "usage" })).content[0] as { text: string }).text;
    expect(guide).not.toContain("never rejects as a whole");
    expect(guide).toContain("refused as a whole");
  });

  it("R: every program call takes call_tool's gate — a write through a global is refused, typed, catchable", async () => {
    const v = await value(`async () => { try { await desk.close_incident({ id: "INC-1042", resolution: "x" }); return "ran"; } catch (e) { return [e.name, e.code, e.retryable, e.message.includes("call_destructive_tool")]; } }`);
    expect(v).toEqual(["AtriumError", "destructive_tool_requires_approval", false, true]);
  });

  it("a downstream timeout reaches the program as a retryable typed error; uncaught, it comes back typed", async () => {
    const r = await run(`async () => { await atrium.call("stuck.hang", {}); }`);
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "timeout", retryable: true });
  });

  it("an ordinary program error comes back as program_error, not retryable, at its line, with the logs", async () => {
    const r = await run(`async () => { console.log("step 1"); console.warn("careful"); null.x; }`);
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "program_error", retryable: false, name: "TypeError", line: 1 });
    expect(r.structuredContent.logs).toBe("step 1\n[warn] careful\n");
  });

  it("emitted blocks follow the envelope on success, and are discarded (counted) on failure", async () => {
    const ok = await run(`async () => { atrium.emit({ type: "text", text: "for the person" }); atrium.emit({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }); return "done"; }`);
    expect(ok.content.map((b: any) => b.type)).toEqual(["text", "text", "image"]);
    expect(ok.content[1].text).toBe("for the person");
    expect(ok.structuredContent).toMatchObject({ ok: true, value: "done", emitted: 2 });
    const failed = await run(`async () => { atrium.emit({ type: "text", text: "never shown" }); throw new Error("boom"); }`);
    expect(failed.content).toHaveLength(1);
    expect(failed.structuredContent).toMatchObject({ ok: false, emittedDiscarded: 1 });
  });

  it("diagnostics add numbers only, never payloads", async () => {
    const r = await run(`async () => { await desk.get_incident({ id: "INC-1042" }); await atrium.search("metrics"); return 1; }`, { diagnostics: true });
    const d = r.structuredContent.diagnostics;
    expect(d.hostCalls).toBe(2);
    expect(d.operations.call.count).toBe(1);
    expect(d.operations.search.count).toBe(1);
    const leaves: unknown[] = [];
    const walk = (x: any) => (typeof x === "object" && x !== null ? Object.values(x).forEach(walk) : leaves.push(x));
    walk(d);
    expect(leaves.every((x) => typeof x === "number")).toBe(true);
  });

  it("sends notifications/progress as host calls complete when the request carries a progress token", async () => {
    // A raw peer reads the wire itself: the SDK client (1.32, 2.4) can drop progress that shares a
    // stdout read with the result (see test/rig-fixtures.test.ts), which would make this flaky.
    const peer = new RawStdioPeer(atriumBin);
    try {
      await peer.initialize();
      const res = await peer.request("tools/call", { name: "execute_code", arguments: { code: `async () => { for (let i = 0; i < 3; i++) await desk.list_services({}); return "ok"; }` }, _meta: { progressToken: "p1" } }, 30_000);
      expect((res.result as any)?.structuredContent).toMatchObject({ ok: true, value: "ok" });
      const wire = peer.lines.map((l) => JSON.parse(l));
      const progress = wire.filter((m) => m.method === "notifications/progress" && m.params.progressToken === "p1").map((m) => m.params.progress);
      expect(progress).toEqual([1, 2, 3]);
      const lastProgress = wire.findLastIndex((m) => m.method === "notifications/progress");
      expect(lastProgress).toBeLessThan(wire.findIndex((m) => m.id === res.id && m.result));
    } finally {
      peer.child.stdin.end();
      await peer.exited;
    }
  });

  it("a cancelled request stops the program and reclaims its worker; the next program runs", async () => {
    const ctl = new AbortController();
    const pending = a.client.request({ method: "tools/call", params: { name: "execute_code", arguments: { code: `async () => { await atrium.call("nasty.slow_write", { ms: 600000, tag: "stopped" }); return "finished"; }` } } }, CallToolResultSchema, { signal: ctl.signal });
    pending.catch(() => {});
    // Cancelled while its call is running downstream; the run's end cancels that call there.
    await waitFor(() => written().some((l) => /^start \S+ stopped$/.test(l)), "the program's call running downstream");
    ctl.abort("user cancelled");
    await expect(pending).rejects.toThrow();
    await waitFor(() => written().some((l) => /^cancelled \S+ stopped$/.test(l)), "the downstream hearing the cancel");
    expect(await value(`async () => 1 + 1`)).toBe(2);
  });

  it("a program that is a bare body (not a function) also runs", async () => {
    expect(await value(`const s = await atrium.search("services"); return s.results.length > 0;`)).toBe(true);
  });
});

describe("execute_code under load", () => {
  it("past the bounded queue a program is refused with executor_overloaded (retryable), and the others finish", async () => {
    const held = join(mkdtempSync(join(tmpdir(), "atrium-overload-")), "go");
    const b = await startAtrium({ config: { mcpServers: { gate: nodeServer(fixture("gate-server"), { timeoutMs: 120_000 }) }, atrium: { sandbox: { workers: 1, queue: 1, programWallMs: 120_000 } } } });
    try {
      // Each program holds at the gate until the test opens it: one runs, one waits in the queue,
      // and the third, finding both taken, is refused at once, while the others still hold.
      const holding = `async () => (await gate.wait_for_file({ path: ${JSON.stringify(held)} })).waited`;
      const calls = [0, 1, 2].map(() => b.call("execute_code", { code: holding }) as Promise<any>);
      const refused = await Promise.race(calls);
      expect(refused.structuredContent.error).toMatchObject({ code: "executor_overloaded", retryable: true });
      writeFileSync(held, "");
      const codes = (await Promise.all(calls)).map((r) => (r.structuredContent.ok ? "ok" : r.structuredContent.error.code)).sort();
      expect(codes).toEqual(["executor_overloaded", "ok", "ok"]);
    } finally {
      await b.close();
      rmSync(dirname(held), { recursive: true, force: true });
    }
  });
});
