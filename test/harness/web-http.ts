// The tests' small remote MCP servers run on node:http; SDK 2's Streamable HTTP server transport
// (WebStandardStreamableHTTPServerTransport) speaks web-standard Request/Response. These two
// functions carry one exchange across, streaming the answer (an SSE stream stays open).
import type { IncomingMessage, ServerResponse } from "node:http";

/** The web-standard Request for a node:http request whose body was already read. Its signal
 * aborts when the client goes away before the answer is complete (as a web server's would), so a
 * handler sees a request its client cancelled by closing the connection. */
export function webRequest(req: IncomingMessage, body: string, res?: ServerResponse): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const gone = new AbortController();
  res?.on("close", () => { if (!res.writableFinished) gone.abort(); });
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method: req.method, headers, body: hasBody ? body : undefined, signal: gone.signal });
}

/** Writes a web-standard Response to a node:http response. */
export async function sendWeb(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}
