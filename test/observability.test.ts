// Observability (issue 21 item 4, docs/reference.md "Metrics" and "Traces"): a real `atrium serve
// --http` with an OTLP/HTTP receiver inside the test. The spans of a meta-tool call, its program's
// run and each downstream call arrive with their parent/child links and attributes (the MCP
// semantic conventions, a hashed principal and session); a caller's traceparent in params._meta
// is joined. GET /metrics passes `promtool check metrics` and counts what was done. A secret fed
// through every path (program source, tool arguments, a downstream result, a bearer token, a
// request's _meta) appears in no exported byte and in no /metrics byte. Stdio exports spans
// the same way; two metrics registries in one process do not collide.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { startHttpAtrium, connectHttp, type HttpAtrium } from "./harness/atrium-http.js";
import { demoServer, fixture, nodeServer, programValue, startAtrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";
import { createMetrics, routeOf } from "../glue/observability/metrics.js";
import { boundedOutcome, pseudonym } from "../glue/observability/observer.js";
import { tracesWanted } from "../glue/observability/start.js";

const PROMTOOL = "/usr/bin/promtool";
const SECRET = `hunter2-${randomUUID()}`;

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: { key: string; value: { stringValue?: string } }[]; status?: { code?: number } }
interface Receiver { url: string; bodies: Buffer[]; spans: OtlpSpan[]; resources: unknown[]; close(): Promise<void> }

