// Notices, on a remote connector's own requests to its MCP endpoint, that the connection it had
// is gone: the server no longer knows atrium's session (HTTP 404 to a request that named one; the
// MCP transport spec says the client must then start a new session with `initialize`), or the
// server cannot be reached at all (the request failed before any answer: refused, reset,
// unresolved). It only reports; the connector (connector.ts) starts over in the background.
// A request its caller aborted (a cancelled call, a closed transport) is no loss.
import type { FetchLike } from "@modelcontextprotocol/client";
import { HTTP_STATUS } from "../support/wire.js";

export type RemoteLoss = { kind: "session_unknown" } | { kind: "unreachable"; cause: unknown };

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
    if (response.status === HTTP_STATUS.notFound && new Headers(init?.headers).has(SESSION_HEADER)) report({ kind: "session_unknown" });
    return response;
  };
}

const isAbort = (e: unknown): boolean => e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError");
