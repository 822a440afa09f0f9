// `atrium serve --http`'s Prometheus metrics (GET /metrics, docs/reference.md "Metrics"): one
// registry per server (never prom-client's global one, so two servers in one process do not
// collide), the process's default metrics, and atrium's own. Every label is bounded: HTTP method
// and route from fixed sets, status codes, meta-tool names (atrium's own tools), connector ids
// (from config), outcome codes (atrium's error codes, observer.ts), connector states, store
// operation names. No principal, session, downstream tool name, argument or result is a label.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { MetricsSink } from "./observer.js";
import { MCP_PATH, METRICS_PATH, WELL_KNOWN_PRM } from "../http/paths.js";
import { OAUTH_CALLBACK_PATH } from "../support/callback-url.js";
import { HTTP_STATUS } from "../support/wire.js";

/** Paths a request's route label may name; anything else is "other". */
const ROUTES = new Set([MCP_PATH, METRICS_PATH, OAUTH_CALLBACK_PATH, "/healthz", "/readyz"]);

/** The route label of a request path: a path atrium serves, the well-known documents, or "other". */
export function routeOf(path: string | undefined): string {
  if (path === undefined) return "other";
  if (ROUTES.has(path)) return path;
  return path.startsWith(`${WELL_KNOWN_PRM}/`) || path === WELL_KNOWN_PRM ? WELL_KNOWN_PRM : "other";
}

export interface Metrics extends MetricsSink {
  /** The text exposition of every metric, and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's gauges named *_total (sums of the nodejs_active_* gauges kept beside them) fail `promtool check metrics`.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) registry.removeSingleMetric(name);
  const registers = [registry];
  const requests = new Counter({ name: "atrium_http_requests_total", help: "HTTP requests answered, by method, route and status", labelNames: ["method", "route", "status"] as const, registers });
  const requestSeconds = new Histogram({ name: "atrium_http_request_duration_seconds", help: "Time from a request's arrival to the end of its answer (an SSE stream: until it closes)", labelNames: ["method", "route"] as const, registers });
  const metaTools = new Counter({ name: "atrium_meta_tool_calls_total", help: "Meta-tool calls (tools/call of atrium's own tools), by tool and outcome code", labelNames: ["tool", "outcome"] as const, registers });
  const metaToolSeconds = new Histogram({ name: "atrium_meta_tool_duration_seconds", help: "Time a meta-tool call took, by tool", labelNames: ["tool"] as const, registers });
  const programs = new Counter({ name: "atrium_program_runs_total", help: "execute_code programs run to an answer, by outcome code", labelNames: ["outcome"] as const, registers });
  const programSeconds = new Histogram({ name: "atrium_program_run_duration_seconds", help: "Time an execute_code program took, queue wait and host calls included", registers });
  const downstream = new Counter({ name: "atrium_downstream_calls_total", help: "Downstream tools/call requests, by connector and outcome code", labelNames: ["connector", "outcome"] as const, registers });
  const downstreamSeconds = new Histogram({ name: "atrium_downstream_call_duration_seconds", help: "Time a downstream tools/call took, by connector", labelNames: ["connector"] as const, registers });
  const storeErrors = new Counter({ name: "atrium_store_errors_total", help: "Failed operations of the shared store, by operation", labelNames: ["op"] as const, registers });
  let readConnectors: () => readonly { readonly id: string; readonly state: string }[] = () => [];
  new Gauge({
    name: "atrium_connector_state",
    help: "Configured connectors by state: 1 for the state each is in now",
    labelNames: ["connector", "state"] as const,
    registers,
    collect() {
      this.reset();
      for (const c of readConnectors()) this.set({ connector: c.id, state: c.state }, 1);
    },
  });
  return {
    request: (method, route, status, s) => {
      requests.inc({ method, route, status: String(status) });
      requestSeconds.observe({ method, route }, s);
    },
    metaTool: (tool, outcome, s) => {
      metaTools.inc({ tool, outcome });
      metaToolSeconds.observe({ tool }, s);
    },
    program: (outcome, s) => {
      programs.inc({ outcome });
      programSeconds.observe(s);
    },
    downstream: (connector, outcome, s) => {
      downstream.inc({ connector, outcome });
      downstreamSeconds.observe({ connector }, s);
    },
    connectors: (read) => { readConnectors = read; },
    storeError: (op) => storeErrors.inc({ op }),
    scrape: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

/** atrium.http.metrics "HOST:PORT": /metrics on a listener of its own (no token; nothing else is served there). */
export async function startMetricsListener(metrics: Metrics, listen: { host: string; port: number }, bounds: { headerBytes: number; headersTimeoutMs: number; requestTimeoutMs: number }): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer({ maxHeaderSize: bounds.headerBytes, headersTimeout: bounds.headersTimeoutMs, requestTimeout: bounds.requestTimeoutMs }, (req, res) => {
    const path = new URL(req.url ?? "/", "http://atrium.invalid").pathname;
    if (path !== METRICS_PATH || (req.method !== "GET" && req.method !== "HEAD")) return void res.writeHead(HTTP_STATUS.notFound, { "content-type": "text/plain" }).end(`atrium serves only ${METRICS_PATH} here\n`);
    metrics.scrape().then(
      (m) => res.writeHead(HTTP_STATUS.ok, { "content-type": m.contentType }).end(req.method === "HEAD" ? undefined : m.body),
      () => res.writeHead(HTTP_STATUS.serverError).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => { server.off("error", reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
