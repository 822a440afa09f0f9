// Notices, on a remote connector's own requests to its MCP endpoint, that the connection it had
// is gone: the server no longer knows atrium's session, or the server cannot be reached at all
// (the request failed before any answer: refused, reset, unresolved). A lost session is HTTP 404
// to a request that named one (the MCP transport spec says the client must then start a new
// session with `initialize`), or HTTP 400 whose JSON-RPC error speaks of the session, read under
// CONNECTOR_SESSION_REFUSAL_BYTES_MAX (the SDK's example servers answer an unknown session so).
// It only reports; the connector (connector.ts) starts over in the background. A request its
// caller aborted (a cancelled call, a closed transport) is no loss.
import type { FetchLike } from "@modelcontextprotocol/client";
import { HTTP_STATUS } from "../support/wire.js";
import { readBodyCapped } from "../support/read-body-capped.js";
import { CONNECTOR_SESSION_REFUSAL_BYTES_MAX } from "../decisions/generated/spec.js";

export type RemoteLoss = { kind: "session_unknown"; status: number } | { kind: "unreachable"; cause: unknown };

/** The MCP transport's session header (the SDK sends it on every request after initialize). */
const SESSION_HEADER = "mcp-session-id";

/** `inner` for the requests to `mcpUrl`, with each loss reported as it is seen (before the SDK reads the answer). */
export function lossWatchingFetch(mcpUrl: string, report: (loss: RemoteLoss) => void, inner: FetchLike = fetch): FetchLike {
  const mcp = new URL(mcpUrl).href;
  return async (input, init) => {
    if (new URL(input instanceof Request ? input.url : String(input)).href !== mcp) return inner(input, init);
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (e) {
      if (!init?.signal?.aborted && !isAbort(e)) report({ kind: "unreachable", cause: e });
      throw e;
    }
    if (new Headers(init?.headers).has(SESSION_HEADER)) {
      if (response.status === HTTP_STATUS.notFound || (response.status === HTTP_STATUS.badRequest && (await refusesSession(response)))) report({ kind: "session_unknown", status: response.status });
    }
    return response;
  };
}

/** Whether a 400 answer is a JSON-RPC error about the session (read from a copy; the SDK reads the answer itself). */
async function refusesSession(response: Response): Promise<boolean> {
  try {
    const body = JSON.parse(new TextDecoder().decode(await readBodyCapped(response.clone(), CONNECTOR_SESSION_REFUSAL_BYTES_MAX, "the server"))) as { error?: { message?: unknown } } | null;
    return typeof body?.error?.message === "string" && /\bsession\b/i.test(body.error.message);
  } catch {
    return false; // larger than the cap, not JSON: not a refusal of the session
  }
}

const isAbort = (e: unknown): boolean => e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError");
