// Downstream servers of either protocol revision behind a real atrium over stdio (issue 10,
// item 3): a server that speaks only 2026-07-28 over stdio and over Streamable HTTP (SDK 2's
// serveStdio / createMcpHandler with legacy: 'reject'), a real 2025-11-25-only server from npm
// (server-memory, SDK 1), a server that answers server/discover wrongly (falls back to
// initialize, or is unavailable with the reason), and one that exits on any request before
// initialize. Each is searched, called directly and from a program, its destructive tool is
// held for approval, doctor names its revision, and list changes on 2026-07-28 reach the
// catalog both ways (subscriptions/listen, subscribed again when the stream is cut, and a
// re-list when the list's ttlMs runs out), with the R10 window held shut on both.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, fixture, nodeServer, npmBin, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { startModernHttp, type ModernHttp } from "./fixtures/modern-kit.js";
import { waitFor } from "./harness/until.js";

const err = (r: any) => r.structuredContent?.error;
const modern = fixture("modern-server");
const strict = fixture("strict-init-server");
const freePort = () => new Promise<number>((resolve) => { const s = createServer().listen(0, () => { const p = (s.address() as any).port; s.close(() => resolve(p)); }); });


const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

let dir: string;
let http26: ModernHttp;
let a: Atrium;
const log = (name: string) => join(dir, `${name}.log`);
/** While this file exists, ttl26 holds a tools/list answer that lists read_note as destructive. */
const hold = () => join(dir, "ttl26.hold");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "atrium-revisions-"));
  http26 = await startModernHttp();
  a = await startAtrium({
    config: {
      mcpServers: {
        // pins "auto-accept": the tools these servers add at run time are called below, not quarantined (spec/pins.md N4).
        m26: nodeServer(modern, { env: { MODERN_LOG: log("m26"), MODERN_LIST_DELAY_MS: "800" }, pins: "auto-accept" }),
        ttl26: nodeServer(modern, { env: { MODERN_LOG: log("ttl26"), MODERN_LIST_CHANGED: "false", MODERN_TTL_MS: "200", MODERN_HOLD_FILE: hold() } }),
        h26: { url: http26.url, pins: "auto-accept" },
        mem: { command: npmBin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
        mal: nodeServer(modern, { env: { MODERN_LOG: log("mal"), MODERN_DISCOVER: "malformed", MODERN_LEGACY: "serve" } }),
        malrej: nodeServer(modern, { env: { MODERN_DISCOVER: "malformed" } }),
        strict: nodeServer(strict, { env: { STRICT_LOG: log("strict") } }),
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await a?.close();
  await http26?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("connectors reach servers of either revision", () => {
  it("search finds the tools of every server; only the one that answers server/discover wrongly and refuses initialize is unavailable, with why", async () => {
    for (const id of ["m26", "ttl26", "h26", "mal"]) {
      const found = await a.json("search_tools", { query: "read note", connector: id });
      expect(found.results[0]?.address, id).toBe(`${id}.read_note`);
    }
    expect((await a.json("search_tools", { query: "read graph", connector: "mem" })).results[0].address).toBe("mem.read_graph");
    expect((await a.json("search_tools", { query: "peek", connector: "strict" })).results[0].address).toBe("strict.peek");
    const all = await a.json("search_tools", { query: "", limit: 1 });
    expect(all.unavailable.map((u: any) => u.connector)).toEqual(["malrej"]);
    expect(all.unavailable[0].problem).toContain("its answer to server/discover is not a usable 2026-07-28 result");
    expect(all.unavailable[0].problem).toContain("it refuses initialize, offering only 2026-07-28");
  });

  it("call_tool reaches a 2026-only server over stdio and over HTTP on 2026-07-28, and the malformed-discover server on 2025-11-25", async () => {
    for (const [id, era] of [["m26", "modern"], ["h26", "modern"], ["ttl26", "modern"], ["mal", "legacy"]]) {
      expect((await a.json("call_tool", { address: `${id}.server_era`, resultMode: "value" })).data, id).toBe(era);
      expect((await a.json("call_tool", { address: `${id}.read_note`, args: { id: "n1" }, resultMode: "value" })).data, id).toBe("first note");
    }
    const graph = await a.json("call_tool", { address: "mem.read_graph", resultMode: "value" });
    expect(graph.data).toEqual({ entities: [], relations: [] });
    expect((await a.json("call_tool", { address: "strict.peek", resultMode: "value" })).data).toBe("peeked");
    // The 2026-only HTTP server saw only 2026-07-28 requests: the probe, then envelope-carrying ones.
    expect(http26.methods[0]).toBe("server/discover 2026-07-28");
    expect(http26.methods.filter((m) => !m.endsWith(" 2026-07-28"))).toEqual([]);
  });

  it("HTTP failures of a call on a 2026-07-28 connection are the same typed errors as on 2025-11-25, and the next call works", async () => {
    for (const [status, code, retryable] of [[429, "rate_limited", true], [401, "auth_required", false], [403, "auth_required", false], [503, "unavailable", true]] as const) {
      http26.forceStatus = status;
      const r = await a.call("call_tool", { address: "h26.read_note", args: { id: "n1" } });
      http26.forceStatus = 0;
      expect(err(r), String(status)).toMatchObject({ code, retryable });
      expect((await a.json("call_tool", { address: "h26.read_note", args: { id: "n1" }, resultMode: "value" })).data).toBe("first note");
    }
  });

  it("execute_code calls a read-only tool of each", async () => {
    const v = await a.value(`async () => [
      await m26.read_note({ id: "n2" }), await h26.read_note({ id: "n2" }), await mal.read_note({ id: "n2" }),
      (await mem.read_graph({})).entities.length, await strict.peek({}),
    ]`);
    expect(v).toEqual(["second note", "second note", "second note", 0, "peeked"]);
  });

  it("a destructive tool of each needs approval, and runs through call_destructive_tool", async () => {
    for (const address of ["m26.delete_note", "h26.delete_note", "mal.delete_note", "mem.delete_entities", "strict.wipe"]) {
      expect(err(await a.call("call_tool", { address, args: address.startsWith("mem") ? { entityNames: ["x"] } : { id: "n2" } }))?.code, address).toBe("destructive_tool_requires_approval");
    }
    for (const id of ["m26", "h26"]) {
      const r = await a.json("call_destructive_tool", { address: `${id}.delete_note`, args: { id: "n2" }, reason: "test", resultMode: "value" });
      expect(r.data, id).toBe("deleted n2");
    }
  });

  it("a list change on a 2026-only server reaches the catalog over subscriptions/listen, over stdio and over HTTP", async () => {
    for (const id of ["m26", "h26"]) {
      const r = await a.call("call_destructive_tool", { address: `${id}.add_tool`, args: { name: `fresh_${id}` }, reason: "test" });
      expect(r.isError, id).toBeFalsy();
      await waitFor(async () => (await a.json("search_tools", { query: `fresh_${id}`, connector: id })).results.some((x: any) => x.address === `${id}.fresh_${id}`), `${id}.fresh_${id} in the catalog`);
      expect((await a.json("call_tool", { address: `${id}.fresh_${id}`, resultMode: "value" })).data).toBe(`extra tool fresh_${id}`);
    }
    expect(lines(log("m26"))).toContain("subscriptions/listen 2026-07-28");
    expect(http26.methods).toContain("subscriptions/listen 2026-07-28");
  });

  it("when a 2026 server's listen stream is cut, atrium subscribes again and lists again, so later changes still reach the catalog", async () => {
    const listens = () => http26.methods.filter((m) => m.startsWith("subscriptions/listen")).length;
    const before = listens();
    expect(http26.dropListenStreams()).toBe(1);
    await waitFor(() => listens() > before, "a new subscriptions/listen");
    await a.call("call_destructive_tool", { address: "h26.add_tool", args: { name: "after_cut" }, reason: "test" });
    await waitFor(async () => (await a.json("search_tools", { query: "after_cut", connector: "h26" })).results.some((x: any) => x.address === "h26.after_cut"), "h26.after_cut in the catalog");
  });

  it("a 2026-only server that announces nothing is listed again when its list's ttlMs runs out, so its new tool reaches the catalog", async () => {
    const before = lines(log("ttl26")).filter((l) => l.startsWith("tools/list")).length;
    await a.call("call_destructive_tool", { address: "ttl26.add_tool", args: { name: "fresh_ttl" }, reason: "test" });
    await waitFor(async () => (await a.json("search_tools", { query: "fresh_ttl", connector: "ttl26" })).results.some((x: any) => x.address === "ttl26.fresh_ttl"), "ttl26.fresh_ttl in the catalog");
    const log26 = lines(log("ttl26"));
    expect(log26.filter((l) => l.startsWith("tools/list")).length).toBeGreaterThan(before);
    expect(log26.some((l) => l.startsWith("subscriptions/listen"))).toBe(false); // it advertises no listChanged: nothing to listen to
  });

  it("R10 on a 2026 list change: a call right after it is judged on the new list, never the stale one", async () => {
    const code = await a.value(`async () => {
      await atrium.call("m26.harden", {});
      try { await atrium.call("m26.read_note", { id: "n1" }); return "ran"; } catch (e) { return e.code; }
    }`);
    expect(code).toBe("destructive_tool_requires_approval");
  });

  it("R10 when a ttlMs runs out: while the new list is read the tools are not read-only, and a call waits for it", async () => {
    writeFileSync(hold(), "");
    await a.call("call_tool", { address: "ttl26.harden" }); // announced to nobody: only the ttlMs re-list can see it
    // The re-list that carries the change is held by the server: atrium is inside its window until the file goes.
    await waitFor(() => lines(log("ttl26")).includes("tools/list held"), "ttl26's re-list held");
    const call = a.call("call_tool", { address: "ttl26.read_note", args: { id: "n1" } }); // made inside the window: it waits for the new list
    rmSync(hold());
    expect(err(await call)?.code).toBe("destructive_tool_requires_approval");
  });

  it("a server that exits on the server/discover probe is started again without it, and its restarts skip the probe", async () => {
    // The first process got the probe and exited on it; the one started after the last probe got
    // initialize first. (On a loaded machine a process can boot slower than the probe's 3 s: that
    // start is taken for a silent 2025 server, fails when the process exits on the probe it read
    // late, and is retried with the probe, so there may be one more probe before the last start.)
    const first = lines(log("strict"));
    expect(first.slice(0, 2)).toEqual(["spawn", "server/discover"]);
    const served = first.indexOf("initialize");
    expect(first[served - 1]).toBe("spawn");
    expect(first.lastIndexOf("server/discover")).toBe(served - 2);
    const probes = first.filter((l) => l === "server/discover").length;
    const spawns = first.filter((l) => l === "spawn").length;
    await a.call("call_tool", { address: "strict.crash" }); // exits the process: atrium restarts it
    await waitFor(async () => lines(log("strict")).filter((l) => l === "spawn").length === spawns + 1 && (await a.json("call_tool", { address: "strict.peek", resultMode: "value" })).data === "peeked", "strict restarted and answering");
    const after = lines(log("strict"));
    expect(after.filter((l) => l === "server/discover")).toHaveLength(probes);
    expect(after[after.lastIndexOf("spawn") + 1]).toBe("initialize");
  });
});

describe("atrium doctor names each connector's revision", () => {
  let everything: ChildProcess;
  let everythingUrl: string;
  let httpMal: ModernHttp;
  beforeAll(async () => {
    httpMal = await startModernHttp({ discover: "malformed", legacy: "serve" });
    const port = await freePort();
    everything = spawn(process.execPath, [npmBin("mcp-server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    await new Promise<void>((resolve) => everything.stderr!.on("data", (c) => { if (String(c).includes("listening")) resolve(); }));
    everythingUrl = `http://127.0.0.1:${port}/mcp`;
  }, 30_000);
  afterAll(async () => {
    everything?.kill();
    await httpMal?.close();
  });

  it("shows the revision and how it was reached for 2026-only (one slower to start than the probe), 2025-only, malformed-discover, probe-exiting and silent servers, and the reason for the one that fails", async () => {
    const config = join(dir, "doctor.json");
    writeFileSync(config, JSON.stringify({
      mcpServers: {
        m26: nodeServer(modern),
        ttl26: nodeServer(modern, { env: { MODERN_LIST_CHANGED: "false", MODERN_TTL_MS: "200" } }),
        h26: { url: http26.url, pins: "auto-accept" },
        mem: { command: npmBin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(dir, "doctor-memory.jsonl") } },
        everything: { url: everythingUrl },
        mal: nodeServer(modern, { env: { MODERN_DISCOVER: "malformed", MODERN_LEGACY: "serve" } }),
        hmal: { url: httpMal.url },
        malrej: nodeServer(modern, { env: { MODERN_DISCOVER: "malformed" } }),
        strict: nodeServer(strict),
        silent: nodeServer(strict, { env: { STRICT_INIT: "silent" } }),
        slow26: nodeServer(modern, { env: { MODERN_START_DELAY_MS: "3500" } }),
        pinned: nodeServer(modern, { protocol: "2026-07-28" }),
        old: nodeServer(modern, { env: { MODERN_LEGACY: "serve" }, protocol: "2025-11-25" }),
      },
    }));
    // Not spawnSync: the HTTP fixtures answer from this process.
    const r = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const p = execFile(process.execPath, [atriumBin, "doctor", "--config", config], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "" }, timeout: 45_000 }, (_e, stdout) => resolve({ status: p.exitCode, stdout }));
    });
    const out = r.stdout.split("\n");
    const under = (id: string) => out[out.findIndex((l) => l.startsWith(`ok   ${id} `) || l.startsWith(`FAIL ${id} `)) + 1] ?? "";
    // Thirteen servers start at once on a small machine: a 2026-only stdio server may miss the 3 s
    // probe and be reached at the pinned second try; either way it must be reached on 2026-07-28.
    const modernLine = (tail: string) => new RegExp(`^ {5}protocol 2026-07-28, by server/discover(, at the second try: it refuses initialize, offering only 2026-07-28)?; ${tail.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
    expect(under("m26"), r.stdout).toMatch(modernLine("follows list changes by subscriptions/listen"));
    expect(under("ttl26")).toMatch(modernLine("follows list changes by ttlMs 200: listed again every 1000 ms"));
    expect(under("h26")).toBe("     protocol 2026-07-28, by server/discover; follows list changes by subscriptions/listen");
    const fellBack = (why: string) => `     protocol 2025-11-25, by initialize, after server/discover ${why}; follows list changes by tools/list_changed`;
    expect(under("mem")).toBe(fellBack("was answered with an error (MCP error -32601: Method not found)"));
    expect(under("everything")).toMatch(/^ {5}protocol 2025-11-25, by initialize, after server\/discover was answered with HTTP 400 and an error \(MCP error -32000: /);
    for (const id of ["mal", "hmal"]) expect(under(id), id).toBe(fellBack("was answered with a result that is not a usable 2026-07-28 one (malformed, or not offering it)"));
    expect(under("silent")).toBe(fellBack("had no answer within 3000 ms"));
    expect(under("strict")).toBe("     protocol 2025-11-25, by initialize, without the probe: the process exited on the server/discover probe; follows list changes by tools/list_changed");
    // Slower to start than the probe's deadline: taken for 2025-11-25, refused at initialize, reached pinned at the second try.
    expect(under("slow26")).toBe("     protocol 2026-07-28, by server/discover, at the second try: it refuses initialize, offering only 2026-07-28; follows list changes by subscriptions/listen");
    expect(under("pinned")).toMatch(/^ {5}protocol 2026-07-28, by server\/discover \("protocol" is set to 2026-07-28\)/);
    expect(under("old")).toMatch(/^ {5}protocol 2025-11-25, by initialize \("protocol" is set to 2025-11-25\)/);
    expect(r.stdout).toMatch(/^FAIL malrej /m);
    expect(under("malrej")).toContain("failed to start: its answer to server/discover is not a usable 2026-07-28 result (malformed, or not offering it), and it refuses initialize, offering only 2026-07-28");
    expect(r.stdout).toContain("1 connector(s) failed");
    expect(r.status).toBe(1);
  }, 60_000);
});
