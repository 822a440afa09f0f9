#!/usr/bin/env node
// One end-to-end run over real stdio: spawns `atrium` with a config of real MCP servers
// (the embedded demo, server-filesystem on a temporary folder, server-memory,
// server-everything) and checks the whole surface. Prints one line per check, then
// `N ok` and `all checks passed`, or FAIL and a non-zero exit. Its state (pins, log, views) stays
// in the temporary folder. test/smoke.test.ts runs it as part of `npm test`.
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { ensureTestServers, testServerBin } from "./test/servers/install.mjs";

const repo = dirname(fileURLToPath(import.meta.url));
ensureTestServers();
const bin = testServerBin;
const dir = mkdtempSync(join(tmpdir(), "atrium-smoke-"));
writeFileSync(join(dir, "hello.txt"), "hello from the smoke run\n");
const config = {
  mcpServers: {
    desk: { command: process.execPath, args: [join(repo, "dist/glue/demo/server.js")] },
    fs: { command: bin("mcp-server-filesystem"), args: [dir] },
    memory: { command: bin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
    everything: { command: bin("mcp-server-everything"), args: ["stdio"] },
  },
};
writeFileSync(join(dir, "atrium.json"), JSON.stringify(config));

let n = 0;
const check = (name, ok, detail = "") => {
  if (!ok) { console.log(`FAIL ${name}${detail ? `: ${detail}` : ""}`); void cleanup(1); throw new Error(`smoke check failed: ${name}`); }
  console.log(`ok ${++n} ${name}`);
};
const transport = new StdioClientTransport({ command: process.execPath, args: [join(repo, "bin/atrium.js"), "--config", join(dir, "atrium.json")], stderr: "pipe", env: { ATRIUM_STATE_DIR: join(dir, "state") } });
let stderr = "";
transport.stderr?.on("data", (c) => { stderr += c; });
const client = new Client({ name: "smoke", version: "1" }, { capabilities: {} });
async function cleanup(code) {
  await client.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  if (code) { console.log(stderr.slice(-2000)); process.exit(code); }
}
const call = async (name, args) => client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { timeout: 30_000 });
const json = async (name, args) => (await call(name, args)).structuredContent;

const t0 = performance.now();
await client.connect(transport);
check(`initialize over stdio (${(performance.now() - t0).toFixed(0)} ms)`, client.getServerVersion()?.name === "atrium");
check("server declares io.modelcontextprotocol/ui", !!client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/ui"]);
const { tools } = await client.listTools();
const metaTools = tools.map((t) => t.name).sort().join();
check("tools/list shows the meta-tools only", metaTools === "authorize_connector,call_destructive_tool,call_tool,execute_code,get_result,search_tools,skills", metaTools);
// Connectors start in the background (initialize never waits for them): give each its first
// attempt, as a host's model would by searching again when `unavailable` says "starting".
let all = await json("search_tools", { query: "", limit: 50 });
for (let i = 0; i < 600 && all.unavailable?.some((u) => u.state === "starting"); i++) {
  await new Promise((r) => setTimeout(r, 100));
  all = await json("search_tools", { query: "", limit: 50 });
}
check(`search spans 4 connectors (${all.total} tools)`, !all.unavailable && all.total > 30);
const inc = await json("search_tools", { query: "open incidents" });
check("search ranks desk.list_incidents first for 'open incidents'", inc.results[0]?.address === "desk.list_incidents");
const read = await call("call_tool", { address: "fs.read_text_file", args: { path: join(dir, "hello.txt") } });
check("call_tool reads a real file", JSON.stringify(read.content).includes("hello from the smoke run"));
const v = await json("call_tool", { address: "desk.list_incidents", args: { status: "open" }, resultMode: "value", fields: ["incidents[].id"] });
check("value mode with fields", v.ok && v.data.incidents.length > 0 && Object.keys(v.data.incidents[0]).join() === "id");
const refused = await call("call_tool", { address: "fs.write_file", args: { path: join(dir, "x.txt"), content: "x" } });
check("call_tool refuses a write with destructive_tool_requires_approval", refused.structuredContent?.error?.code === "destructive_tool_requires_approval");
const wrote = await call("call_destructive_tool", { address: "fs.write_file", args: { path: join(dir, "x.txt"), content: "approved" }, reason: "smoke" });
check("call_destructive_tool writes after approval", !wrote.isError && readFileSync(join(dir, "x.txt"), "utf8") === "approved");
const sum = await json("call_tool", { address: "everything.get-sum", args: { a: 20, b: 22 }, resultMode: "value" });
check("server-everything answers through atrium", JSON.stringify(sum.data).includes("42"));
const unknown = await call("call_tool", { address: "desk.nope" });
check("unknown tool is a typed error", unknown.structuredContent?.error?.code === "unknown_tool");
const prog = await json("execute_code", { code: `async () => {
  const s = await atrium.search("open incidents");
  const [inc, svcs, file] = await atrium.batch([
    { address: s.results[0].address, args: { status: "open", limit: 50 } },
    { address: "desk.list_services", args: {} },
    { address: "fs.read_text_file", args: { path: ${JSON.stringify(join(dir, "hello.txt"))} } },
  ]);
  const bySvc = {};
  for (const i of inc.data.incidents) bySvc[i.service] = (bySvc[i.service] ?? 0) + 1;
  return { open: inc.data.incidents.length, services: svcs.data.services.length, busiest: Object.entries(bySvc).sort((a, b) => b[1] - a[1])[0][0], file: file.ok };
}` });
check("execute_code: search + batch across two connectors, reduced in the program", prog.ok && prog.value.open > 0 && prog.value.services === 6 && prog.value.file === true);
const sum2 = await json("execute_code", { code: "async () => everything.get_sum({ a: 1, b: 2 })" });
check("execute_code: connector global with a dashed tool name (everything.get_sum)", sum2.ok && JSON.stringify(sum2.value).includes("3"));
const write = await json("execute_code", { code: `async () => { try { await fs.write_file({ path: "/tmp/x", content: "x" }); return "wrote"; } catch (e) { return e.code; } }` });
check("execute_code: a write from a program is refused by the same gate", write.ok && write.value === "destructive_tool_requires_approval");
const bomb = await call("execute_code", { code: "async () => { while (true) {} }" });
check("execute_code: a CPU bomb is stopped with a typed error", bomb.isError && bomb.structuredContent.error.code === "budget_exceeded");
const after = await json("execute_code", { code: "async () => 6 * 7" });
check("execute_code: the next program runs normally", after.ok && after.value === 42);
const usage = await call("skills", { name: "usage" });
check("skills usage is served", usage.content[0].text.startsWith("# Using atrium"));
await cleanup(0);
console.log(`${n} ok`);
console.log("all checks passed");
