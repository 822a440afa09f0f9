// Builds the client transport for one connector entry: a stdio child (stderr kept in the
// ring) or a remote Streamable HTTP server (with its headers).
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ConnectorConfig } from "../config/schema.js";
import type { StderrRing } from "./stderr-ring.js";

export interface ConnectorTransport { transport: Transport; pid(): number | null }

export function createTransport(config: ConnectorConfig, stderr: StderrRing): ConnectorTransport {
  if (config.kind === "http") {
    const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    return { transport, pid: () => null };
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    // The SDK adds a safe default environment (PATH, HOME…) under the entry's own variables.
    env: Object.keys(config.env).length > 0 ? config.env : undefined,
    cwd: config.cwd ?? undefined,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer | string) => stderr.push(chunk.toString()));
  return { transport, pid: () => transport.pid };
}
