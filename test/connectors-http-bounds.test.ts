// A hostile remote Streamable HTTP connector that answers tools/call with a 300 MB body (streamed,
// as JSON and as one SSE event) or with a result nested 100,000 deep (as JSON and as SSE): each
// call is answered at once with result_too_large naming the bound (downstream_line_bytes,
// downstream_depth) — the same bounds a stdio connector's lines have — and the same connector
// keeps serving, without a restart. Memory stays bounded because the body is cut while it is read:
// the error says it was cut off, which it can only say if atrium stopped reading.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { startAtrium, type Atrium } from "./harness/atrium-client.js";
import { sendWeb, webRequest } from "./harness/web-http.js";

const HUGE_BYTES = 300 * 1024 * 1024;
const DEEP = 100_000;
const CHUNK = Buffer.alloc(1024 * 1024, "x");

let http: Server;
let a: Atrium;
/** Bytes the hostile server managed to write of each huge answer before the client went away. */
const written: Record<string, number> = {};

/** Writes `head`, then `bytes` of filler at the pace the client reads, then `tail`; stops when the client goes. */
async function stream(res: ServerResponse, name: string, head: string, bytes: number, tail: string): Promise<void> {
  let gone = false;
  res.on("close", () => { gone = true; });
  res.write(head);
  written[name] = 0;
  while (written[name] < bytes && !gone) {
    const ok = res.write(CHUNK);
    written[name] += CHUNK.length;
    if (!ok) {
      await new Promise<void>((r) => {
        const done = () => { res.off("drain", done); res.off("close", done); r(); };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  if (!gone) res.end(tail);
}

const deepValue = "[".repeat(DEEP) + "]".repeat(DEEP);
const HOSTILE: Record<string, (id: unknown, res: ServerResponse) => Promise<void>> = {
  huge_json: (id, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    return stream(res, "huge_json", `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`, HUGE_BYTES, `"}]}}`);
  },
  huge_sse: (id, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    return stream(res, "huge_sse", `event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`, HUGE_BYTES, `"}]}}\n\n`);
  },
  deep_json: async (id, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"structuredContent":{"v":${deepValue}}}}`);
  },
  deep_sse: async (id, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[],"structuredContent":{"v":${deepValue}}}}\n\n`);
  },
  // A well-formed SSE answer split over several data lines and with CRLF line ends: handed on intact.
  multiline_sse: async (id, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`: keep-alive\r\nevent: message\r\ndata: {"jsonrpc":"2.0",\r\ndata: "id":${JSON.stringify(id)},\r\ndata: "result":{"content":[{"type":"text","text":"two lines"}]}}\r\n\r\n`);
  },
};

beforeAll(async () => {
  http = createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const parsed = body ? JSON.parse(body) : undefined;
    const hostile = parsed?.method === "tools/call" ? HOSTILE[parsed.params?.name] : undefined;
    if (hostile) return hostile(parsed.id, res);
    // Stateless: a fresh server and transport per request.
    const server = new McpServer({ name: "hostile-remote", version: "1" });
    server.registerTool("ping", { description: "Answers pong", annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "pong" }] }));
    for (const name of Object.keys(HOSTILE)) server.registerTool(name, { description: `Hostile answer ${name}`, annotations: { readOnlyHint: true } }, async () => ({ content: [] }));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    await sendWeb(res, await transport.handleRequest(webRequest(req, body), { parsedBody: parsed }));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  a = await startAtrium({ config: { mcpServers: { remote: { url, timeoutMs: 120_000 } } } });
});
afterAll(async () => {
  await a?.close();
  http?.close();
});

const err = (r: any) => r.structuredContent?.error;

async function stillServing() {
  expect((await a.json("call_tool", { address: "remote.ping", resultMode: "value" })).data).toBe("pong");
  expect((await a.json("search_tools", { query: "", limit: 1 })).unavailable?.some((u: any) => u.connector === "remote")).toBeFalsy();
  expect(a.stderr()).not.toContain("restarting");
}

describe("a remote connector's answers are bounded like a stdio connector's lines (downstream_line_bytes, downstream_depth)", () => {
  it("a 300 MB JSON answer is cut off while it is read: result_too_large naming downstream_line_bytes, and the connector keeps serving", async () => {
    const e = err(await a.call("call_tool", { address: "remote.huge_json" }, 120_000));
    expect(e).toMatchObject({ code: "result_too_large", retryable: false });
    expect(e.message).toContain("downstream_line_bytes");
    expect(e.message).toContain("cut off");
    // atrium stopped reading: the server could not write the whole answer.
    expect(written.huge_json).toBeLessThan(HUGE_BYTES);
    await stillServing();
  });

  it("a 300 MB SSE event is cut off while it is read: result_too_large naming downstream_line_bytes, and the connector keeps serving", async () => {
    const e = err(await a.call("call_tool", { address: "remote.huge_sse" }, 120_000));
    expect(e).toMatchObject({ code: "result_too_large", retryable: false });
    expect(e.message).toContain("downstream_line_bytes");
    expect(e.message).toContain("cut off");
    await stillServing();
  });

  it("a JSON answer nested 100,000 deep is answered with result_too_large naming downstream_depth, not left unanswered", async () => {
    const e = err(await a.call("call_tool", { address: "remote.deep_json" }, 120_000));
    expect(e).toMatchObject({ code: "result_too_large", retryable: false });
    expect(e.message).toContain("downstream_depth");
    await stillServing();
  });

  it("an SSE answer nested 100,000 deep is answered with result_too_large naming downstream_depth, not left unanswered", async () => {
    const e = err(await a.call("call_tool", { address: "remote.deep_sse" }, 120_000));
    expect(e).toMatchObject({ code: "result_too_large", retryable: false });
    expect(e.message).toContain("downstream_depth");
    await stillServing();
  });

  it("an SSE answer over several data lines with CRLF line ends and a comment is handed on intact", async () => {
    expect((await a.json("call_tool", { address: "remote.multiline_sse", resultMode: "value" })).data).toBe("two lines");
  });
});
