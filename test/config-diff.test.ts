// What a config reload changes, decided without starting anything: which connectors are added,
// removed or restarted (validated entries compared whole, key order ignored), which settings
// keep their running values until a restart, and what one look at the edited file does (a file
// mid-write is looked at once more before it is refused; the same content is judged once; an
// oversized file is refused unread). The status file doctor reads is written private and read
// shape-checked.
import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { core } from "../glue/decisions/core.js";
import { CONFIG_RELOAD_BYTES_MAX, RELOAD_STATUS_BYTES_MAX, RELOAD_STATUS_ERRORS_MAX } from "../glue/decisions/generated/spec.js";
import { validateConfig } from "../glue/config/validate.js";
import { diffConnectors, effectiveConfig } from "../glue/config/diff.js";
import { canonicalJson as canonical } from "../glue/support/canonical-json.js";
import { ConfigReloader, type ReloadOutcome } from "../glue/config/reload.js";
import { RunningConfig } from "../glue/config/running.js";
import { readReloadStatus, writeReloadStatus } from "../glue/config/reload-status.js";
import type { AtriumConfig } from "../glue/config/schema.js";

function config(raw: unknown): AtriumConfig {
  const r = validateConfig(raw, core());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}
const server = (label: string, extra: Record<string, unknown> = {}) => ({ command: "node", args: ["server.js", label], ...extra });

describe("diffConnectors", () => {
  it("names added, removed, restarted and unchanged connectors by id", () => {
    const before = config({ mcpServers: { a: server("a"), b: server("b"), c: server("c") } }).connectors;
    const after = config({ mcpServers: { a: server("a"), c: server("c2"), d: server("d") } }).connectors;
    const d = diffConnectors(before, after);
    expect(d.added.map((c) => c.id)).toEqual(["d"]);
    expect(d.removed).toEqual(["b"]);
    expect(d.restarted.map((c) => c.id)).toEqual(["c"]);
    expect(d.unchanged).toEqual(["a"]);
  });

  it("ignores key order and reordered entries; any changed setting restarts the connector", () => {
    const before = config({ mcpServers: { a: server("a", { env: { X: "1", Y: "2" } }), b: server("b") } }).connectors;
    const reordered = config({ mcpServers: { b: server("b"), a: { env: { Y: "2", X: "1" }, args: ["server.js", "a"], command: "node" } } }).connectors;
    expect(diffConnectors(before, reordered)).toMatchObject({ added: [], removed: [], restarted: [], unchanged: ["b", "a"] });
    for (const change of [{ timeoutMs: 5000 }, { readOnlyTools: ["x"] }, { disabled: true }, { env: { X: "1" } }]) {
      const after = config({ mcpServers: { a: server("a", { env: { X: "1", Y: "2" }, ...change }), b: server("b") } }).connectors;
      expect(diffConnectors(before, after).restarted.map((c) => c.id)).toEqual(["a"]);
    }
  });

  it("an inherited atrium-wide default that changes counts as a changed entry", () => {
    const before = config({ mcpServers: { a: server("a"), b: server("b", { startTimeoutMs: 5000 }) } }).connectors;
    const after = config({ mcpServers: { a: server("a"), b: server("b", { startTimeoutMs: 5000 }) }, atrium: { connectors: { startTimeoutMs: 9000 } } }).connectors;
    expect(diffConnectors(before, after)).toMatchObject({ restarted: [expect.objectContaining({ id: "a" })], unchanged: ["b"] });
  });

  it("property: every id lands in exactly one group, and applying the diff to the running ids gives the new ones", () => {
    const entries = fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e"), fc.record({ label: fc.constantFrom("x", "y"), timeoutMs: fc.constantFrom(1000, 2000) }));
    fc.assert(fc.property(entries, entries, (before, after) => {
      const cfg = (m: typeof before) => config({ mcpServers: Object.fromEntries(Object.entries(m).map(([id, e]) => [id, server(e.label, { timeoutMs: e.timeoutMs })])) }).connectors;
      const d = diffConnectors(cfg(before), cfg(after));
      const kept = [...d.unchanged, ...d.restarted.map((c) => c.id)];
      expect([...kept, ...d.added.map((c) => c.id)].sort()).toEqual(Object.keys(after).sort());
      expect([...kept, ...d.removed].sort()).toEqual(Object.keys(before).sort());
      for (const id of d.unchanged) expect(before[id]).toEqual(after[id]);
      for (const c of d.restarted) expect(before[c.id]).not.toEqual(after[c.id]);
    }));
  });

  it("canonical text sorts object keys, keeps array order and drops undefined", () => {
    expect(canonical({ b: 1, a: [2, 1], c: undefined })).toBe(canonical({ a: [2, 1], b: 1 }));
    expect(canonical({ a: [1, 2] })).not.toBe(canonical({ a: [2, 1] }));
  });
});

