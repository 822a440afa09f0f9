// Start-up that never blocks and fails closed in time: each connector becomes callable the
// moment it is ready, a slow one never holds a healthy one back, a failed start is retried in
// the background (retryable only while a retry is pending), start failures are explained, a
// listing that changes is not trusted until the new list is in, a name listed twice fails
// closed, and a chain of atriums ends at the nesting limit.
import { describe, it, expect, afterEach } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { startAtrium, fixture, nodeServer, atriumBin, type Atrium } from "./harness/atrium-client.js";
import { sendWeb, webRequest } from "./harness/web-http.js";
import { waitFor } from "./harness/until.js";

const err = (r: any) => r.structuredContent?.error;
let open: Atrium[] = [];
const start = async (config: unknown, waitForConnectors = false) => {
  const a = await startAtrium({ config, waitForConnectors });
  open.push(a);
  return a;
};
afterEach(async () => {
  await Promise.all(open.map((a) => a.close()));
  open = [];
});
const stateOf = async (a: Atrium, id: string) => (await a.json("search_tools", { query: "", limit: 1 })).unavailable?.find((u: any) => u.connector === id);

/** A stateless Streamable HTTP MCP server on a fixed port (started when the test says). */
async function remoteOn(port: number): Promise<Server> {
  const http = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const server = new McpServer({ name: "late-remote", version: "1" });
    server.registerTool("ping", { description: "Answers pong", annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "pong" }] }));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    await sendWeb(res, await transport.handleRequest(webRequest(req, body), { parsedBody: body ? JSON.parse(body) : undefined }));
  });
  await new Promise<void>((r) => http.listen(port, "127.0.0.1", r));
  return http;
}
const freePort = async () => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
};

describe("start-up that never blocks", () => {
  it("a call to a healthy connector is answered while a slow one is still starting", async () => {
    const a = await start({ mcpServers: { slow: { command: "sleep", args: ["1000"] }, nasty: nodeServer(fixture("nasty-server")) } });
    await waitFor(async () => !(await a.call("call_tool", { address: "nasty.echo", args: { x: 1 }, resultMode: "value" })).isError, "nasty.echo answering");
    // Answered while the slow connector is still in its first attempt (its deadline is 60 s).
    expect((await stateOf(a, "slow"))?.state).toBe("starting");
    const v = await a.value(`async () => (await nasty.echo({ y: 2 })).args`);
    expect(v).toEqual({ y: 2 });
    expect((await stateOf(a, "slow"))?.state).toBe("starting");
  });

  it("a call and a program that name a connector still starting wait for that one, then run", async () => {
    // The connector comes up when the test opens its gate, not after some time.
    const gate = join(mkdtempSync(join(tmpdir(), "atrium-late-")), "open");
    const a = await start({ mcpServers: { late: nodeServer(fixture("nasty-server"), { env: { FIXTURE_START_GATE: gate } }) } });
    const program = a.value(`async () => (await late.echo({ waited: true })).args`);
    const direct = a.json("call_tool", { address: "late.echo", args: { z: 3 }, resultMode: "value" });
    // A search sent after both is answered with the connector still starting: both arrived before it was up.
    expect((await stateOf(a, "late"))?.state).toBe("starting");
    writeFileSync(gate, "");
    expect(await program).toEqual({ waited: true });
    expect((await direct).data.args).toEqual({ z: 3 });
    rmSync(dirname(gate), { recursive: true, force: true });
  });

  it("startTimeoutMs bounds a start per connector, and the failure says so", async () => {
    const a = await start({ mcpServers: { mute: { command: "sleep", args: ["1000"], startTimeoutMs: 500 } }, atrium: { connectors: { startRetries: 0 } } });
    await waitFor(async () => (await stateOf(a, "mute"))?.state === "failed", "mute failed");
    const e = err(await a.call("call_tool", { address: "mute.anything" }));
    expect(e.code).toBe("unavailable");
    expect(e.message).toContain("within 500 ms (startTimeoutMs)");
  });
});