/** A small OTLP/HTTP receiver: POST /v1/traces with the JSON encoding (the exporter's default). */
async function startReceiver(): Promise<Receiver> {
  const bodies: Buffer[] = [];
  const spans: OtlpSpan[] = [];
  const resources: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      bodies.push(body, Buffer.from(JSON.stringify(req.headers)), Buffer.from(req.url ?? ""));
      if (req.method !== "POST" || req.url !== "/v1/traces") return void res.writeHead(404).end();
      const parsed = JSON.parse(body.toString("utf8")) as { resourceSpans: { resource: unknown; scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of parsed.resourceSpans) {
        resources.push(rs.resource);
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies, spans, resources,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const attr = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value.stringValue;
const SERVER = 2;
const CLIENT = 3;

/** `promtool check metrics` on `body`: its exit code and everything it printed. */
function promtool(body: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(PROMTOOL, ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    p.stdout.on("data", (c: Buffer) => (output += c.toString()));
    p.stderr.on("data", (c: Buffer) => (output += c.toString()));
    p.on("error", reject);
    p.on("close", (code) => resolve({ code, output }));
    p.stdin.end(body);
  });
}

const config = (extra: Record<string, unknown> = {}) => ({
  mcpServers: { desk: nodeServer(demoServer), echo: nodeServer(fixture("nasty-server")) },
  atrium: { log: { enabled: false }, search: { semantic: false }, ...extra },
});

describe("serve --http: traces and metrics", () => {
  let receiver: Receiver;
  let atrium: HttpAtrium;
  beforeAll(async () => {
    receiver = await startReceiver();
    atrium = await startHttpAtrium({ config: config(), env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "50", OTEL_SERVICE_NAME: "atrium-under-test" } });
  }, 60_000);
  afterAll(async () => {
    await atrium?.stop();
    await receiver?.close();
  });

  it("exports a span per meta-tool call, program run and downstream call, linked parent to child, and never a secret", async () => {
    // The bearer token is a secret too (without atrium.http.auth it is not read, and never exported).
    const c = await connectHttp(atrium.url, { revision: "2025-11-25", headers: { authorization: `Bearer ${SECRET}` } });
    try {
      await waitFor(async () => !(await c.call("execute_code", { code: "return await echo.echo({ ping: 1 })" })).isError, "the echo connector");
      const value = programValue(await c.call("execute_code", { code: `const r = await echo.echo({ secret: ${JSON.stringify(SECRET)} }); return JSON.stringify(r).includes(${JSON.stringify(SECRET)});` }));
      expect(value).toBe(true);
      const direct = await c.call("call_tool", { address: "echo.echo", args: { secret: SECRET } });
      expect(JSON.stringify(direct)).toContain(SECRET);
      // A failing program: its outcome code is exported, its error text (which quotes the program) is not.
      const failed = await c.call("execute_code", { code: `throw new Error(${JSON.stringify(SECRET)})` });
      expect(failed.isError).toBe(true);
      // A caller's trace context in params._meta: the meta-tool span joins that trace (a secret in its tracestate or beside it goes nowhere).
      const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
      await c.client.request({ method: "tools/call", params: { name: "search_tools", arguments: { query: SECRET }, _meta: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`, tracestate: `atrium=${SECRET}`, note: SECRET } } }, CallToolResultSchema);
      const sessionId = c.transport.sessionId!;

      const programSpans = () => {
        const metas = receiver.spans.filter((s) => s.name === "tools/call execute_code");
        return metas.flatMap((m) => {
          const run = receiver.spans.find((s) => s.name === "execute_code run" && s.parentSpanId === m.spanId);
          const call = run && receiver.spans.find((s) => s.kind === CLIENT && s.parentSpanId === run.spanId);
          return run && call ? [{ meta: m, run, call }] : [];
        });
      };
      await waitFor(() => programSpans().length >= 2 && receiver.spans.some((s) => s.name === "tools/call call_tool") && receiver.spans.some((s) => s.name === "tools/call search_tools"), "the spans of the programs, the direct call and the search");

      const { meta, run, call } = programSpans()[1];
      expect(meta.kind).toBe(SERVER);
      expect(meta.parentSpanId ?? "").toBe("");
      expect([run.traceId, call.traceId]).toEqual([meta.traceId, meta.traceId]);
      expect(attr(meta, "mcp.method.name")).toBe("tools/call");
      expect(attr(meta, "gen_ai.tool.name")).toBe("execute_code");
      expect(attr(meta, "gen_ai.operation.name")).toBe("execute_tool");
      expect(attr(meta, "mcp.protocol.version")).toBe("2025-11-25");
      expect(attr(meta, "network.transport")).toBe("tcp");
      expect(attr(meta, "atrium.outcome")).toBe("ok");
      // The principal and the session as stable hashes, never themselves.
      expect(attr(meta, "atrium.principal")).toBe(pseudonym("principal", "local"));
      expect(attr(meta, "mcp.session.id")).toBe(pseudonym("session", sessionId));
      expect(JSON.stringify(receiver.spans)).not.toContain(sessionId);
      expect(attr(call, "gen_ai.tool.name")).toBe("echo");
      expect(attr(call, "atrium.connector")).toBe("echo");
      expect(attr(call, "mcp.method.name")).toBe("tools/call");
      expect(attr(call, "atrium.outcome")).toBe("ok");
      expect(attr(run, "atrium.outcome")).toBe("ok");

      // The direct call: its downstream span is the request span's child.
      const directSpan = receiver.spans.find((s) => s.name === "tools/call call_tool")!;
      const directCall = receiver.spans.find((s) => s.kind === CLIENT && s.parentSpanId === directSpan.spanId);
      expect(directCall && attr(directCall, "gen_ai.tool.name")).toBe("echo");
      // The failed program: an error status with its outcome code, and nothing of its message.
      const failedRun = receiver.spans.find((s) => s.name === "execute_code run" && attr(s, "atrium.outcome") !== "ok");
      expect(failedRun?.status?.code).toBe(2);
      expect(attr(failedRun!, "error.type")).toBe(attr(failedRun!, "atrium.outcome"));
      // The caller's trace is joined.
      expect(receiver.spans.find((s) => s.name === "tools/call search_tools")!.traceId).toBe(callerTrace);
      expect(JSON.stringify(receiver.resources)).toContain("atrium-under-test");

      // Not one exported byte carries the secret (bodies, headers, paths), nor does /metrics.
      for (const b of receiver.bodies) expect(b.includes(SECRET)).toBe(false);
      expect(Buffer.concat(receiver.bodies).includes(SECRET)).toBe(false);
      const metrics = await (await fetch(`${atrium.base}/metrics`)).text();
      expect(metrics).not.toContain(SECRET);
      expect(metrics).not.toContain("local");
    } finally {
      await c.close();
    }
  }, 120_000);

  it("serves /metrics that promtool passes, counting requests, meta-tools, programs, downstream calls and connector states", async () => {
    const c = await connectHttp(atrium.url, { revision: "2026-07-28" });
    try {
      await waitFor(async () => !(await c.call("execute_code", { code: "return await echo.echo({ n: 1 })" })).isError, "a program over echo");
    } finally {
      await c.close();
    }
    const res = await fetch(`${atrium.base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await res.text();
    expect(existsSync(PROMTOOL), `${PROMTOOL} is missing: install Debian's prometheus package (.ci/run does)`).toBe(true);
    expect(await promtool(body)).toEqual({ code: 0, output: "" });
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, "\\$&")} (\\S+)$`, "m").exec(body)?.[1] ?? Number.NaN);
    expect(value('atrium_meta_tool_calls_total{tool="execute_code",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('atrium_program_runs_total{outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('atrium_downstream_calls_total{connector="echo",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('atrium_http_requests_total{method="POST",route="/mcp",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(value('atrium_connector_state{connector="echo",state="ready"}')).toBe(1);
    expect(value('atrium_connector_state{connector="desk",state="ready"}')).toBe(1);
    expect(value("atrium_program_run_duration_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(body).toMatch(/^atrium_downstream_call_duration_seconds_bucket\{le="\+Inf",connector="echo"\} \d+$/m);
    expect(body).toMatch(/^# TYPE atrium_store_errors_total counter$/m);
    // A path atrium does not serve is counted as "other", never by its own text.
    await fetch(`${atrium.base}/${SECRET}`);
    const after = await (await fetch(`${atrium.base}/metrics`)).text();
    expect(after).toMatch(/^atrium_http_requests_total\{method="GET",route="other",status="404"\} \d+$/m);
    expect(after).not.toContain(SECRET);
  }, 120_000);

  it("refuses /metrics to a browser page of another origin (the same Origin check as /mcp)", async () => {
    const res = await fetch(`${atrium.base}/metrics`, { headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
  });
});

describe("serve --http: atrium.http.metrics", () => {
  it("\"HOST:PORT\" serves /metrics on a listener of its own, and not beside /mcp", async () => {
    const atrium = await startHttpAtrium({ config: config({ http: { metrics: "127.0.0.1:0" } }) });
    try {
      const url = /metrics at (http:\/\/\S+\/metrics)/.exec(atrium.stderr())?.[1];
      expect(url).toBeDefined();
      const own = await fetch(url!);
      expect(own.status).toBe(200);
      expect(await own.text()).toMatch(/^# TYPE atrium_http_requests_total counter$/m);
      expect((await fetch(url!.replace(/\/metrics$/, "/mcp"))).status).toBe(404);
      expect((await fetch(`${atrium.base}/metrics`)).status).toBe(404);
    } finally {
      await atrium.stop();
    }
  }, 60_000);
  it("false serves no /metrics", async () => {
    const atrium = await startHttpAtrium({ config: config({ http: { metrics: false } }) });
    try {
      expect((await fetch(`${atrium.base}/metrics`)).status).toBe(404);
    } finally {
      await atrium.stop();
    }
  }, 60_000);
});

describe("stdio: traces", () => {
  it("exports the same spans over stdio when an OTLP endpoint is set (network.transport pipe)", async () => {
    const receiver = await startReceiver();
    const atrium = await startAtrium({ config: config(), env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: "50" } });
    try {
      expect(await atrium.value(`const r = await echo.echo({ s: ${JSON.stringify(SECRET)} }); return r.structuredContent === undefined ? 1 : 2`)).toBeGreaterThan(0);
      await waitFor(() => receiver.spans.some((s) => s.kind === CLIENT && attr(s, "atrium.connector") === "echo"), "the downstream span");
      const call = receiver.spans.find((s) => s.kind === CLIENT)!;
      // Spans are exported in batches as they end: the run's and the request's may come in a later batch than the call's.
      await waitFor(() => receiver.spans.some((s) => s.spanId === call.parentSpanId), "the run span");
      const run = receiver.spans.find((s) => s.spanId === call.parentSpanId)!;
      await waitFor(() => receiver.spans.some((s) => s.spanId === run.parentSpanId), "the request span");
      const meta = receiver.spans.find((s) => s.spanId === run.parentSpanId)!;
      expect([run.name, meta.name]).toEqual(["execute_code run", "tools/call execute_code"]);
      expect(attr(meta, "network.transport")).toBe("pipe");
      expect(attr(meta, "mcp.session.id")).toBeUndefined();
      expect(Buffer.concat(receiver.bodies).includes(SECRET)).toBe(false);
    } finally {
      await atrium.close();
      await receiver.close();
    }
  }, 60_000);
});

describe("observability units", () => {
  it("two metrics registries in one process do not collide", async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.metaTool("execute_code", "ok", 0);
    expect((await a.scrape()).body).toMatch(/^atrium_meta_tool_calls_total\{tool="execute_code",outcome="ok"\} 1$/m);
    expect((await b.scrape()).body).not.toMatch(/^atrium_meta_tool_calls_total\{/m);
  });
  it("bounds labels: routes atrium serves, outcome codes it knows; anything else is other", () => {
    expect(["/mcp", "/metrics", "/healthz", "/readyz", "/oauth/callback", "/.well-known/oauth-protected-resource/mcp", "/x", undefined].map(routeOf)).toEqual(["/mcp", "/metrics", "/healthz", "/readyz", "/oauth/callback", "/.well-known/oauth-protected-resource", "other", "other"]);
    expect(["ok", "tool_error", "unavailable", "ECONNRESET", SECRET].map(boundedOutcome)).toEqual(["ok", "tool_error", "unavailable", "other", "other"]);
  });
  it("loads the tracing SDK only when an OTLP endpoint is set and the SDK is not disabled", () => {
    expect(tracesWanted({})).toBe(false);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" })).toBe(true);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });
});
