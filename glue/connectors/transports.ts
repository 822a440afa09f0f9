// Builds the client transport for one connector entry: a stdio child (stderr kept in the
// ring, its exit status remembered for start-failure messages, the nesting marker in its
// environment) or a remote Streamable HTTP server (with its headers).
import type { ChildProcess } from "node:child_process";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ConnectorConfig } from "../config/schema.js";
import type { StderrRing } from "./stderr-ring.js";
import type { ExitFacts } from "./start-failure.js";
import { NESTING_ENV } from "./nesting.js";

export interface ConnectorTransport { transport: Transport; pid(): number | null; exit(): ExitFacts | undefined }

export function createTransport(config: ConnectorConfig, stderr: StderrRing, depth: number): ConnectorTransport {
  if (config.kind === "http") {
    const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    return { transport, pid: () => null, exit: () => undefined };
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    // The SDK adds a safe default environment (PATH, HOME…) under the entry's own variables;
    // the nesting marker goes last so a config cannot reset it.
    env: { ...config.env, [NESTING_ENV]: String(depth) },
    cwd: config.cwd ?? undefined,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer | string) => stderr.push(chunk.toString()));
  // The SDK (1.x) does not report the child's exit status; it spawns synchronously inside
  // start(), so the child is there to watch right after start() is called.
  let exit: ExitFacts | undefined;
  const start = transport.start.bind(transport);
  transport.start = () => {
    const started = start();
    const child = (transport as unknown as { _process?: ChildProcess })._process;
    child?.once("exit", (code, signal) => { exit = { code, signal }; });
    return started;
  };
  return { transport, pid: () => transport.pid, exit: () => exit };
}
