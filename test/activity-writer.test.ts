// The activity log's writer (glue/activity/log.ts) on its own: only the listed fields of an event
// reach the file, each bounded; files rotate by size with a bounded count; a directory that cannot
// be written costs one warning and nothing else; a rotation by another process is followed. And
// atrium.log in the config.
import { describe, it, expect, beforeEach, afterEach, vi } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { openActivityLog } from "../glue/activity/log.js";
import { sinkOf, type ActivityEvent } from "../glue/activity/events.js";
import { watchConnectors } from "../glue/activity/connector-watch.js";
import { ACTIVITY_FILES_KEPT, ACTIVITY_QUEUE_LINES_MAX, APP_TOOL_NAME_CHARS_MAX, CONNECTOR_ID_CHARS_MAX } from "../glue/decisions/generated/spec.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";

const SECRET = "sk-activity-writer-7f3a9c";
let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), "atrium-activity-")); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const linesOf = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

describe("the activity log writer", () => {
  it("writes each event's listed fields only, by name: extra fields, messages and arguments never reach the file", async () => {
    const log = openActivityLog(dir, { warn: () => { throw new Error("no warning expected"); } });
    const sneaky = { args: { token: SECRET }, result: SECRET, message: SECRET, html: `<p>${SECRET}</p>` };
    // A caller that breaks the types still gets only the listed fields written.
    log.call({ connector: "desk", tool: "list_tickets", path: "direct", outcome: "ok", durationMs: 12.6, resultBytes: 345, ...sneaky } as never);
    log.metaTool("execute_code", "ok", 40.2);
    log.approval("asked", "w", "add_record");
    log.approval("declined", "w", "add_record", "declined");
    log.connector("crash", "n", "restarting", 1);
    log.quarantine("n", "echo", "definition_changed");
    log.configReload({ ok: true, added: ["a"], removed: [], restarted: ["n"] });
    log.configReload({ ok: false, errorPath: "mcpServers.n.args[0]" });
    await log.flush();
    const text = readFileSync(join(dir, "activity", "activity.log"), "utf8");
    expect(text).not.toContain(SECRET);
    const lines = linesOf(join(dir, "activity", "activity.log"));
    for (const l of lines) {
      expect(l.session).toBe(log.session);
      expect(l.session).toMatch(/^[0-9a-f]{16}$/);
      expect(Number.isNaN(Date.parse(l.ts))).toBe(false);
    }
    const strip = ({ ts: _t, session: _s, ...rest }: Record<string, unknown>) => rest;
    expect(lines.map(strip)).toEqual([
      { event: "call", connector: "desk", tool: "list_tickets", path: "direct", outcome: "ok", durationMs: 13, resultBytes: 345 },
      { event: "meta_tool", tool: "execute_code", outcome: "ok", durationMs: 40 },
      { event: "approval_asked", connector: "w", tool: "add_record" },
      { event: "approval_declined", connector: "w", tool: "add_record", reason: "declined" },
      { event: "connector_crash", connector: "n", state: "restarting", attempt: 1 },
      { event: "quarantine", connector: "n", tool: "echo", reason: "definition_changed" },
      { event: "config_reload", outcome: "ok", added: ["a"], removed: [], restarted: ["n"] },
      { event: "config_reload", outcome: "error", added: [], removed: [], restarted: [], errorPath: "mcpServers.n.args[0]" },
    ]);
  });

  it("bounds every field: long ids are cut, control characters replaced, a code that is not a code becomes \"other\", odd numbers 0", async () => {
    const log = openActivityLog(dir);
    log.call({ connector: "c".repeat(CONNECTOR_ID_CHARS_MAX * 2), tool: `t\u001b[2J${"x".repeat(APP_TOOL_NAME_CHARS_MAX * 2)}`, path: "direct", outcome: `not a code: ${SECRET}`, durationMs: Number.NaN, resultBytes: -5 });
    await log.flush();
    const [l] = linesOf(join(dir, "activity", "activity.log"));
    expect(l.connector).toHaveLength(CONNECTOR_ID_CHARS_MAX);
    expect(l.tool).toHaveLength(APP_TOOL_NAME_CHARS_MAX);
    expect(l.tool.startsWith("t?[2J")).toBe(true);
    expect(l.outcome).toBe("other");
    expect([l.durationMs, l.resultBytes]).toEqual([0, 0]);
  });

  it("keeps its directory 0700 and its files 0600", async () => {
    const log = openActivityLog(dir);
    log.metaTool("skills", "ok", 1);
    await log.flush();
    expect(statSync(join(dir, "activity")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "activity", "activity.log")).mode & 0o777).toBe(0o600);
  });

  it("repairs a pre-existing activity.log (and rotated file) readable by others to 0600, with one warning, like the token and pin files", async () => {
    mkdirSync(join(dir, "activity"), { mode: 0o700 });
    writeFileSync(join(dir, "activity", "activity.log"), "", { mode: 0o644 });
    writeFileSync(join(dir, "activity", "activity.1.log"), "", { mode: 0o644 });
    chmodSync(join(dir, "activity", "activity.log"), 0o644);
    chmodSync(join(dir, "activity", "activity.1.log"), 0o644);
    const warnings: string[] = [];
    const log = openActivityLog(dir, { warn: (m) => warnings.push(m) });
    log.metaTool("skills", "ok", 1);
    await log.flush();
    log.metaTool("skills", "ok", 1);
    await log.flush();
    expect(statSync(join(dir, "activity", "activity.log")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "activity", "activity.1.log")).mode & 0o777).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("0600");
    expect(linesOf(join(dir, "activity", "activity.log"))).toHaveLength(2);
  });

  it("rotates by size into activity.1.log … and never keeps more than ACTIVITY_FILES_KEPT files, newest events last", async () => {
    const fileBytes = 600;
    const log = openActivityLog(dir, { fileBytes });
    const total = 200;
    for (let i = 0; i < total; i++) {
      log.call({ connector: "desk", tool: `tool_${i}`, path: "program", outcome: "ok", durationMs: i, resultBytes: i });
      if (i % 17 === 0) await log.flush(); // drains of different sizes
    }
    await log.flush();
    const files = readdirSync(join(dir, "activity")).sort();
    expect(files).toEqual(["activity.log", ...Array.from({ length: ACTIVITY_FILES_KEPT - 1 }, (_, i) => `activity.${i + 1}.log`)].sort());
    for (const f of files) expect(statSync(join(dir, "activity", f)).size).toBeLessThanOrEqual(fileBytes);
    // Oldest file first: the kept events are the last ones, in order, with none missing between.
    const order = ["activity.4.log", "activity.3.log", "activity.2.log", "activity.1.log", "activity.log"].slice(-ACTIVITY_FILES_KEPT);
    const kept = order.flatMap((f) => linesOf(join(dir, "activity", f))).map((l) => Number(l.tool.slice("tool_".length)));
    expect(kept.at(-1)).toBe(total - 1);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => total - kept.length + i));
    expect(kept.length).toBeLessThan(total);
  });

  it("two writers on one directory (two atrium processes): a rotation by one is followed by the other, whose next line lands in the new activity.log", async () => {
    const fileBytes = 600;
    const first = openActivityLog(dir, { fileBytes });
    const second = openActivityLog(dir, { fileBytes });
    first.metaTool("before_rotation", "ok", 1);
    await first.flush(); // the first writer's file is open now, and stays open
    for (let i = 0; i < 4; i++) {
      second.call({ connector: "desk", tool: `tool_${i}`, path: "program", outcome: "ok", durationMs: i, resultBytes: i });
      await second.flush();
    }
    const rotated = join(dir, "activity", "activity.1.log");
    expect(linesOf(rotated).map((l) => l.tool)).toContain("before_rotation");
    const before = readFileSync(rotated, "utf8");
    first.metaTool("after_rotation", "ok", 2);
    await first.flush();
    expect(readFileSync(rotated, "utf8")).toBe(before);
    expect(linesOf(join(dir, "activity", "activity.log")).map((l) => l.tool)).toContain("after_rotation");
  });

  it("writes the first event at once; the ones that come while it writes, and until ACTIVITY_APPEND_GAP_MS after, go in one more append, every event in order", async () => {
    const probe = await open(join(dir, "probe"), "w");
    const appends = vi.spyOn(Object.getPrototypeOf(probe) as { appendFile: (data: string) => Promise<void> }, "appendFile");
    await probe.close();
    // The gap is a timer this test holds: it never runs out by itself, however slow the machine.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const log = openActivityLog(dir);
      for (let i = 0; i < 10; i++) log.metaTool("search_tools", "ok", i); // the first is written at once, the others wait
      for (let turns = 0; appends.mock.calls.length === 0 || vi.getTimerCount() === 0; turns++) {
        if (turns > 100_000) throw new Error("the first write never finished");
        await new Promise((r) => setImmediate(r));
      }
      for (let i = 10; i < 20; i++) log.metaTool("search_tools", "ok", i); // within the gap
      await log.flush();
      expect(appends).toHaveBeenCalledTimes(2);
      expect(linesOf(join(dir, "activity", "activity.log")).map((l) => l.durationMs)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    } finally {
      vi.useRealTimers();
      appends.mockRestore();
    }
  });

  it("holds at most ACTIVITY_QUEUE_LINES_MAX lines waiting for the disk: a burst beyond them is dropped, not buffered", async () => {
    const log = openActivityLog(dir);
    const sent = ACTIVITY_QUEUE_LINES_MAX * 3;
    for (let i = 0; i < sent; i++) log.metaTool("search_tools", "ok", i);
    await log.flush();
    const written = linesOf(join(dir, "activity", "activity.log"));
    // The first line went to the disk at once; the queue took the next ACTIVITY_QUEUE_LINES_MAX.
    expect(written.length).toBe(ACTIVITY_QUEUE_LINES_MAX + 1);
    expect(written.map((l) => l.durationMs)).toEqual(Array.from({ length: written.length }, (_, i) => i));
    // And once drained it takes lines again.
    log.metaTool("skills", "ok", 1);
    await log.flush();
    expect(linesOf(join(dir, "activity", "activity.log")).at(-1).tool).toBe("skills");
  });

  it("a directory that cannot be written costs one warning, never a throw, and later events are dropped", async () => {
    writeFileSync(join(dir, "activity"), "a file where the directory should be");
    const warnings: string[] = [];
    const log = openActivityLog(dir, { warn: (m) => warnings.push(m) });
    for (let i = 0; i < 5; i++) {
      expect(() => log.metaTool("call_tool", "ok", 1)).not.toThrow();
      await log.flush();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/activity log .* cannot be written.*goes on serving/);
    expect(readFileSync(join(dir, "activity"), "utf8")).toBe("a file where the directory should be");
  });
});

