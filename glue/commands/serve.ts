// `atrium serve`: the stdio MCP server. stdout carries protocol only. Connectors start in
// parallel without blocking initialize; every child ends when atrium ends. Events go to the
// activity log (<stateDir>/activity) unless atrium.log.enabled is false; what is queued is
// written before the process exits (within the shutdown grace). Edits of the config file apply
// while it serves (config/reload.ts).
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
  // The sandbox workers start warming first; the MCP SDK and the server load meanwhile.
  const pool = startSandboxPool(config.sandbox);
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

  // Connectors start now, in parallel, and stdio is served at once: initialize waits neither for
  // them nor for the sandbox workers, which createApp spawned and which warm in the background
  // (a run waits for its worker's ready, so only a program sent at once shares the warm-up).
  const started = app.registry.startAll();
  // Both revisions on one stdio: the SDK's entry picks the era from the opening message (an
  // initialize handshake is 2025-11-25; a request whose _meta claims 2026-07-28 is that) and pins
  // one server instance for the connection. The transport closes when stdin or stdout fails (the
  // host closed its end: EPIPE): same end as stdin closing.
  for (const era of ["legacy", "modern"] as const) app.serverFor(revisionOf(era)); // registers each revision's methods for the guard
  const transport = new BoundedStdioTransport({ serves: AtriumServer.serves, onClosed: () => void stop(0) });
  serveStdio((ctx) => app.serverFor(revisionOf(ctx.era)), { transport, legacy: "serve", onerror: () => {} });
  // The search model loads in its worker once every connector's first start has settled, so it
  // never competes with a cold start for the CPU; search is lexical until its vectors are ready.
  void started.then(() => app.semantic.start());
  if (process.stderr.isTTY) started.then(() => process.stderr.write(banner(app, source, version)));
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
