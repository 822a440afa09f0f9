// Live config reload through a real atrium over stdio with real downstream servers: an edit of
// atrium.json adds, removes or restarts exactly the connectors whose entries changed while the
// others keep serving (a program running on one finishes with its full result), new runs get
// new limits while a running one keeps its own, and an edit that is not a valid config (bad
// JSON, a schema error) is refused with its config path on stderr, in reload-status.json and in
// `atrium doctor`, the running config serving on until a valid edit applies.
import { describe, it, expect, afterEach } from "vitest";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, statSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { startAtrium, fixture, nodeServer, atriumBin, type Atrium } from "./harness/atrium-client.js";
import { ConnectorRegistry } from "../glue/connectors/registry.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";
import type { AtriumConfig } from "../glue/config/schema.js";
import { waitFor as until } from "./harness/until.js";

const run = promisify(execFile);
const gate = (label: string, extra: Record<string, unknown> = {}) => nodeServer(fixture("gate-server"), { ...extra, args: [fixture("gate-server"), label] });
let open: Atrium[] = [];
afterEach(async () => {
  await Promise.all(open.map((a) => a.close()));
  open = [];
});

async function start(config: unknown): Promise<Atrium> {
  const a = await startAtrium({ config });
  open.push(a);
  return a;
}
const configPath = (a: Atrium) => join(a.dir, "atrium.json");
const edit = (a: Atrium, config: unknown) => writeFileSync(configPath(a), typeof config === "string" ? config : JSON.stringify(config));
/** Addresses search_tools lists now (every connector's tools). */
const addresses = async (a: Atrium): Promise<string[]> => ((await a.json("search_tools", { query: "", limit: 50 })).results ?? []).map((r: any) => r.address).sort();
const whoami = async (a: Atrium, id: string) => (await a.call("call_tool", { address: `${id}.whoami`, args: {} })).structuredContent as any;
const refusedLines = (a: Atrium) => a.stderr().split("\n").filter((l) => l.includes("config reload refused"));
const status = (a: Atrium) => JSON.parse(readFileSync(join(a.dir, "state", "reload-status.json"), "utf8"));
const doctor = (a: Atrium) =>
  run(process.execPath, [atriumBin, "doctor", "--config", configPath(a)], { cwd: a.dir, env: { ...process.env, ATRIUM_CONFIG: "", ATRIUM_STATE_DIR: join(a.dir, "state") }, timeout: 60_000 })
    .then((r) => ({ code: 0, out: r.stdout, err: r.stderr }), (e: any) => ({ code: e.code as number, out: e.stdout as string, err: e.stderr as string }));

