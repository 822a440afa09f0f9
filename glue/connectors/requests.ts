// The requests a ready connector carries for calls/invoke.ts, on its current connection: one
// tools/call (its deadline the connector's timeoutMs, or its caller's time left when shorter; the
// answer read as a tool result), one resources/read, one prompts/list page or prompts/get (the
// answer as read). Every failure becomes a typed error (request-errors.ts).
import type { Client, ProgressCallback } from "@modelcontextprotocol/client";
import { AtriumError } from "../support/errors.js";
import { LooseResult, readToolResult, type ToolResult } from "./downstream-shapes.js";
import { requestFailure, type FailedOn } from "./request-errors.js";

/** One tools/call. With `onprogress` the call carries a progress token and each of the downstream's progress notifications goes there, unchecked. */
export async function callTool(client: Client, on: FailedOn, name: string, args: Record<string, unknown>, opts: { timeLeftMs?: number; signal?: AbortSignal; onprogress?: ProgressCallback }): Promise<ToolResult> {
  const timeoutMs = Math.min(on.config.timeoutMs, Math.ceil(opts.timeLeftMs ?? Infinity));
  if (timeoutMs <= 0) throw new AtriumError("timeout", `no time is left for ${on.id}.${name}: the program's run is out of time (program_wall_ms)`, { details: { address: `${on.id}.${name}`, budget: "program_wall_ms" } });
  let raw: Record<string, unknown>;
  try {
    raw = await client.request({ method: "tools/call", params: { name, arguments: args } }, LooseResult, { timeout: timeoutMs, signal: opts.signal, onprogress: opts.onprogress });
  } catch (e) {
    throw requestFailure(on, name, e, { timeoutMs, signal: opts.signal });
  }
  const read = readToolResult(raw);
  if (!read.ok) throw new AtriumError("connector_call_failed", `${on.id}.${name} returned a malformed result: ${read.reason}`, { details: { connector: on.id } });
  return read.value;
}

/** One resources/read (a downstream app's UI document), with the connector's deadline. */
export async function readResource(client: Client, on: FailedOn, uri: string, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
  try {
    return await client.request({ method: "resources/read", params: { uri } }, LooseResult, { timeout: on.config.timeoutMs, signal: opts.signal });
  } catch (e) {
    throw requestFailure(on, uri, e, { timeoutMs: on.config.timeoutMs, signal: opts.signal });
  }
}

/** One prompts/list page or prompts/get, with the connector's deadline. */
export async function askPrompts(client: Client, on: FailedOn, method: "prompts/list" | "prompts/get", params: Record<string, unknown>, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
  try {
    return await client.request({ method, params } as never, LooseResult, { timeout: on.config.timeoutMs, signal: opts.signal });
  } catch (e) {
    throw requestFailure(on, method, e, { timeoutMs: on.config.timeoutMs, signal: opts.signal });
  }
}