describe("connector state changes as events", () => {
  it("names start, crash, restart, needs_auth, failed and stopped, and follows a connector added later", () => {
    const events: ActivityEvent[] = [];
    const a = { id: "a", state: "starting", attempts: 1, restarts: 0 };
    const list = [a];
    let changed = () => {};
    watchConnectors(() => list, (l) => { changed = l; }, sinkOf((e) => events.push(e)));
    const to = (c: { state: string }, state: string) => { c.state = state; changed(); };
    to(a, "ready");
    a.restarts = 1;
    to(a, "restarting");
    to(a, "ready");
    to(a, "needs_auth");
    to(a, "stopped");
    const b = { id: "b", state: "retrying", attempts: 2, restarts: 0 };
    list.push(b);
    changed();
    to(b, "failed");
    expect(events.map((e) => [e.event, (e as { connector: string }).connector, (e as { attempt: number }).attempt])).toEqual([
      ["connector_start", "a", 1], ["connector_crash", "a", 1], ["connector_restart", "a", 1], ["connector_needs_auth", "a", 1], ["connector_stopped", "a", 1], ["connector_failed", "b", 2],
    ]);
  });
});

describe("atrium.log in the config", () => {
  const base = { mcpServers: { a: { command: "a" } } };
  it("is enabled by default and can be turned off", () => {
    const on = validateConfig(base, core());
    const off = validateConfig({ ...base, atrium: { log: { enabled: false } } }, core());
    expect(on.ok && on.config.log).toEqual({ enabled: true });
    expect(off.ok && off.config.log).toEqual({ enabled: false });
  });
  it("refuses a non-boolean and an unknown key, naming the path", () => {
    const r = validateConfig({ ...base, atrium: { log: { enabled: "no", dir: "/tmp" } } }, core());
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => e.path).sort()).toEqual(["atrium.log.dir", "atrium.log.enabled"]);
  });
});