describe("a failed start is retried in the background", () => {
  it("a remote server that comes up late is reached without restarting atrium", async () => {
    const port = await freePort();
    const a = await start({ mcpServers: { late: { url: `http://127.0.0.1:${port}/mcp` } } });
    await waitFor(async () => (await stateOf(a, "late"))?.state === "retrying", "late retrying");
    const e = err(await a.call("call_tool", { address: "late.ping" }));
    expect(e).toMatchObject({ code: "unavailable", retryable: true });
    expect(e.message).toContain(`connection refused at http://127.0.0.1:${port}/mcp`);
    expect(e.message).toMatch(/tries again in \d+ s/);
    const http = await remoteOn(port);
    try {
      await waitFor(async () => !(await a.call("call_tool", { address: "late.ping", resultMode: "value" })).isError, "late.ping answering");
    } finally {
      http.close();
    }
  });

  it("E8: once the retries are used up, unavailable is no longer retryable", async () => {
    const a = await start({ mcpServers: { broken: nodeServer(fixture("nasty-server"), { env: { FIXTURE_CRASH_ON_START: "1" } }) }, atrium: { connectors: { startRetries: 1 } } });
    await waitFor(async () => (await stateOf(a, "broken"))?.state === "failed", "broken failed");
    const e = err(await a.call("call_tool", { address: "broken.echo" }));
    expect(e).toMatchObject({ code: "unavailable", retryable: false });
    expect(e.message).toContain("no attempts are left");
    expect(e.message).toContain("exited with code 3");
  });

  it("one discovery: a program's atrium.search names the connectors that are missing, like search_tools", async () => {
    const a = await start({ mcpServers: { ghost: { command: "mcp-server-does-not-exist" }, nasty: nodeServer(fixture("nasty-server")) }, atrium: { connectors: { startRetries: 0 } } }, true);
    const direct = await a.json("search_tools", { query: "echo" });
    const fromProgram = await a.value(`async () => atrium.search("echo")`);
    expect(fromProgram.unavailable).toEqual(direct.unavailable);
    expect(fromProgram.unavailable.map((u: any) => u.connector)).toEqual(["ghost"]);
    expect(fromProgram.results.map((r: any) => r.address)).toEqual(direct.results.map((r: any) => r.address));
  });

  it("a command that is not on PATH is explained, with how to give an absolute path", async () => {
    const a = await start({ mcpServers: { ghost: { command: "mcp-server-does-not-exist" } }, atrium: { connectors: { startRetries: 0 } } });
    await waitFor(async () => (await stateOf(a, "ghost"))?.state === "failed", "ghost failed");
    const s = await stateOf(a, "ghost");
    expect(s.problem).toContain(`"mcp-server-does-not-exist" was not found on PATH`);
    expect(s.problem).toContain("absolute path");
  });
});

describe("fail closed in time", () => {
  it("R10: a call in the window after tools/list_changed is judged on the new list, never the stale one", async () => {
    const a = await start({ mcpServers: { nasty: nodeServer(fixture("nasty-server"), { env: { FIXTURE_LIST_DELAY_MS: "800" } }) } }, true);
    expect((await a.json("call_tool", { address: "nasty.mut", resultMode: "value" })).data).toEqual({ calls: 1 });
    const code = await a.value(`async () => {
      await atrium.call("nasty.make_mut_destructive", {});
      try { await atrium.call("nasty.mut", {}); return "ran"; } catch (e) { return e.code; }
    }`);
    expect(code).toBe("destructive_tool_requires_approval");
    expect((await a.json("call_tool", { address: "nasty.mut_calls", resultMode: "value" })).data).toEqual({ calls: 1 });
  });

  it("R10: when the new list cannot be read, the connector's tools stay behind approval and calls say it is not recovering", async () => {
    const a = await start({ mcpServers: { nasty: nodeServer(fixture("nasty-server"), { env: { FIXTURE_LIST_DELAY_MS: "0", FIXTURE_LIST_FAILS_AFTER_CHANGE: "1" } }) }, atrium: { connectors: { startRetries: 0 } } }, true);
    await a.call("call_tool", { address: "nasty.make_mut_destructive" });
    const e = err(await a.call("call_tool", { address: "nasty.echo", args: {} }));
    expect(e).toMatchObject({ code: "unavailable", retryable: false });
    expect(e.message).toContain("listing refused on purpose");
    expect((await a.json("search_tools", { query: "echo", connector: "nasty" })).results.find((r: any) => r.address === "nasty.echo")).toMatchObject({ safety: "approval", reason: "listing_refreshing" });
  });

  it("R11: a name listed twice (read-only first, destructive second) needs approval", async () => {
    const a = await start({ mcpServers: { nasty: nodeServer(fixture("nasty-server"), { env: { FIXTURE_DUPLICATE: "1" } }) } }, true);
    const e = err(await a.call("call_tool", { address: "nasty.echo", args: {} }));
    expect(e.code).toBe("destructive_tool_requires_approval");
    expect(e.details.reason).toBe("duplicate_name");
    expect((await a.json("search_tools", { query: "echo", connector: "nasty" })).results.find((r: any) => r.address === "nasty.echo")).toMatchObject({ safety: "approval", reason: "duplicate_name" });
  });
});

describe("nesting", () => {
  it("an atrium behind atriums starts no connectors past nesting_depth, and says why", async () => {
    // top (depth 1) → middle atrium (depth 2) → inner atrium (depth 3, past the limit of 2): the
    // inner one serves, but starts none of its connectors.
    const dir = mkdtempSync(join(tmpdir(), "atrium-nesting-"));
    try {
      writeFileSync(join(dir, "inner.json"), JSON.stringify({ mcpServers: { nasty: nodeServer(fixture("nasty-server")) } }));
      writeFileSync(join(dir, "middle.json"), JSON.stringify({ mcpServers: { inner: { command: process.execPath, args: [atriumBin, "--config", join(dir, "inner.json")] } } }));
      const top = await start({ mcpServers: { middle: { command: process.execPath, args: [atriumBin, "--config", join(dir, "middle.json")] } } }, true);
      const r = await top.json("call_tool", { address: "middle.call_tool", args: { address: "inner.search_tools", args: { query: "", limit: 1 }, resultMode: "value" }, resultMode: "value" });
      const innerSearch = r.data.data;
      const nasty = innerSearch.unavailable.find((u: any) => u.connector === "nasty");
      expect(nasty.state).toBe("refused");
      expect(nasty.problem).toContain("nesting_depth");
      expect(nasty.problem).toContain("nested 3 deep");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