describe("effectiveConfig", () => {
  it("keeps the settings fixed for the process and names each one the file changed", () => {
    const running = config({ mcpServers: {} });
    const next = config({ mcpServers: {}, atrium: { sandbox: { workers: 3, hostCalls: 7 }, results: { stashBytes: 2_000_000 } } });
    const { config: applied, restartNeeded } = effectiveConfig(running, next);
    expect(applied.sandbox.workers).toBe(running.sandbox.workers);
    expect(applied.results.stashBytes).toBe(running.results.stashBytes);
    expect(applied.sandbox.hostCalls).toBe(7);
    expect(restartNeeded.sort()).toEqual(["atrium.results.stashBytes", "atrium.sandbox.workers"]);
    expect(effectiveConfig(running, config({ mcpServers: {} })).restartNeeded).toEqual([]);
  });

  it("keeps the search layer and the activity log as started (serve built them once) and names them", () => {
    const running = config({ mcpServers: {} });
    const next = config({ mcpServers: {}, atrium: { search: { semantic: false }, log: { enabled: false } } });
    const { config: applied, restartNeeded } = effectiveConfig(running, next);
    expect(applied.search).toEqual(running.search);
    expect(applied.log).toEqual(running.log);
    expect(restartNeeded.sort()).toEqual(["atrium.log", "atrium.search"]);
  });
});

describe("ConfigReloader: one look at the edited file", () => {
  function setup(initial: unknown) {
    const dir = mkdtempSync(join(tmpdir(), "atrium-reload-"));
    const path = join(dir, "atrium.json");
    writeFileSync(path, JSON.stringify(initial));
    const running = new RunningConfig(config(initial));
    let connectors = running.current.connectors;
    const seen = { logs: [] as string[], statuses: [] as unknown[], outcomes: [] as ReloadOutcome[], again: 0, applied: [] as AtriumConfig[] };
    const reloader = new ConfigReloader({
      path, core: core(), running,
      applyConnectors: async (c) => {
        const d = diffConnectors(connectors, c.connectors);
        connectors = c.connectors;
        seen.applied.push(c);
        return { added: d.added.map((x) => x.id), removed: d.removed, restarted: d.restarted.map((x) => x.id) };
      },
      log: (l) => seen.logs.push(l),
      status: (s) => seen.statuses.push(s),
      again: () => { seen.again++; },
      onReload: (o) => seen.outcomes.push(o),
    });
    const look = async () => { reloader.check(); await reloader.idle(); };
    return { path, running, seen, look };
  }

  it("a valid edit is applied: the running config is replaced, logged, and the outcome has the activity log's shape", async () => {
    const t = setup({ mcpServers: { a: server("a") } });
    writeFileSync(t.path, JSON.stringify({ mcpServers: { a: server("a"), b: server("b") }, atrium: { sandbox: { hostCalls: 9 } } }));
    await t.look();
    expect(t.running.current.sandbox.hostCalls).toBe(9);
    expect(t.seen.outcomes).toEqual([{ ok: true, added: ["b"], removed: [], restarted: [] }]);
    expect(t.seen.logs).toEqual([expect.stringMatching(/^atrium: config reloaded from .*atrium\.json: added b; new runs use its settings$/)]);
    expect(t.seen.statuses).toEqual([{ event: "applied", added: ["b"], removed: [], restarted: [], restartNeeded: [] }]);
  });

  it("an unchanged file (touched, or saved as it was) changes nothing and says nothing", async () => {
    const t = setup({ mcpServers: { a: server("a") } });
    await t.look();
    expect(t.seen).toMatchObject({ logs: [], outcomes: [], applied: [], again: 0 });
  });

  it("text that does not parse is looked at once more; if it parses then, it applies and nothing was refused", async () => {
    const t = setup({ mcpServers: { a: server("a") } });
    const whole = JSON.stringify({ mcpServers: { a: server("a"), b: server("b") } });
    writeFileSync(t.path, whole.slice(0, whole.length - 3));
    await t.look();
    expect(t.seen).toMatchObject({ again: 1, logs: [], outcomes: [] });
    writeFileSync(t.path, whole);
    await t.look();
    expect(t.seen.outcomes).toEqual([{ ok: true, added: ["b"], removed: [], restarted: [] }]);
    expect(t.seen.logs.some((l) => l.includes("refused"))).toBe(false);
  });

  it("text that still does not parse at the second look is refused once, naming the file and the place; the same text again says nothing", async () => {
    const t = setup({ mcpServers: { a: server("a") } });
    const before = t.running.current;
    writeFileSync(t.path, `{ "mcpServers": { "a": `);
    await t.look();
    await t.look();
    expect(t.running.current).toBe(before);
    expect(t.seen.outcomes).toEqual([{ ok: false, errorPath: "" }]);
    expect(t.seen.logs).toEqual([expect.stringMatching(/^atrium: config reload refused, the running config stays: .*atrium\.json: invalid JSON at line 1, column \d+/)]);
    await t.look();
    await t.look();
    expect(t.seen.logs).toHaveLength(1);
    expect(t.seen.again).toBe(1);
  });

  it("a schema error is refused at once with its config path, and the count of the others", async () => {
    const t = setup({ mcpServers: { a: server("a") } });
    writeFileSync(t.path, JSON.stringify({ mcpServers: { a: server("a"), b: { command: 42 }, c: { url: 7 } } }));
    await t.look();
    expect(t.seen.outcomes).toEqual([{ ok: false, errorPath: "mcpServers.b.command" }]);
    expect(t.seen.logs[0]).toMatch(/atrium\.json: mcpServers\.b\.command: .*\(and 1 more; atrium doctor lists them\)$/);
    expect(t.seen.applied).toEqual([]);
  });

  it("a file over CONFIG_RELOAD_BYTES_MAX is refused unread", async () => {
    const t = setup({ mcpServers: { a: server("a") } });
    writeFileSync(t.path, `{"mcpServers":{}, "pad": "${"x".repeat(CONFIG_RELOAD_BYTES_MAX)}"}`);
    await t.look();
    expect(t.seen.logs[0]).toContain(`larger than ${CONFIG_RELOAD_BYTES_MAX} bytes`);
    expect(t.seen.applied).toEqual([]);
  });

  it("a file that went missing is looked at once more, then refused; the running config stays", async () => {
    const t = setup({ mcpServers: { a: server("a") } });
    rmSync(t.path);
    await t.look();
    expect(t.seen).toMatchObject({ again: 1, logs: [] });
    await t.look();
    expect(t.seen.logs[0]).toMatch(/cannot read .*atrium\.json: file not found/);
  });
});

