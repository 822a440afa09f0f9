// `atrium serve`: the stdio MCP server. stdout carries protocol only. Only what initialize needs
// is loaded and run before it is answered: the connectors (in parallel) and the sandbox workers
// start once the input waiting at start has been answered, and every request that needs them
// waits for them; every child ends when atrium ends. Events go to the activity log
// (<stateDir>/activity) unless atrium.log.enabled is false; what is queued is written before the
// process exits (within the shutdown grace). Edits of the config file apply while it serves
// (config/reload.ts).
import { binPath } from "../support/paths.js";
import type { AtriumConfig } from "../config/schema.js";
import { startSandboxPool } from "../sandbox/start-pool.js";
import { stateDir } from "../support/state-dir.js";
import type { createApp } from "../app.js";
import { SHUTDOWN_GRACE_MS } from "../decisions/generated/spec.js";
import { CLI_COLUMNS, JSON_INDENT } from "../support/format.js";
import { startObserver } from "../observability/start.js";

/** `file`: the config file atrium was started with (none for the embedded demo); its edits are applied live. */
export async function serve(config: AtriumConfig, source: string, version: string, file?: string): Promise<void> {
  // What initialize does not need waits for this: the host's first message is answered first.
  let served!: () => void;
  const initializeAnswered = new Promise<void>((resolve) => { served = resolve; });
  const pool = startSandboxPool(config.sandbox, initializeAnswered);
  const [{ createApp }, { BoundedStdioTransport }, { serveStdio }, { revisionOf, AtriumServer }, { openActivityLog }] = await Promise.all([
    import("../app.js"), import("../transport/bounded-stdio.js"), import("@modelcontextprotocol/server/stdio"), import("../mcp/server.js"), import("../activity/log.js"),
  ]);
  const log = config.log.enabled ? openActivityLog(stateDir()) : undefined;
  // Traces only when an OTLP endpoint is set (no /metrics on stdio): glue/observability/.
  const { observer } = await startObserver({ version, transport: "stdio", metrics: false });
  const app = createApp(config, version, pool, log, file === undefined ? undefined : { file }, { shared: false, observer });
  // `atrium pins accept|reject` in a terminal changes the pin file: judged again when noticed.
  app.pins.watch();
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    app.reload?.close();
    await Promise.race([Promise.all([app.registry.stopAll().then(() => log?.flush()), observer.shutdown().catch(() => {})]), new Promise((r) => setTimeout(r, SHUTDOWN_GRACE_MS).unref())]);
    app.registry.killAll();
    process.exit(code);
  };
  process.on("exit", () => app.registry.killAll());
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGINT", () => void stop(0));
  process.stdin.on("end", () => void stop(0));
  process.stdin.on("close", () => void stop(0));
  // A host that closed atrium's stderr must not turn a log line into a crash.
  process.stderr.on("error", () => {});

  // Connectors start in parallel once initialize is answered, and stdio is served at once:
  // initialize waits neither for them nor for the sandbox workers, and neither competes with it
  // for the CPU. Each connector's first attempt is under way from now (a call waits for it), and
  // a run waits for its worker's ready, so a request sent at once waits for what it needs.
  const started = app.registry.startAll(initializeAnswered);
  // Both revisions on one stdio: the SDK's entry picks the era from the opening message (an
  // initialize handshake is 2025-11-25; a request whose _meta claims 2026-07-28 is that) and pins
  // one server instance for the connection. The transport closes when stdin or stdout fails (the
  // host closed its end: EPIPE): same end as stdin closing.
  for (const era of ["legacy", "modern"] as const) app.serverFor(revisionOf(era)); // registers each revision's methods for the guard
  const transport = new BoundedStdioTransport({ serves: AtriumServer.serves, onClosed: () => void stop(0) });
  serveStdio((ctx) => app.serverFor(revisionOf(ctx.era)), { transport, legacy: "serve", onerror: () => {} });
  void afterWaitingInput().then(served);
  // The search model loads in its worker once every connector's first start has settled, so it
  // never competes with a cold start for the CPU; search is lexical until its vectors are ready.
  void started.then(() => app.semantic.start());
  if (process.stderr.isTTY) started.then(() => process.stderr.write(banner(app, source, version)));
}

/**
 * Resolves once the loop has read the input already waiting on stdin and answered it: a host
 * writes initialize as it spawns atrium, and its answer needs no I/O, so it is written within the
 * loop turn that reads it. The first turn's check phase comes before that read (stdin was only
 * just opened); the second's comes after it. With nothing waiting, this is at once.
 */
function afterWaitingInput(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

function banner(app: ReturnType<typeof createApp>, source: string, version: string): string {
  const entries = app.catalog.entries();
  const ro = entries.filter((e) => e.safety === "read_only").length;
  const lines = app.registry.connectors.map((c) => `  ${c.id.padEnd(CLI_COLUMNS.connectorId)} ${c.state.padEnd(CLI_COLUMNS.connectorState)} ${c.tools.length} tools${c.problem ? `  (${c.problem})` : ""}`);
  const snippet = JSON.stringify({ mcpServers: { atrium: { command: process.execPath, args: [binPath, ...(source.startsWith("embedded") ? [] : ["--config", source])] } } }, null, JSON_INDENT);
  return [
    `atrium ${version} is serving MCP on stdio (this terminal is not a host: it waits for JSON-RPC on stdin).`,
    `config: ${source}`,
    `connectors: ${app.registry.connectors.length}, tools: ${entries.length} (${ro} read-only, ${entries.length - ro} approval-required)`,
    ...lines,
    "",
    "Add atrium to a host (Claude Desktop, VS Code, Cursor…) with:",
    snippet,
    "",
    "Press Ctrl-C to stop.",
    "",
  ].join("\n");
}
