// Starts a real atrium over stdio (node bin/atrium.js) with a config file, and connects a real
// MCP client to it. Optionally declares the MCP Apps extension like an Apps host would.
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { Client, type CallToolResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { waitFor } from "./until.js";

export const repo = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/dist\/?$/, "").replace(/\/$/, "");
export const atriumBin = join(repo, "bin/atrium.js");
export const fixture = (name: string) => join(repo, "dist/test/fixtures", `${name}.js`);
export const demoServer = join(repo, "dist/glue/demo/server.js");
/** A real MCP server from npm (test/servers, installed by test/servers/install.mjs). */
export const npmBin = (name: string) => join(repo, "test/servers/node_modules/.bin", name);

export interface Atrium {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  call(name: string, args?: Record<string, unknown>, timeout?: number): Promise<CallToolResult>;
  /** The JSON body of a meta-tool result (its structuredContent). */
  json(name: string, args?: Record<string, unknown>): Promise<any>;
  /** Runs a program with execute_code and returns its value; throws with the envelope if it failed. */
  value(code: string): Promise<any>;
  close(): Promise<void>;
  dir: string;
}

/** `revision`: the protocol revision the client speaks (default 2025-11-25, the initialize handshake). */
/** `capabilities`: more client capabilities to declare (e.g. elicitation); `beforeConnect`: installs the client's own request handlers. */
/** `bin`: another build's bin/atrium.js (the start-up bench's baseline); this repo's by default. */
export async function startAtrium(opts: { config?: unknown; apps?: boolean; env?: Record<string, string>; waitForConnectors?: boolean; revision?: "2025-11-25" | "2026-07-28"; capabilities?: Record<string, unknown>; beforeConnect?: (client: Client) => void; bin?: string } = {}): Promise<Atrium> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-test-"));
  const args = [opts.bin ?? atriumBin];
  if (opts.config !== undefined) {
    writeFileSync(join(dir, "atrium.json"), JSON.stringify(opts.config));
    args.push("--config", join(dir, "atrium.json"));
  }
  // Every atrium under test keeps its state (view files…) in its own temporary folder, never the real home.
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: "pipe", env: { ATRIUM_STATE_DIR: join(dir, "state"), ...opts.env } });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => { err += c.toString(); });
  const client = new Client(
    { name: "atrium-test", version: "0.0.0" },
    {
      capabilities: { ...(opts.apps && { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } }), ...opts.capabilities } as never,
      ...(opts.revision === "2026-07-28" && { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
    },
  );
  opts.beforeConnect?.(client);
  await client.connect(transport);
  const call = async (name: string, a: Record<string, unknown> = {}, timeout = 60_000) =>
    (await client.request({ method: "tools/call", params: { name, arguments: a } }, CallToolResultSchema, { timeout })) as CallToolResult;
  // Connectors start in the background; most suites want to begin once each has made its first attempt.
  if (opts.waitForConnectors !== false) await connectorsSettled(call);
  return {
    client,
    transport,
    dir,
    stderr: () => err,
    call,
    async json(name, a) {
      const r = await call(name, a);
      return r.structuredContent;
    },
    async value(code) {
      return programValue(await call("execute_code", { code }));
    },
    async close() {
      await client.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `{ mcpServers: { id: { command: node, args: [script] , ...extra } } }` for compiled scripts. */
export function nodeServer(script: string, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [script], ...extra };
}

/**
 * Polls search_tools until no connector is still in its first start attempt. Bounded, and running
 * out is not a failure: a suite that starts a connector that never answers goes on after `timeoutMs`.
 */
export async function connectorsSettled(call: (name: string, a?: Record<string, unknown>) => Promise<CallToolResult>, timeoutMs = 60_000): Promise<void> {
  const settled = async () => {
    const r = (await call("search_tools", { query: "", limit: 1 })).structuredContent as { unavailable?: { state: string }[] } | undefined;
    return !r?.unavailable?.some((u) => u.state === "starting");
  };
  await waitFor(settled, "every connector past its first start attempt", timeoutMs).catch(() => undefined);
}

/** The value of a program's result; throws with (the start of) the envelope if it failed. */
export function programValue(r: { isError?: boolean; structuredContent?: any }): any {
  if (r.isError || !r.structuredContent?.ok) throw new Error(`program failed: ${JSON.stringify(r.structuredContent).slice(0, 2000)}`);
  return r.structuredContent.value;
}
