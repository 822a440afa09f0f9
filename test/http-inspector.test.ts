// The official MCP Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3, in test/servers) as
// a client of a real `atrium serve --http`, over Streamable HTTP: tools/list, and tools/call of
// search_tools and execute_code, each a child process whose JSON output the tests read.
//
// Why this package and version: @modelcontextprotocol/inspector 2.x declares node >=22.19 (atrium
// supports Node 20), and its `--cli` mode is the same code as inspector-cli, which has no engines
// bound, runs on Node 20, and downloads nothing at run time (its dependencies are the SDK 1 line,
// commander, express and spawn-rx). 1.0.3 is the newest. It prints a deprecation notice on stderr
// (v1 "receives security fixes only"); the JSON goes to stdout alone. Built on SDK 1.32.2, it
// speaks 2025-11-25 (initialize, then Mcp-Session-Id) — the 2026-07-28 side is covered by
// test/http-serve.test.ts and the browser host in test/browser/http-apps-host.test.ts.
//
// Its entry (build/cli.js --cli) runs build/index.js with `node` from PATH; PATH here starts with
// this Node's folder so both are the Node under test. index.js reads its own package.json as
// `fs.existsSync("../package.json")`, relative to the working directory rather than to itself:
// run from anywhere else it fails with "Cannot find module …/@modelcontextprotocol/package.json".
// Its working directory is therefore its own build/ folder (an Inspector bug, not atrium's).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join, delimiter } from "node:path";
import { repo, programValue } from "./harness/atrium-client.js";
import { startHttpAtrium, connectHttp, type HttpAtrium } from "./harness/atrium-http.js";
import { waitFor } from "./harness/until.js";

const inspectorDir = join(repo, "test/servers/node_modules/@modelcontextprotocol/inspector-cli");
const inspectorCli = join(inspectorDir, "build/cli.js");

let atrium: HttpAtrium;
/** Inspector processes still running (each in its own process group: cli.js and the index.js it starts). */
const running = new Set<ChildProcess>();

beforeAll(async () => {
  atrium = await startHttpAtrium();
  // The demo connector starts in the background: begin once its tools are in the catalog.
  const c = await connectHttp(atrium.url, { revision: "2025-11-25" });
  try {
    await waitFor(async () => programValue(await c.call("execute_code", { code: "return (await atrium.search('services')).total" })) > 0, "the demo connector's tools", 60_000);
  } finally {
    await c.close();
  }
}, 90_000);
afterAll(async () => {
  for (const child of running) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await atrium?.stop();
});

interface InspectorRun { code: number | null; stdout: string; stderr: string }

/** Runs the Inspector CLI against atrium's /mcp over Streamable HTTP; resolves when it has exited. */
function inspector(...args: string[]): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [inspectorCli, "--cli", atrium.url, "--transport", "http", ...args], {
      cwd: join(inspectorDir, "build"),
      env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    running.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("error", reject);
    // "close": the exit and the end of both pipes (the grandchild writes to them too).
    child.once("close", (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The Inspector's JSON answer; a failed run fails the test with what it printed. */
async function inspectorJson(...args: string[]): Promise<any> {
  const r = await inspector(...args);
  if (r.code !== 0) throw new Error(`inspector ${args.join(" ")} exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  return JSON.parse(r.stdout);
}

describe("the MCP Inspector CLI against serve --http (Streamable HTTP, 2025-11-25)", () => {
  it("tools/list shows atrium's meta-tools, execute_code with its code argument required", async () => {
    const out = await inspectorJson("--method", "tools/list");
    const names = out.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(["execute_code", "search_tools", "call_tool", "call_destructive_tool", "get_result", "skills"]));
    const exec = out.tools.find((t: { name: string }) => t.name === "execute_code");
    expect(exec.inputSchema.required).toContain("code");
    expect(exec.description).toContain("Connectors: desk");
  }, 60_000);

  it("tools/call search_tools finds the demo connector's tool for the words asked", async () => {
    const out = await inspectorJson("--method", "tools/call", "--tool-name", "search_tools", "--tool-arg", "query=list services");
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent.results[0].address).toBe("desk.list_services");
    // The text block carries the same answer, for clients that read only content.
    expect(JSON.parse(out.content[0].text).results[0].address).toBe("desk.list_services");
  }, 60_000);

  it("tools/call execute_code runs a tiny program and returns its value, 2", async () => {
    const out = await inspectorJson("--method", "tools/call", "--tool-name", "execute_code", "--tool-arg", "code=async () => 1 + 1");
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent).toEqual({ ok: true, value: 2 });
    expect(JSON.parse(out.content[0].text)).toEqual({ ok: true, value: 2 });
  }, 60_000);

  it("tools/call execute_code runs a program that calls the demo connector through atrium", async () => {
    const out = await inspectorJson("--method", "tools/call", "--tool-name", "execute_code", "--tool-arg", "code=async () => (await desk.list_services({})).services.length");
    expect(out.structuredContent.ok).toBe(true);
    expect(out.structuredContent.value).toBeGreaterThan(0);
  }, 60_000);

  it("a program that throws comes back as a tool error with atrium's error envelope, not a crash", async () => {
    const out = await inspectorJson("--method", "tools/call", "--tool-name", "execute_code", "--tool-arg", "code=async () => { throw new Error('boom from the program') }");
    expect(out.isError).toBe(true);
    expect(out.structuredContent).toMatchObject({ ok: false, error: { code: "program_error", message: "boom from the program", retryable: false } });
  }, 60_000);

  it("a tool atrium does not have is refused: the Inspector exits 1 with atrium's message naming its meta-tools", async () => {
    const r = await inspector("--method", "tools/call", "--tool-name", "no_such_tool");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("MCP error -32602: Unknown tool: no_such_tool");
    expect(r.stderr).toContain("execute_code");
  }, 60_000);
});
