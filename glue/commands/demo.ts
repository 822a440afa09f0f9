// `atrium demo`: a scripted session against a real atrium over stdio (this same command,
// serving its embedded demo connector): discovery, one program, a destructive refusal, and a
// rendered service-desk view written to an HTML file the person can open.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { binPath, demoServerPath } from "../support/paths.js";
import { stateDir } from "../support/state-dir.js";
import { DESK_PROGRAM } from "../demo/desk-program.js";
import { openLiveHost } from "../demo/live-host.js";
import type { Flags } from "./args.js";
import { beforeOutputClosedExit } from "./output-closed.js";
import { DEMO_CALL_TIMEOUT_MS, DEMO_RESULTS_SHOWN, DEMO_START_POLL_MS, DEMO_START_POLLS_MAX } from "../decisions/generated/spec.js";
import { BYTES_PER_KIB, CLI_COLUMNS } from "../support/format.js";

/** `flags` come checked from the command line (commands/args.ts): `--out DIR`, `--serve`, `--port N` (only with --serve). */
export async function demo(flags: Flags, version: string): Promise<number> {
  const outDir = typeof flags.out === "string" ? resolve(flags.out) : mkdtempSync(join(tmpdir(), "atrium-demo-"));
  const serveLive = flags.serve === true;
  const portFlag = typeof flags.port === "string" ? Number(flags.port) : undefined;
  // The live host's port is opened before anything runs, so a busy one is said at once, in one line.
  const live = serveLive ? await openLiveHost(version, portFlag) : undefined;
  if (live && "refused" in live) {
    process.stderr.write(`atrium demo --serve: ${live.refused}\n`);
    return 1;
  }
  const work = mkdtempSync(join(tmpdir(), "atrium-demo-config-"));
  const configPath = join(work, "atrium.json");
  // The session declares MCP Apps, so atrium offers the view inline; the operator setting
  // "file" makes the first run write the offline file a person can open without a host.
  writeFileSync(configPath, JSON.stringify({ mcpServers: { desk: { command: process.execPath, args: [demoServerPath] } }, atrium: { views: { delivery: serveLive ? "auto" : "file", directory: outDir } } }));

  const say = (s = "") => process.stdout.write(`${s}\n`);
  const client = new Client({ name: "atrium-demo", version }, { capabilities: serveLive ? ({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } as never) : {} });
  // The SDK passes a child only a few variables (PATH, HOME…): the state directory is handed on as this command resolved it.
  const transport = new StdioClientTransport({ command: process.execPath, args: [binPath, "--config", configPath], stderr: "pipe", env: { ATRIUM_STATE_DIR: stateDir() } });
  // Ending early (the reader of stdout went away) still ends this session's atrium and removes its config.
  const end = async () => { await client.close().catch(() => {}); rmSync(work, { recursive: true, force: true }); };
  const forget = beforeOutputClosedExit(end);
  const call = async (name: string, args: Record<string, unknown>) => client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { timeout: DEMO_CALL_TIMEOUT_MS });
  try {
    say(`atrium ${version} demo: a scripted session with a real atrium over stdio, in front of the embedded service-desk connector.\n`);
    let t = performance.now();
    await client.connect(transport);
    say(`1. initialize (${ms(t)}): server ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}; it declares MCP Apps (${Object.keys(client.getServerCapabilities()?.extensions ?? {}).join(", ")})`);
    const { tools } = await client.listTools();
    say(`2. tools/list: the model sees ${tools.length} tools (${(Buffer.byteLength(JSON.stringify(tools)) / BYTES_PER_KIB).toFixed(1)} KB): ${tools.map((x) => x.name).join(", ")}`);
    t = performance.now();
    // Connectors start in the background; a search while the desk is still starting would
    // answer from an empty catalog (and say so under `unavailable`), so the story waits for it.
    let found = (await call("search_tools", { query: "open incidents" })).structuredContent as any;
    for (let i = 0; i < DEMO_START_POLLS_MAX && found.unavailable?.some((u: { state: string }) => u.state === "starting"); i++) {
      await new Promise((r) => setTimeout(r, DEMO_START_POLL_MS));
      found = (await call("search_tools", { query: "open incidents" })).structuredContent as any;
    }
    say(`3. search_tools "open incidents" (${ms(t)}):`);
    for (const r of found.results.slice(0, DEMO_RESULTS_SHOWN)) say(`     ${r.address.padEnd(CLI_COLUMNS.address)} ${r.safety.padEnd(CLI_COLUMNS.safety)} ${r.score}  ${r.description}`);
    t = performance.now();
    const runResult = await call("execute_code", { code: DESK_PROGRAM, diagnostics: true });
    const run = runResult.structuredContent as any;
    if (!run.ok) throw new Error(`the demo program failed: ${JSON.stringify(run.error)}`);
    say(`4. execute_code: one program made ${run.diagnostics.hostCalls} host calls through atrium.batch in ${ms(t)} and returned only the summary the model reads:`);
    say(`     ${JSON.stringify(run.value)}`);
    const refused = (await call("call_tool", { address: "desk.close_incident", args: { id: "INC-1042", resolution: "demo" } })).structuredContent as any;
    say(`5. call_tool desk.close_incident → refused: ${refused.error.code} (retryable: ${refused.error.retryable}); next: ${refused.error.nextAction.tool}, after the person approves`);
    if (!live) {
      say(`6. the program's view (${run.view.delivery} delivery; an MCP Apps host would show it inline):`);
      say(`     ${run.view.path}`);
      say(`   open it in a browser; it runs sandboxed and offline (refresh and drill-down need a live host:`);
      say(`   run \`atrium demo --serve\` for a local MCP Apps host where they work).`);
      return 0;
    }
    say(`6. the program's view was delivered ${run.view.delivery} (this session declared MCP Apps), with the shell ui://atrium/view/v1`);
    const shell = await client.readResource({ uri: "ui://atrium/view/v1" });
    live.show({ shell: (shell.contents[0] as { text: string }).text, result: runResult, callTool: (name, args) => call(name, args) });
    say(`7. live view: ${live.url}  (a local MCP Apps host; refresh and drill-down call atrium). Ctrl-C to stop.`);
    await new Promise<void>((resolve) => { process.once("SIGINT", resolve); process.once("SIGTERM", resolve); });
    return 0;
  } finally {
    live?.server.close();
    forget();
    await end();
  }
}

const ms = (t: number) => `${(performance.now() - t).toFixed(0)} ms`;
