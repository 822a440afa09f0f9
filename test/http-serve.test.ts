// `atrium serve --http` with real SDK clients over Streamable HTTP on both revisions, the embedded
// demo connector behind it: programs, search and calls work as on stdio; /healthz and /readyz
// answer; bounds and the Origin check hold before any work; SIGTERM ends atrium and its children.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { startHttpAtrium, connectHttp, type HttpAtrium } from "./harness/atrium-http.js";
import { programValue } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

let atrium: HttpAtrium;
beforeAll(async () => {
  atrium = await startHttpAtrium();
}, 60_000);
afterAll(async () => {
  await atrium?.stop();
});

/** A raw HTTP exchange (the SDK client would not send what these tests send). */
function raw(opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(atrium.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: opts.method ?? "POST", path: opts.path ?? "/mcp", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...opts.headers } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

describe("serve --http: both revisions", () => {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it(`runs a program that searches and calls the demo connector (${revision})`, async () => {
      const c = await connectHttp(atrium.url, { revision });
      try {
        const tools = await c.client.listTools();
        expect(tools.tools.map((t) => t.name)).toContain("execute_code");
        await waitFor(async () => programValue(await c.call("execute_code", { code: "return (await atrium.search('services')).total" })) > 0, "the demo connector's tools");
        const value = programValue(await c.call("execute_code", { code: "const hits = await atrium.search('list services'); const r = await desk.list_services({}); return { first: hits.results[0].address, services: r.services.length };" }));
        expect(value.first).toBe("desk.list_services");
        expect(value.services).toBeGreaterThan(0);
      } finally {
        await c.close();
      }
    }, 60_000);
  }

  it("gives a 2025-11-25 client a session id and answers an unknown one 404", async () => {
    const c = await connectHttp(atrium.url, { revision: "2025-11-25" });
    expect(c.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await c.close();
    const r = await raw({ headers: { "mcp-session-id": "00000000-0000-4000-8000-000000000000", "mcp-protocol-version": "2025-11-25" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
  });
});

describe("serve --http: health and bounds", () => {
  it("answers /healthz and /readyz with 200", async () => {
    expect((await raw({ method: "GET", path: "/healthz" })).status).toBe(200);
    expect(JSON.parse((await raw({ method: "GET", path: "/readyz" })).body)).toEqual({ status: "ready" });
  });
  it("answers other paths 404 and other methods on /mcp 405", async () => {
    expect((await raw({ method: "GET", path: "/admin" })).status).toBe(404);
    expect((await raw({ method: "PUT", body: "{}" })).status).toBe(405);
  });
  it("refuses a body declared longer than request_line_bytes with 413 before reading it", async () => {
    const r = await raw({ headers: { "content-length": String(64 * 1024 * 1024) }, body: "{" });
    expect(r.status).toBe(413);
  });
  it("refuses a body deeper than request_depth with one JSON-RPC error, as on stdio", async () => {
    const deep = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":${"[".repeat(100)}${"]".repeat(100)}}}`;
    const r = await raw({ body: deep });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600 } });
  });
  it("refuses headers past http_header_bytes with 431", async () => {
    const r = await raw({ headers: { "x-filler": "a".repeat(20_000) }, body: "{}" });
    expect(r.status).toBe(431);
  });
  it("refuses a foreign Origin with 403 and serves a loopback one", async () => {
    const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    expect((await raw({ headers: { origin: "https://evil.example" }, body: init })).status).toBe(403);
    expect((await raw({ headers: { origin: "null" }, body: init })).status).toBe(403);
    expect((await raw({ headers: { origin: atrium.base }, body: init })).status).toBe(200);
  });
  it("refuses a Host that does not name this machine (DNS rebinding) with 403", async () => {
    expect((await raw({ headers: { host: "rebound.example:8787" }, body: "{}" })).status).toBe(403);
  });
});
