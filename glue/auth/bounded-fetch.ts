// The fetch atrium hands the SDK for a remote connector with a login: every answer that is not
// the MCP endpoint's own (metadata documents, registration, token, refresh, revocation) is read
// under a byte cap BEFORE anything parses it; over the cap the request fails, unparsed. The MCP
// endpoint's answers (JSON or an SSE stream) pass through untouched.
import type { FetchLike } from "@modelcontextprotocol/client";
import { HTTP_STATUS } from "../support/wire.js";
import { OAUTH_DOCUMENT_BYTES_MAX, OAUTH_TOKEN_RESPONSE_BYTES_MAX } from "../decisions/generated/spec.js";

class OversizedAnswer extends Error {}

/** The body of `res`, at most `max` bytes; throws OversizedAnswer past it (the rest is not read). */
export async function readCapped(res: Response, max: number, what: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) {
    await res.body?.cancel().catch(() => {});
    throw new OversizedAnswer(`${what} answered more than ${max} bytes (content-length ${declared}); refused unread`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new OversizedAnswer(`${what} answered more than ${max} bytes; refused unread`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const isWellKnown = (u: URL) => u.pathname.startsWith("/.well-known/");

/** `mcpUrl`'s requests pass through; every other answer is capped (documents, then token answers). */
export function boundedAuthFetch(mcpUrl: string, inner: FetchLike = fetch): FetchLike {
  const mcp = new URL(mcpUrl).href;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const res = await inner(input, init);
    if (url.href === mcp) return res;
    const max = isWellKnown(url) ? OAUTH_DOCUMENT_BYTES_MAX : OAUTH_TOKEN_RESPONSE_BYTES_MAX;
    const body = await readCapped(res, max, `${url.origin}${url.pathname}`);
    const empty = res.status === HTTP_STATUS.noContent || res.status === HTTP_STATUS.notModified;
    return new Response(empty ? null : new Blob([body as Uint8Array<ArrayBuffer>]), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
