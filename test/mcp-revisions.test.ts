// Both protocol revisions over one stdio (spec/host-detection.md H12–H14, spec/envelope.md E9):
// a 2025-11-25 client gets the initialize handshake as before; a 2026-07-28 client gets
// server/discover, per-request capabilities, a deterministic cacheable tools/list and the same
// meta-tools; a request's own _meta decides its host, and a malformed one is a plain host.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startAtrium, atriumBin, programValue, type Atrium } from "./harness/atrium-client.js";

const APPS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
const VIEW_PROGRAM = `async () => { atrium.ui("<p>hello</p>"); return "ok"; }`;

/** A raw JSON-RPC line client for one atrium process: full control of each request's _meta. */
class RawClient {
  private readonly waiting = new Map<number | string, (m: any) => void>();
  private nextId = 1;
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = JSON.parse(line);
      if (m.id !== undefined && !m.method) this.waiting.get(m.id)?.(m);
    });
  }
  request(method: string, params: Record<string, unknown>): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }
}
const meta = (caps: unknown, version = "2026-07-28") => ({ "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" }, "io.modelcontextprotocol/clientCapabilities": caps });

describe("a 2026-07-28 client (SDK 2, pinned to the revision)", () => {
  let apps: Atrium, plain: Atrium, legacyApps: Atrium;
  beforeAll(async () => {
    [apps, plain, legacyApps] = await Promise.all([
      startAtrium({ revision: "2026-07-28", apps: true }),
      startAtrium({ revision: "2026-07-28" }),
      startAtrium({ apps: true }),
    ]);
  });
  afterAll(async () => { await Promise.all([apps, plain, legacyApps].map((a) => a?.close())); });

  it("negotiates 2026-07-28 without an initialize handshake, and a 2025-11-25 client still gets the handshake", () => {
    expect(apps.client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(plain.client.getProtocolEra()).toBe("modern");
    expect(legacyApps.client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
  });

  it("H14: tools/list is the same for every 2026-07-28 client (get_view listed with visibility app), unlike 2025-11-25 where only an Apps host sees it", async () => {
    const [a, p] = await Promise.all([apps.client.listTools(), plain.client.listTools()]);
    expect(a.tools).toEqual(p.tools);
    const getView = a.tools.find((t) => t.name === "get_view");
    expect(getView?._meta).toMatchObject({ ui: { visibility: ["app"] } });
    expect((await legacyApps.client.listTools()).tools.some((t) => t.name === "get_view")).toBe(true);
  });

  it("H14: a plain 2026-07-28 client that calls the listed get_view is told the tool does not exist; an Apps client reaches it", async () => {
    await expect(plain.call("get_view", { id: "nope" })).rejects.toThrow(/Unknown tool: get_view/);
    const r: any = await apps.call("get_view", { id: "nope" });
    expect(r.structuredContent?.error?.code).toBeDefined();
  });

  it("search, call_tool and execute_code with a host call work as on 2025-11-25", async () => {
    const found = await plain.json("search_tools", { query: "list incidents" });
    expect(found.results.map((r: any) => r.address)).toContain("desk.list_incidents");
    const called: any = await plain.call("call_tool", { address: "desk.list_incidents", args: {}, resultMode: "value" });
    expect(called.structuredContent?.error).toBeUndefined();
    expect(await plain.value(`async () => (await atrium.search("incidents")).results.length > 0`)).toBe(true);
  });

  it("E9: a view is inline for the 2026-07-28 Apps client and an offline file for the plain one", async () => {
    const a: any = await apps.call("execute_code", { code: VIEW_PROGRAM });
    expect(a._meta?.["atrium/view"]).toBeDefined();
    const p: any = await plain.call("execute_code", { code: VIEW_PROGRAM });
    expect(p._meta?.["atrium/view"]).toBeUndefined();
    expect(programValue(p)).toBe("ok");
    expect(JSON.stringify(p.structuredContent)).toMatch(/\.html/);
  });
});

describe("per-request capabilities on one 2026-07-28 connection (raw JSON-RPC)", () => {
  let child: ChildProcessWithoutNullStreams;
  let raw: RawClient;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "atrium-rev-"));
    child = spawn(process.execPath, [atriumBin], { cwd: dir, env: { ...process.env, ATRIUM_STATE_DIR: join(dir, "state") } });
    raw = new RawClient(child);
  });
  afterAll(async () => {
    // atrium writes its last activity lines on the way out: the directory goes once it has exited.
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill();
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("server/discover names 2026-07-28 among the supported versions and atrium's capabilities", async () => {
    const r = await raw.request("server/discover", { _meta: meta({}) });
    expect(r.result.supportedVersions).toContain("2026-07-28");
    expect(r.result.capabilities.extensions).toHaveProperty(["io.modelcontextprotocol/ui"]);
    expect(r.result.resultType).toBe("complete");
  });

  it("tools/list carries resultType, a ttlMs and cacheScope public", async () => {
    const r = await raw.request("tools/list", { _meta: meta({}) });
    expect(r.result).toMatchObject({ resultType: "complete", cacheScope: "public" });
    expect(r.result.ttlMs).toBeGreaterThan(0);
  });

  it("H13: the same connection gets a view inline when a request declares the app mime, and a file when the next does not", async () => {
    const call = (caps: unknown) => raw.request("tools/call", { name: "execute_code", arguments: { code: VIEW_PROGRAM }, _meta: meta(caps) });
    const first = await call(APPS);
    expect(first.result._meta?.["atrium/view"]).toBeDefined();
    const second = await call({});
    expect(second.result._meta?.["atrium/view"]).toBeUndefined();
    expect(JSON.stringify(second.result.structuredContent)).toMatch(/\.html/);
    const third = await call(APPS);
    expect(third.result._meta?.["atrium/view"]).toBeDefined();
  });

  it("H12: a malformed UI capability in a request's _meta makes a plain host (no view), not a failed request", async () => {
    const malformed = [{ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: "text/html;profile=mcp-app" } } }, { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app", 7] } } }];
    for (const caps of malformed) {
      const r = await raw.request("tools/call", { name: "execute_code", arguments: { code: VIEW_PROGRAM }, _meta: meta(caps) });
      expect(r.error).toBeUndefined();
      expect(r.result._meta?.["atrium/view"]).toBeUndefined();
    }
  });

  it("an envelope the revision's schema refuses (extensions not an object) is answered -32602 naming the envelope, and the next request is served", async () => {
    const r = await raw.request("tools/list", { _meta: meta({ extensions: "io.modelcontextprotocol/ui" }) });
    expect(r.error).toMatchObject({ code: -32602 });
    expect(r.error.message).toMatch(/_meta envelope/);
    expect((await raw.request("tools/list", { _meta: meta({}) })).result.tools.length).toBeGreaterThan(0);
  });

  it("an unsupported protocol version gets the specification's error naming the supported ones", async () => {
    const r = await raw.request("tools/list", { _meta: meta({}, "2099-01-01") });
    expect(r.error.code).toBe(-32022);
    expect(JSON.stringify(r.error.data)).toMatch(/2026-07-28/);
  });
});
