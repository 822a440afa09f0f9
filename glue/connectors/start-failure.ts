// Turns the raw cause of a failed start into words a person can act on: a command not found
// on PATH, a refused connection, a process that exited before answering (with its exit code).
import type { ConnectorConfig } from "../config/schema.js";

export interface ExitFacts { code: number | null; signal: string | null }

export function explainStartFailure(config: ConnectorConfig, e: unknown, exit: ExitFacts | undefined): string {
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
  return e instanceof Error ? e.message : String(e);
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
