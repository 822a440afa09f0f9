// A real `atrium serve --http` child for the tests: its own temporary folder and state, an
// ephemeral port read from its banner, and SDK clients connected over Streamable HTTP on either
// revision. stop() sends a signal and resolves with the exit code once the process has ended.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { atriumBin } from "./atrium-client.js";

export interface HttpAtrium {
  /** The /mcp URL. */
  url: string;
  /** The origin (http://127.0.0.1:port). */
  base: string;
  proc: ChildProcess;
  dir: string;
  stderr: () => string;
  /** Sends `signal` (default SIGTERM); resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startHttpAtrium(opts: { config?: unknown; listen?: string; env?: Record<string, string> } = {}): Promise<HttpAtrium> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-http-"));
  const args = [atriumBin, "serve", "--http", "--listen", opts.listen ?? "127.0.0.1:0"];
  if (opts.config !== undefined) {
    writeFileSync(join(dir, "atrium.json"), JSON.stringify(opts.config));
    args.push("--config", join(dir, "atrium.json"));
  }
  const proc = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, ATRIUM_STATE_DIR: join(dir, "state"), ...opts.env }, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const m = /serving MCP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`atrium serve --http exited (${code}) before serving:\n${err}`)));
  });
  return {
    url,
    base: new URL(url).origin,
    proc,
    dir,
    stderr: () => err,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

export interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** An SDK client on `revision` (2025-11-25: initialize and a session; 2026-07-28: stateless), with extra headers (a bearer token). */
export async function connectHttp(url: string, opts: { revision?: "2025-11-25" | "2026-07-28"; headers?: Record<string, string>; capabilities?: Record<string, unknown>; fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response> } = {}): Promise<HttpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: opts.headers ?? {} }, ...(opts.fetch && { fetch: opts.fetch }) });
  const client = new Client(
    { name: "atrium-http-test", version: "0.0.0" },
    { capabilities: { ...opts.capabilities } as never, ...(opts.revision === "2026-07-28" && { versionNegotiation: { mode: { pin: "2026-07-28" } } }) },
  );
  await client.connect(transport);
  return {
    client,
    transport,
    call: async (name, a = {}) => (await client.request({ method: "tools/call", params: { name, arguments: a } }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult,
    close: () => client.close().catch(() => {}),
  };
}
