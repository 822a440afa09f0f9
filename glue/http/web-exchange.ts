// node:http on one side, the SDK's web-standard handlers on the other: a request's body is read
// under request_line_bytes and request_depth while it arrives (the same MessageReader as a stdin
// line), a Request is built from what was kept, and a Response (one JSON body or an SSE stream)
// is written back, ending its stream when the client goes away. Written here rather than taken
// from @modelcontextprotocol/node because that adapter reads the body itself with no depth bound
// and brings a web framework (Hono) atrium does not otherwise need.
import type { IncomingMessage, ServerResponse } from "node:http";
import { MessageReader, type Line, type LineLimits } from "../support/line-reader.js";

export type BodyRead = { ok: true; line: Line } | { ok: false; oversized: true } | { ok: false; oversized: false };

/** The request's body as one message under `limits`; stops reading at the first byte past maxBytes. */
export function readBody(req: IncomingMessage, limits: LineLimits): Promise<BodyRead> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > limits.maxBytes) return Promise.resolve({ ok: false, oversized: true });
  const reader = new MessageReader(limits);
  return new Promise((resolve) => {
    const done = (r: BodyRead) => {
      req.off("data", onData);
      resolve(r);
    };
    const onData = (chunk: Buffer) => {
      reader.push(chunk);
      if (reader.oversized) {
        req.pause();
        done({ ok: false, oversized: true });
      }
    };
    req.on("data", onData);
    req.once("end", () => done({ ok: true, line: reader.end() }));
    req.once("error", () => done({ ok: false, oversized: false }));
    req.once("aborted", () => done({ ok: false, oversized: false }));
  });
}

/** A web Request for the SDK: the node request's method, URL and headers, and the body bytes kept. */
export function webRequestOf(req: IncomingMessage, base: string, body: Buffer | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(req.url ?? "/", base), { method: req.method, headers, signal, ...(body && req.method !== "GET" && req.method !== "HEAD" && { body: new Uint8Array(body) }) });
}

/** Writes `response` to `res`: status, headers, then the body as it comes (an SSE stream stays open until it ends or the client leaves). */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  res.once("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // A slow client: wait for the socket to drain before reading more.
      if (!res.write(value)) await new Promise<void>((resolve) => { res.once("drain", resolve); res.once("close", resolve); });
      if (res.destroyed) break;
    }
  } catch {
    // The stream failed or was cancelled because the client left: nothing more to write.
  } finally {
    res.off("close", stop);
    if (!res.destroyed) res.end();
  }
}

/** A small JSON answer of atrium's own (health, metadata, refusals before the MCP layer). */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}
