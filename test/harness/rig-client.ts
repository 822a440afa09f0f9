// An SDK client for the replica rig whose every HTTP request carries an `x-rig-request` tag, so
// haproxy's log (haproxy.ts `served()`) says which replica served which call. A call's tag rides
// in an AsyncLocalStorage from call() down to the transport's fetch, so concurrent calls on one
// client keep their own tags; requests made outside call() (connect, the SDK's own) are tagged
// `<name>:sdk:<n>`.
import { AsyncLocalStorage } from "node:async_hooks";
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { CallToolResultSchema, ListToolsResultSchema } from "@modelcontextprotocol/core";
import { RIG_REQUEST_HEADER } from "./haproxy.js";

export interface TaggedClient {
  readonly name: string;
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** tools/call under `tag` (default `<name>:<n>`); the answer, or the thrown error, and the tag used. */
  call(tool: string, args?: Record<string, unknown>, tag?: string): Promise<{ tag: string; result?: CallToolResult; error?: Error }>;
  /** tools/list under a tag: the tool names, or the thrown error. */
  listTools(tag?: string): Promise<{ tag: string; names?: string[]; error?: Error }>;
  close(): Promise<void>;
}

const tags = new AsyncLocalStorage<string>();

export async function connectTagged(url: string, opts: { name: string; revision: "2025-11-25" | "2026-07-28"; headers?: Record<string, string> }): Promise<TaggedClient> {
  let n = 0;
  let sdk = 0;
  const fetchTagged = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set(RIG_REQUEST_HEADER, tags.getStore() ?? `${opts.name}:sdk:${++sdk}`);
    return fetch(input, { ...init, headers });
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: fetchTagged, requestInit: { headers: opts.headers ?? {} } });
  const client = new Client({ name: "atrium-rig", version: "0.0.0" }, opts.revision === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
  await client.connect(transport);
  const under = async <T>(tag: string | undefined, run: () => Promise<T>) => {
    const t = tag ?? `${opts.name}:${++n}`;
    try {
      return { tag: t, value: await tags.run(t, run) };
    } catch (e) {
      return { tag: t, error: e as Error };
    }
  };
  return {
    name: opts.name,
    client,
    transport,
    async call(tool, args = {}, tag) {
      const r = await under(tag, () => client.request({ method: "tools/call", params: { name: tool, arguments: args } }, CallToolResultSchema, { timeout: 120_000 }));
      return { tag: r.tag, result: r.value as CallToolResult | undefined, error: r.error };
    },
    async listTools(tag) {
      const r = await under(tag, () => client.request({ method: "tools/list", params: {} }, ListToolsResultSchema, { timeout: 120_000 }));
      return { tag: r.tag, names: r.value?.tools.map((t) => t.name), error: r.error };
    },
    close: () => client.close().catch(() => {}),
  };
}
