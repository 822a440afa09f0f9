// `atrium serve --http`: one node:http listener in front of /mcp (both revisions), /healthz,
// /readyz and the documents the authenticator serves (RFC 9728 metadata). Every request is
// bounded before any work: headers by http_header_bytes (node answers 431) and
// http_headers_timeout_ms, the whole request by http_request_timeout_ms (408), a body by
// request_line_bytes (413 before parsing) and request_depth; Origin and Host are checked
// (origin-guard.ts) before the token is, and the token (authenticator.ts) before the body is read.
// Each request gets one answer; while stopping, new ones get 503.
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { LineLimits } from "../support/line-reader.js";
import { HTTP_STATUS, JSONRPC_RATE_LIMITED, PLAIN_PAGE } from "../support/wire.js";
import { AtriumError } from "../support/errors.js";
import { MS_PER_SECOND } from "../support/format.js";
import type { RateWindows } from "../store/rate-windows.js";
import { judgeLine } from "../transport/jsonrpc-guard.js";
import type { Authentication, Authenticator, Refusal } from "./authenticator.js";
import type { McpEndpoint } from "./mcp-endpoint.js";
import { refusedOrigin, type OriginPolicy } from "./origin-guard.js";
import { MCP_PATH, METRICS_PATH } from "./paths.js";
import { OAUTH_CALLBACK_PATH } from "../support/callback-url.js";
import { readBody, webRequestOf, writeJson, writeWebResponse } from "./web-exchange.js";

export interface HttpServerOptions {
  host: string;
  port: number;
  endpoint: McpEndpoint;
  authenticator: Authenticator;
  origins: OriginPolicy;
  limits: LineLimits;
  headerBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Each principal's requests per minute. */
  rates: RateWindows;
  now?: () => number;
  /** Team mode: where per-user logins' browsers come back (GET /oauth/callback, auth/team-callbacks.ts). */
  callbacks?: { answer(target: string): Promise<{ status: number; page: string }> };
  /** Whether the config is loaded and the parts a request needs answer (/readyz). */
  ready: () => Promise<boolean>;
  log?: (line: string) => void;
  /** Observability (glue/observability/): each request's start; the function returned hears its status when it ends. */
  observe?: (method: string | undefined, path: string | undefined) => (status: number) => void;
  /** GET /metrics on this listener (atrium.http.metrics), Host and Origin checked as for /mcp, no token. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

export interface HttpServer {
  /** The URL /mcp is served at (with the port the system gave when 0 was asked). */
  readonly url: string;
  readonly node: NodeServer;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Stop accepting (new requests get 503, idle connections close); resolves when those in flight have ended or `graceMs` passed. */
  drain(graceMs: number): Promise<void>;
  close(): Promise<void>;
}


