// A remote Streamable HTTP connector whose server starts answering with HTTP errors: each
// status maps to its typed error (429 → rate_limited, 401/403 → auth_required, 5xx →
// unavailable), the headers from the config reach the server, and atrium keeps serving.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { startAtrium, type Atrium } from "./harness/atrium-client.js";
import { sendWeb, webRequest } from "./harness/web-http.js";

let http: Server;
let a: Atrium;
let forceStatus = 0;
const seenHeaders: string[] = [];

beforeAll(async () => {
  http = createServer(async (req, res) => {
    seenHeaders.push(String(req.headers["x-api-key"]));
    let body = "";
    for await (const c of req) body += c;
    const parsed = body ? JSON.parse(body) : undefined;
    if (forceStatus && parsed?.method === "tools/call") { res.writeHead(forceStatus).end("refused"); return; }
    // Stateless: a fresh server and transport per request.
    const server = new McpServer({ name: "remote-fixture", version: "1" });
    server.registerTool("ping", { description: "Answers pong", annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "pong" }] }));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    await sendWeb(res, await transport.handleRequest(webRequest(req, body), { parsedBody: parsed }));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  a = await startAtrium({ config: { mcpServers: { remote: { url, headers: { "X-Api-Key": "secret-from-config" } } } } });
});
afterAll(async () => {
  await a?.close();
  http?.close();
});

describe("remote connector HTTP failures", () => {
  it("sends the configured headers and calls through", async () => {
    const r = await a.json("call_tool", { address: "remote.ping", resultMode: "value" });
    expect(r).toEqual({ ok: true, data: "pong" });
    expect(seenHeaders.every((h) => h === "secret-from-config")).toBe(true);
  });

  for (const [status, code, retryable] of [[429, "rate_limited", true], [401, "auth_required", false], [403, "auth_required", false], [503, "unavailable", true]] as const) {
    it(`HTTP ${status} on a call is ${code} (retryable: ${retryable}), and the next call works`, async () => {
      forceStatus = status;
      const r = (await a.call("call_tool", { address: "remote.ping" })) as any;
      forceStatus = 0;
      expect(r.structuredContent.error).toMatchObject({ code, retryable });
      expect((await a.json("call_tool", { address: "remote.ping", resultMode: "value" })).data).toBe("pong");
    });
  }
});
