// The fetch atrium hands the SDK for a remote connector with a login: every answer that is not
// the MCP endpoint's own (metadata documents, registration, token, refresh, revocation) is read
// under a byte cap BEFORE anything parses it; over the cap the request fails, unparsed. The MCP
// endpoint's answers (JSON or an SSE stream) pass through untouched. Each of those auth exchanges
// also has a deadline (OAUTH_HTTP_MS), answer read included.
import type { FetchLike } from "@modelcontextprotocol/client";
import { HTTP_STATUS } from "../support/wire.js";
import { readBodyCapped } from "../support/read-body-capped.js";
import { withinDeadline } from "../support/within-deadline.js";
import { OAUTH_DOCUMENT_BYTES_MAX, OAUTH_TOKEN_RESPONSE_BYTES_MAX } from "../decisions/generated/spec.js";

const isWellKnown = (u: URL) => u.pathname.startsWith("/.well-known/");

/** `mcpUrl`'s requests pass through; every other answer is capped (documents, then token answers). */
export function boundedAuthFetch(mcpUrl: string, inner: FetchLike = fetch): FetchLike {
  const mcp = new URL(mcpUrl).href;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.href === mcp) return inner(input, init);
    const max = isWellKnown(url) ? OAUTH_DOCUMENT_BYTES_MAX : OAUTH_TOKEN_RESPONSE_BYTES_MAX;
    const what = `${url.origin}${url.pathname}`;
    const { res, body } = await withinDeadline(what, init?.signal ?? (input instanceof Request ? input.signal : undefined), async (signal) => {
      const res = await inner(input, { ...init, signal });
      return { res, body: await readBodyCapped(res, max, what) };
    });
    const empty = res.status === HTTP_STATUS.noContent || res.status === HTTP_STATUS.notModified;
    return new Response(empty ? null : new Blob([body as Uint8Array<ArrayBuffer>]), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