describe("reload-status.json", () => {
  it("is written 0600 and read back only for the same config file; errors past the cap are counted", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "atrium-status-")), "state");
    const errors = Array.from({ length: RELOAD_STATUS_ERRORS_MAX + 3 }, (_, i) => ({ path: `mcpServers.s${i}.command`, message: "expected a string" }));
    expect(writeReloadStatus({ config: "/x/atrium.json", pid: 1, at: "2026-12-01T00:00:00.000Z", event: "refused", errors, moreErrors: 0 }, dir)).toBeUndefined();
    expect(statSync(join(dir, "reload-status.json")).mode & 0o777).toBe(0o600);
    const s = readReloadStatus("/x/atrium.json", dir);
    expect(s).toMatchObject({ event: "refused", moreErrors: 3 });
    expect(s?.event === "refused" && s.errors).toHaveLength(RELOAD_STATUS_ERRORS_MAX);
    expect(readReloadStatus("/y/atrium.json", dir)).toBeUndefined();
  });

  it("a malformed or oversized status file is ignored", () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-status-"));
    const file = join(dir, "reload-status.json");
    for (const text of ["{", JSON.stringify({ config: "/x/atrium.json", pid: "1", at: "now", event: "applied", added: [], removed: [], restarted: [], restartNeeded: [] }), JSON.stringify({ config: "/x/atrium.json", pid: 1, at: "now", event: "applied", added: [1] })]) {
      writeFileSync(file, text);
      expect(readReloadStatus("/x/atrium.json", dir)).toBeUndefined();
    }
    const ok = { config: "/x/atrium.json", pid: 1, at: "now", event: "applied", added: ["b"], removed: [], restarted: [], restartNeeded: [] };
    writeFileSync(file, JSON.stringify({ ...ok, pad: "x".repeat(RELOAD_STATUS_BYTES_MAX) }));
    expect(readReloadStatus("/x/atrium.json", dir)).toBeUndefined();
    writeFileSync(file, JSON.stringify(ok));
    expect(readReloadStatus("/x/atrium.json", dir)).toEqual(ok);
  });
});
