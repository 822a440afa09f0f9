// Turns the failure of a request to a connector (a tool call, a resource read, a prompts request)
// into atrium's typed error: cancelled by its caller; a login that ended for good; a 401 the core
// judged; the server's HTTP status (429, 401, 403, 5xx); a timeout, naming whose deadline ran out;
// a lost connection; a result dropped for its size; arguments the server rejected; else
// connector_call_failed, in the words SDK 1 gave (start-failure.ts). Loaded with the MCP client
// SDK (client-side.ts): its error classes are what it tells apart.
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import type { ConnectorConfig } from "../config/schema.js";
import { AtriumError, clampEcho } from "../support/errors.js";
import { DROPPED_ANSWER_CODE, HTTP_STATUS } from "../support/wire.js";
import { refusedWithoutLogin } from "../auth/needs-login.js";
import { codeName } from "../decisions/code-names.js";
import { oauthUnauthorizedText } from "../decisions/messages.js";
import { OAuthUnauthorized } from "../decisions/generated/spec.js";
import { loginNeeded, unauthorized } from "./login-state.js";
import { sdk1Message } from "./start-failure.js";

/** The connector a request failed on, as the translation reads it. */
export interface FailedOn {
  readonly id: string;
  readonly config: ConnectorConfig;
  /** Whether it is still ready now, after the failure. */
  ready(): boolean;
  /** Its unavailable error, as its state is now. */
  unavailable(): AtriumError;
  /** Its login ended for good (the refresh failed): it waits for a person from now on; the error that says so. */
  loginEnded(why: string): AtriumError;
}

/** `name`: the tool, resource URI or prompts method; `timeoutMs`: the deadline the request had; `signal`: its caller's. */
export function requestFailure(on: FailedOn, name: string, e: unknown, opts: { timeoutMs: number; signal?: AbortSignal }): AtriumError {
  const details = { connector: on.id, tool: name };
  if (opts.signal?.aborted) return new AtriumError("cancelled", `the call to ${on.id}.${name} was cancelled`, { details });
  // A login that expired for good (the refresh failed): the connector waits for a person.
  const login = loginNeeded(on.config, e);
  if (login) return on.loginEnded(login.message);
  // A 401 the provider already had the core judge (O5: not a login), in the core's words.
  const refused = refusedWithoutLogin(e);
  if (refused) return new AtriumError("auth_required", oauthUnauthorizedText[codeName(OAuthUnauthorized, refused.meaning) ?? "invalid_facts"](on.id), { details });
  // A remote server's HTTP status (SdkHttpError carries it as `status`).
  if (e instanceof SdkHttpError) {
    if (e.status === HTTP_STATUS.tooManyRequests) return new AtriumError("rate_limited", `${on.id} is rate limiting calls (HTTP 429); wait and retry`, { details });
    if (e.status === HTTP_STATUS.unauthorized) return unauthorized(on.config, details);
    if (e.status === HTTP_STATUS.forbidden) return new AtriumError("auth_required", `${on.id} refused the credentials in its headers (HTTP ${e.status}); the operator must update them`, { details });
    if (e.status !== undefined && e.status >= HTTP_STATUS.serverError) return new AtriumError("unavailable", `${on.id} answered HTTP ${e.status}`, { details });
  }
  // A request that timed out or lost its connection (SDK 2: SdkError, no longer McpError -32001/-32000).
  if (e instanceof SdkError) {
    if (e.code === SdkErrorCode.RequestTimeout && opts.timeoutMs < on.config.timeoutMs) {
      return new AtriumError("timeout", `${on.id}.${name} did not answer within the ${opts.timeoutMs} ms its caller had left (program_wall_ms)`, { details: { ...details, timeoutMs: opts.timeoutMs, budget: "program_wall_ms" } });
    }
    if (e.code === SdkErrorCode.RequestTimeout) {
      return new AtriumError("timeout", `${on.id}.${name} did not answer within ${opts.timeoutMs} ms; retry, or if this tool is slow by nature the operator can raise "timeoutMs" for connector ${on.id} in atrium.json`, { details: { ...details, timeoutMs: opts.timeoutMs } });
    }
    if (e.code === SdkErrorCode.ConnectionClosed) return on.unavailable();
  }
  if (e instanceof ProtocolError) {
    if (e.code === DROPPED_ANSWER_CODE && (e.data as { atrium?: unknown } | undefined)?.atrium === "result_too_large") {
      return new AtriumError("result_too_large", `${on.id}.${name}: ${e.message}; ask the tool for less (filters, paging, a narrower query)`, { details });
    }
    if (e.code === ProtocolErrorCode.InvalidParams) return new AtriumError("invalid_args", `${on.id}.${name} rejected its arguments: ${clampEcho(sdk1Message(e))}`, { details });
  }
  if (!on.ready()) return on.unavailable();
  return new AtriumError("connector_call_failed", `${on.id}.${name} failed: ${clampEcho(sdk1Message(e))}`, { details });
}
