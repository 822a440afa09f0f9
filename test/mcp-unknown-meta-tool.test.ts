// A downstream tool's name called as if it were one of atrium's own tools (issue 18, item 8):
// an SDK 1 host (what most hosts run) read "MCP error -32602: MCP error -32602: Unknown tool:
// list_directory", the prefix twice (SDK 1's McpError adds it to the message atrium had already
// prefixed) and nothing on what to do. Now one prefix on SDK 1 (none added by SDK 2), the
// address that has the name, and the way to call it; the error's data is a typed error. Real
// SDK 1 client, real SDK 2 client, real server-filesystem.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { atriumBin, npmBin, repo, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const sdk1 = (path: string) => import(pathToFileURL(join(repo, "test/servers/node_modules/@modelcontextprotocol/sdk/dist/esm", path)).href);

let files: string;
let dir: string;
let v1: any;
let v2: Atrium;
const config = () => ({ mcpServers: { filesystem: { command: npmBin("mcp-server-filesystem"), args: [files] } } });

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), "atrium-unknown-fs-"));
  dir = mkdtempSync(join(tmpdir(), "atrium-unknown-"));
  writeFileSync(join(dir, "atrium.json"), JSON.stringify(config()));
  const { Client } = await sdk1("client/index.js");
  const { StdioClientTransport } = await sdk1("client/stdio.js");
  v1 = new Client({ name: "sdk1-host", version: "0.0.0" });
  await v1.connect(new StdioClientTransport({ command: process.execPath, args: [atriumBin, "--config", join(dir, "atrium.json")], cwd: dir, env: { ATRIUM_STATE_DIR: join(dir, "state") }, stderr: "pipe" }));
  v2 = await startAtrium({ config: config() });
  // The SDK 1 atrium's connector has made its first start before the calls (as startAtrium waits for v2's).
  await waitFor(async () => !(await v1.callTool({ name: "search_tools", arguments: { query: "", limit: 1 } })).structuredContent?.unavailable, "filesystem ready behind the SDK 1 host");
}, 60_000);
afterAll(async () => {
  await v1?.close().catch(() => {});
  await v2?.close();
  rmSync(files, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe("a downstream tool called by its bare name", () => {
  it("an SDK 1 host reads one MCP error prefix, the address that has the name, and how to call it", async () => {
    const err = await v1.callTool({ name: "list_directory", arguments: { path: files } }).then(() => undefined, (e: any) => e);
    expect(err?.code).toBe(-32602);
    expect(err.message.match(/MCP error -32602:/g)).toHaveLength(1);
    expect(err.message).toMatch(/^MCP error -32602: Unknown tool: list_directory\b/);
    for (const words of ["filesystem.list_directory", "call_tool", "execute_code", "search_tools"]) expect(err.message).toContain(words);
    expect(err.data).toMatchObject({ code: "unknown_tool", retryable: false, details: { nearest: ["filesystem.list_directory"] }, nextAction: { tool: "call_tool", arguments: { address: "filesystem.list_directory" } } });
  });

  it("an SDK 2 host reads no doubled prefix either, and the same advice", async () => {
    const err = await v2.call("list_directory", { path: files }).then(() => undefined, (e: any) => e);
    expect(err?.code).toBe(-32602);
    expect(err.message.match(/MCP error -32602:/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(err.message).toContain("Unknown tool: list_directory");
    expect(err.message).toContain("filesystem.list_directory");
  });

  it("a name like no tool says where tools are found: search_tools, then call_tool or execute_code with the address", async () => {
    const err = await v1.callTool({ name: "frobnicate_everything", arguments: {} }).then(() => undefined, (e: any) => e);
    expect(err.message.match(/MCP error -32602:/g)).toHaveLength(1);
    for (const words of ["search_tools", "call_tool", "execute_code", "<connector>.<tool>"]) expect(err.message).toContain(words);
    expect(err.data).toMatchObject({ code: "unknown_tool", retryable: false, nextAction: { tool: "search_tools", arguments: { query: "frobnicate_everything" } } });
  });

  it("a near miss of one of atrium's own tools names it", async () => {
    const err = await v1.callTool({ name: "search_tool", arguments: {} }).then(() => undefined, (e: any) => e);
    expect(err.message).toContain("did you mean search_tools?");
  });

  it("the server serves on", async () => {
    const r = await v1.callTool({ name: "search_tools", arguments: { query: "list directory" } });
    expect(r.structuredContent.results[0].address).toBe("filesystem.list_directory");
  });
});