const refuse = (res: ServerResponse, status: number, error: string, message: string, headers: Record<string, string> = {}) => writeJson(res, status, { error, message }, headers);

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const node = createServer({ maxHeaderSize: opts.headerBytes, headersTimeout: opts.headersTimeoutMs, requestTimeout: opts.requestTimeoutMs }, (req, res) => {
    inFlight++;
    const observed = opts.observe?.(req.method, pathOf(req.url));
    res.once("close", () => {
      observed?.(res.statusCode);
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    if (draining) {
      res.setHeader("connection", "close");
      refuse(res, HTTP_STATUS.unavailable, "unavailable", "atrium is stopping");
      return;
    }
    serve(req, res).catch((e) => {
      // The shared store not answering is a typed, retryable 503, not a failure of atrium's.
      if (e instanceof AtriumError && e.code === "unavailable" && !res.headersSent) return refuse(res, HTTP_STATUS.unavailable, "unavailable", e.message, { "retry-after": "1" });
      opts.log?.(`atrium: an HTTP request failed: ${(e as Error).message}`);
      if (!res.headersSent) refuse(res, HTTP_STATUS.serverError, "internal", "the request could not be answered");
      else res.destroy();
    });
  });

  const base = () => `http://${hostForUrl(opts.host)}:${(node.address() as AddressInfo).port}`;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req.url);
    if (path === "/healthz" && req.method === "GET") return writeJson(res, HTTP_STATUS.ok, { status: "ok" });
    if (path === "/readyz" && req.method === "GET") {
      const ready = (await opts.ready()) && opts.authenticator.ready();
      return writeJson(res, ready ? HTTP_STATUS.ok : HTTP_STATUS.unavailable, { status: ready ? "ready" : "not ready" });
    }
    if (path === METRICS_PATH && opts.metrics && req.method === "GET") {
      const bad = refusedOrigin(opts.origins, header(req, "origin"), header(req, "host"));
      if (bad) return refuse(res, HTTP_STATUS.forbidden, "forbidden", bad);
      const m = await opts.metrics();
      return void res.writeHead(HTTP_STATUS.ok, { "content-type": m.contentType }).end(m.body);
    }
    const document = path === undefined ? undefined : opts.authenticator.documentAt(path);
    if (document && req.method === "GET") return writeJson(res, HTTP_STATUS.ok, document, { "cache-control": "max-age=300" });
    // A browser back from a login carries no token: the login its state names is the proof (O13). Host is checked as for /mcp.
    if (path === OAUTH_CALLBACK_PATH && opts.callbacks && req.method === "GET") {
      const badHost = refusedOrigin(opts.origins, undefined, header(req, "host"));
      if (badHost) return refuse(res, HTTP_STATUS.forbidden, "forbidden", badHost);
      const answer = await opts.callbacks.answer(req.url ?? "/");
      return void res.writeHead(answer.status, PLAIN_PAGE).end(answer.page);
    }
    if (path !== MCP_PATH) return refuse(res, HTTP_STATUS.notFound, "not_found", `atrium serves MCP at ${MCP_PATH}`);
    if (req.method !== "POST" && req.method !== "GET" && req.method !== "DELETE") return refuse(res, HTTP_STATUS.methodNotAllowed, "method_not_allowed", "use POST, GET or DELETE", { allow: "POST, GET, DELETE" });

    const bad = refusedOrigin(opts.origins, header(req, "origin"), header(req, "host"));
    if (bad) return refuse(res, HTTP_STATUS.forbidden, "forbidden", bad);
    const auth: Authentication = await opts.authenticator.authenticate(header(req, "authorization"));
    if (!auth.ok) return writeRefusal(res, auth);
    const rate = await opts.rates.take(auth.principal.id, (opts.now ?? Date.now)());
    if (!rate.ok) return writeRateLimited(res, rate.retryAfterMs, rate.limit);

    let body: Buffer | undefined;
    let parsed: unknown;
    if (req.method === "POST") {
      const read = await readBody(req, opts.limits);
      if (!read.ok) {
        if (!read.oversized) return void res.destroy();
        res.setHeader("connection", "close");
        return refuse(res, HTTP_STATUS.payloadTooLarge, "payload_too_large", `the body is longer than request_line_bytes (${opts.limits.maxBytes} bytes) and was not read`);
      }
      // The stdio guard judges the body as it judges a line: one JSON-RPC error for what is malformed.
      const verdict = judgeLine(read.line, { limits: opts.limits });
      if (verdict.kind === "answer") return writeJson(res, HTTP_STATUS.badRequest, verdict.answer);
      if (verdict.kind === "drop") return void res.writeHead(HTTP_STATUS.accepted).end();
      body = read.line.text;
      parsed = verdict.message;
    }
    const abort = new AbortController();
    res.once("close", () => abort.abort());
    const response = await opts.endpoint.handle(webRequestOf(req, base(), body, abort.signal), parsed, auth.principal);
    await writeWebResponse(res, response);
  }

  await new Promise<void>((resolve, reject) => {
    node.once("error", reject);
    node.listen(opts.port, opts.host, () => {
      node.off("error", reject);
      resolve();
    });
  });
  return {
    get url() {
      return `${base()}${MCP_PATH}`;
    },
    node,
    get inFlight() {
      return inFlight;
    },
    async drain(graceMs) {
      draining = true;
      node.closeIdleConnections();
      if (inFlight === 0) return;
      await new Promise<void>((resolve) => {
        idle = resolve;
        setTimeout(resolve, graceMs).unref();
      });
    },
    async close() {
      draining = true;
      await opts.endpoint.close();
      node.closeAllConnections();
      await new Promise<void>((resolve) => node.close(() => resolve()));
    },
  };
}

/** Who-is-asking refused the request: its status, WWW-Authenticate and body, nothing read or run. */
const writeRefusal = (res: ServerResponse, r: Refusal) => writeJson(res, r.status, r.body, r.headers);

/** 429 with Retry-After and the typed error in a JSON-RPC error body (the request's id is not read yet: null). */
function writeRateLimited(res: ServerResponse, retryAfterMs: number, limit: number): void {
  const error = new AtriumError("rate_limited", `more than ${limit} requests in a minute (principal_requests_per_minute); retry in ${retryAfterMs} ms`, { details: { retryAfterMs } });
  writeJson(res, HTTP_STATUS.tooManyRequests, { jsonrpc: "2.0", id: null, error: { code: JSONRPC_RATE_LIMITED, message: error.message, data: { atrium: error.toJSON() } } }, { "retry-after": String(Math.ceil(retryAfterMs / MS_PER_SECOND)) });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** The path of a request target, or undefined when it is not one (an absolute-form target is read as its path). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? "/", "http://atrium.invalid").pathname;
  } catch {
    return undefined;
  }
}

const hostForUrl = (host: string) => (host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host);