describe("a valid edit changes exactly the connectors whose entries changed", () => {
  it("adding a connector brings its tools into search_tools; removing it takes them out and a call names no such connector", async () => {
    const a = await start({ mcpServers: { a: gate("A") } });
    expect(await addresses(a)).toEqual(["a.wait_for_file", "a.whoami"]);

    edit(a, { mcpServers: { a: gate("A"), b: gate("B") } });
    await until(async () => (await addresses(a)).includes("b.whoami"), "b's tools listed");
    expect((await whoami(a, "b")).label).toBe("B");
    expect(await a.value(`async () => (await b.whoami({})).label`)).toBe("B"); // a new run has the new connector's global
    await until(() => /config reloaded from .*atrium\.json: added b/.test(a.stderr()), "the addition logged");

    edit(a, { mcpServers: { a: gate("A") } });
    await until(async () => !(await addresses(a)).includes("b.whoami"), "b's tools gone");
    const gone = await a.call("call_tool", { address: "b.whoami", args: {} });
    expect(gone.isError).toBe(true);
    expect((gone.structuredContent as any).error).toMatchObject({ code: "unknown_address", retryable: false });
    expect((gone.structuredContent as any).error.message).toContain("no connector named b (a config reload removed it)");
    // The log line comes once b's child has ended.
    await until(() => /config reloaded from .*: removed b/.test(a.stderr()), "the removal logged");
    expect(status(a)).toMatchObject({ event: "applied", added: [], removed: ["b"], restarted: [] });
    // Both reloads are in the activity log as config_reload events, naming only connector ids.
    const events = () => readFileSync(join(a.dir, "state", "activity", "activity.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.event === "config_reload");
    await until(() => existsSync(join(a.dir, "state", "activity", "activity.log")) && events().length === 2, "two config_reload events logged");
    expect(events().map(({ outcome, added, removed, restarted }) => ({ outcome, added, removed, restarted }))).toEqual([
      { outcome: "ok", added: ["b"], removed: [], restarted: [] },
      { outcome: "ok", added: [], removed: ["b"], restarted: [] },
    ]);
  });

  it("a changed entry restarts only that connector: the other keeps its process", async () => {
    const a = await start({ mcpServers: { a: gate("A"), b: gate("B") } });
    const [a1, b1] = [await whoami(a, "a"), await whoami(a, "b")];

    edit(a, { mcpServers: { a: gate("A"), b: gate("B2") } });
    await until(async () => (await whoami(a, "b").catch(() => undefined))?.label === "B2", "b restarted with its new args");
    await until(() => /restarted b/.test(a.stderr()), "the restart logged");
    const [a2, b2] = [await whoami(a, "a"), await whoami(a, "b")];
    expect(a2.pid).toBe(a1.pid);
    expect(b2.pid).not.toBe(b1.pid);
    expect(status(a)).toMatchObject({ event: "applied", added: [], removed: [], restarted: ["b"] });
  });

  it("a program running on one connector finishes with its full result while another is added and removed", async () => {
    const a = await start({ mcpServers: { a: gate("A", { timeoutMs: 120_000 }) }, atrium: { sandbox: { programWallMs: 180_000 } } });
    const [gate1, gate2] = [join(a.dir, "gate1"), join(a.dir, "gate2")];
    const program = `async () => {
      const pids = [];
      for (let i = 0; i < 3; i++) pids.push((await atrium.call("a.whoami", {})).pid);
      pids.push((await atrium.call("a.wait_for_file", { path: ${JSON.stringify(gate1)} })).pid);
      for (let i = 0; i < 3; i++) pids.push((await atrium.call("a.whoami", {})).pid);
      pids.push((await atrium.call("a.wait_for_file", { path: ${JSON.stringify(gate2)} })).pid);
      return pids;
    }`;
    let finished = false;
    const result = a.call("execute_code", { code: program }, 180_000).finally(() => { finished = true; });

    edit(a, { mcpServers: { a: gate("A", { timeoutMs: 120_000 }), b: gate("B") }, atrium: { sandbox: { programWallMs: 180_000 } } });
    await until(async () => (await addresses(a)).includes("b.whoami"), "b added");
    writeFileSync(gate1, "");
    edit(a, { mcpServers: { a: gate("A", { timeoutMs: 120_000 }) }, atrium: { sandbox: { programWallMs: 180_000 } } });
    await until(async () => !(await addresses(a)).includes("b.whoami"), "b removed");
    expect(finished).toBe(false); // the program still waits on gate2: both reloads happened while it ran
    writeFileSync(gate2, "");

    const r = await result;
    expect(r.isError).toBeFalsy();
    const pids = (r.structuredContent as any).value as number[];
    expect(pids).toHaveLength(8);
    expect(new Set(pids)).toEqual(new Set([(await whoami(a, "a")).pid]));
  });

  it("a call in flight to a removed connector ends unavailable, not retryable, saying why", async () => {
    const a = await start({ mcpServers: { a: gate("A"), b: gate("B", { timeoutMs: 120_000 }) } });
    const never = join(a.dir, "never");
    const pending = a.call("call_tool", { address: "b.wait_for_file", args: { path: never } }, 120_000);
    await until(() => existsSync(`${never}.waiting`), "the call reached b");
    edit(a, { mcpServers: { a: gate("A") } });
    const r = await pending;
    expect(r.isError).toBe(true);
    const e = (r.structuredContent as any).error;
    expect(e).toMatchObject({ code: "unavailable", retryable: false });
    expect(e.message).toContain("was removed from the config by a reload");
    expect((await whoami(a, "a")).label).toBe("A");
  });

  it("new limits reach new runs; a run already going keeps its own", async () => {
    const base = { mcpServers: { a: gate("A", { timeoutMs: 120_000 }) } };
    const a = await start(base);
    const go = join(a.dir, "go");
    const threeCalls = `for (let i = 0; i < 3; i++) await atrium.call("a.whoami", {}); return "done";`;
    const running = a.call("execute_code", { code: `async () => { await atrium.call("a.wait_for_file", { path: ${JSON.stringify(go)} }); ${threeCalls} }` }, 180_000);

    edit(a, { ...base, atrium: { sandbox: { hostCalls: 2 } } });
    await until(() => /config reloaded from .*no connector changed/.test(a.stderr()), "the limit reloaded");
    const fresh = await a.call("execute_code", { code: `async () => { ${threeCalls} }` });
    expect((fresh.structuredContent as any).error).toMatchObject({ code: "budget_exceeded" });
    writeFileSync(go, "");
    const r = await running;
    expect((r.structuredContent as any).value).toBe("done");
  });
});

describe("which file is watched", () => {
  it("a config file that is a symbolic link: an edit of its target, in another folder, applies", async () => {
    const target = join(mkdtempSync(join(tmpdir(), "atrium-target-")), "shared.json");
    writeFileSync(target, JSON.stringify({ mcpServers: { a: gate("A") } }));
    const link = join(mkdtempSync(join(tmpdir(), "atrium-link-")), "atrium.json");
    symlinkSync(target, link);
    const a = await startAtrium({ env: { ATRIUM_CONFIG: link } });
    open.push(a);
    expect(await addresses(a)).toEqual(["a.wait_for_file", "a.whoami"]);
    try {
      writeFileSync(target, JSON.stringify({ mcpServers: { a: gate("A"), b: gate("B") } }));
      await until(async () => (await addresses(a)).includes("b.whoami"), "the target's edit applied");
    } finally {
      for (const p of [target, link]) rmSync(dirname(p), { recursive: true, force: true });
    }
  });
  it("after the symbolic link is swapped to a target in another folder, later edits of that target apply", async () => {
    const first = join(mkdtempSync(join(tmpdir(), "atrium-target-")), "shared.json");
    const second = join(mkdtempSync(join(tmpdir(), "atrium-target-")), "shared.json");
    writeFileSync(first, JSON.stringify({ mcpServers: { a: gate("A") } }));
    writeFileSync(second, JSON.stringify({ mcpServers: { a: gate("A"), b: gate("B") } }));
    const link = join(mkdtempSync(join(tmpdir(), "atrium-link-")), "atrium.json");
    symlinkSync(first, link);
    const a = await startAtrium({ env: { ATRIUM_CONFIG: link } });
    open.push(a);
    try {
      // The swap as a deploy tool does it: a new link renamed over the old one.
      symlinkSync(second, `${link}.new`);
      renameSync(`${link}.new`, link);
      await until(async () => (await addresses(a)).includes("b.whoami"), "the swap applied");
      writeFileSync(second, JSON.stringify({ mcpServers: { a: gate("A") } }));
      await until(async () => !(await addresses(a)).includes("b.whoami"), "the new target's edit applied");
    } finally {
      for (const p of [first, second, link]) rmSync(dirname(p), { recursive: true, force: true });
    }
  });
});

describe("an invalid edit keeps the running config and says why", () => {
  it("bad JSON is refused once with the file named; status, doctor and the old config agree; then a valid edit applies", async () => {
    const good = { mcpServers: { a: gate("A") } };
    const a = await start(good);
    edit(a, `{ "mcpServers": { "a": `);
    await until(() => refusedLines(a).length > 0, "the refusal logged");
    expect(refusedLines(a)[0]).toMatch(/atrium\.json: invalid JSON at line 1/);
    expect((await whoami(a, "a")).label).toBe("A");
    expect(status(a)).toMatchObject({ event: "refused", config: configPath(a), errors: [{ path: "" }] });
    expect(statSync(join(a.dir, "state", "reload-status.json")).mode & 0o777).toBe(0o600);

    const d = await doctor(a);
    expect(d.code).toBe(1);
    expect(d.err).toContain(`reload: atrium serve (pid ${a.transport.pid}) refused an edit at`);
    expect(d.err).toMatch(/error: invalid JSON at line 1/);

    // The same content again is not reported again; the valid edit after it applies.
    edit(a, `{ "mcpServers": { "a": `);
    edit(a, { mcpServers: { a: gate("A"), b: gate("B") } });
    await until(async () => (await addresses(a)).includes("b.whoami"), "the valid edit applied");
    await until(() => /config reloaded from .*: added b/.test(a.stderr()), "the valid edit logged");
    expect(refusedLines(a)).toHaveLength(1);
    const after = await doctor(a);
    expect(after.out).toMatch(/reload: atrium serve \(pid \d+\) applied an edit at .*: added b/);
  });

  it("a schema error is refused with its config path, and the path is in the status file and doctor", async () => {
    const a = await start({ mcpServers: { a: gate("A") } });
    edit(a, { mcpServers: { a: gate("A"), b: { command: 42 } } });
    await until(() => refusedLines(a).length > 0, "the refusal logged");
    expect(refusedLines(a)[0]).toContain("atrium.json: mcpServers.b.command:");
    expect(status(a).errors[0].path).toBe("mcpServers.b.command");
    expect(await addresses(a)).toEqual(["a.wait_for_file", "a.whoami"]);
    const d = await doctor(a);
    expect(d.err).toMatch(/refused an edit at .*\n\s+error: mcpServers\.b\.command: /);
  });

  it("a write in two steps (partial JSON first) is applied once whole, never refused", async () => {
    const a = await start({ mcpServers: { a: gate("A") } });
    const whole = JSON.stringify({ mcpServers: { a: gate("A"), b: gate("B") } });
    const half = Math.floor(whole.length / 2);
    writeFileSync(configPath(a), whole.slice(0, half));
    writeFileSync(configPath(a), whole.slice(half), { flag: "a" });
    await until(async () => (await addresses(a)).includes("b.whoami"), "the whole file applied");
    expect(refusedLines(a)).toEqual([]);
  });
});

describe("the registry's reload fails closed in time", () => {
  const valid = (raw: unknown): AtriumConfig => {
    const r = validateConfig(raw, core());
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return r.config;
  };

  it("a call made while a changed connector is replaced waits for the new one; a call in flight on the old one ends unavailable, retryable", async () => {
    const registry = new ConnectorRegistry(valid({ mcpServers: { a: gate("A"), b: gate("B", { timeoutMs: 120_000 }) } }), "test");
    try {
      await registry.startAll();
      const oldB = registry.get("b")!;
      const oldA = registry.get("a")!;
      const never = join(mkdtempSync(join(tmpdir(), "atrium-reload-")), "never");
      const inFlight = oldB.call("wait_for_file", { path: never }, {}).then(() => undefined, (e) => e);
      await until(() => existsSync(`${never}.waiting`), "the call reached b");

      const applied = registry.apply(valid({ mcpServers: { a: gate("A"), b: gate("B2", { timeoutMs: 120_000 }) } }));
      // At once, before the old child has ended: the id names the new connector, still starting.
      const newB = registry.get("b")!;
      expect(newB).not.toBe(oldB);
      expect(newB.state).toBe("starting");
      await newB.whenSettled();
      expect(((await newB.call("whoami", {}, {})).structuredContent as any).label).toBe("B2");
      expect(await applied).toEqual({ added: [], removed: [], restarted: ["b"] });

      const e = await inFlight;
      expect(e).toMatchObject({ code: "unavailable", retryable: true });
      expect(e.message).toContain("was restarted by a config reload; call it again");
      expect(registry.get("a")).toBe(oldA);
      expect(oldA.state).toBe("ready");
    } finally {
      await registry.stopAll();
    }
  });
});
