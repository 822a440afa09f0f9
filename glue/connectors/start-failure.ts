// Turns the raw cause of a failed start into words a person can act on: a command not found
// on PATH, a refused connection, a process that exited before answering (with its exit code).
import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { ConnectorConfig } from "../config/schema.js";
import { RevisionError, revisionFailure } from "./revision.js";

export interface ExitFacts { code: number | null; signal: string | null }

export function explainStartFailure(config: ConnectorConfig, e: unknown, exit: ExitFacts | undefined): string {
  if (e instanceof RevisionError) return revisionFailure(e, (last) => explainStartFailure(config, last, exit));
  // A server/discover probe that could not reach the server carries the network error as its cause.
  if (e instanceof SdkError && e.code === SdkErrorCode.EraNegotiationFailed && e.cause instanceof Error) return explainStartFailure(config, e.cause, exit);
  const err = e as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined;
  const code = typeof err?.code === "string" ? err.code : typeof err?.cause?.code === "string" ? err.cause.code : undefined;
  if (config.kind === "stdio") {
    if (code === "ENOENT") {
      const absolute = config.command.includes("/") || config.command.includes("\\");
      return absolute
        ? `the command ${config.command} does not exist; check the path in "command"`
        : `the command "${config.command}" was not found on PATH; install it, or give its absolute path in "command" (for example the output of \`command -v ${config.command}\` in a terminal)`;
    }
    if (code === "EACCES") return `the command ${config.command} is not executable (permission denied)`;
    if (exit && (exit.code !== null || exit.signal !== null)) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      return `the process ${how} before it answered initialize`;
    }
  } else {
    const where = safeUrl(config.url);
    if (code === "ECONNREFUSED") return `connection refused at ${where} (is the server running and listening there?)`;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host of ${where} could not be resolved`;
    if (code === "ECONNRESET") return `${where} closed the connection`;
    if (code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT") return `connecting to ${where} timed out`;
    if (typeof err?.message === "string" && err.message === "fetch failed") return `could not reach ${where}${typeof err.cause?.message === "string" ? ` (${err.cause.message})` : ""}`;
  }
  return sdk1Message(e);
}

/**
 * An error's text as SDK 1 worded it, so what atrium says about a downstream failure reads as
 * before: SDK 2 dropped the "MCP error <code>: " prefix of protocol errors (and of its own
 * timeout and closed-connection errors, SDK 1's codes -32001 and -32000) and the
 * "Streamable HTTP error: " prefix of Streamable HTTP transport errors.
 */
export function sdk1Message(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e instanceof ProtocolError) return `MCP error ${e.code}: ${e.message}`;
  if (e instanceof SdkError) {
    if (e.code === SdkErrorCode.RequestTimeout) return `MCP error -32001: ${e.message}`;
    if (e.code === SdkErrorCode.ConnectionClosed) return `MCP error -32000: ${e.message}`;
    if (e.code.startsWith("CLIENT_HTTP_")) return `Streamable HTTP error: ${e.message}`;
  }
  return e.message;
}

/** The URL without credentials or query (tokens sometimes live there). */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "the configured url";
  }
}
