// 2025-11-25 over HTTP: sessions (Mcp-Session-Id) served by the SDK's web-standard Streamable HTTP
// transport, one server instance per session as on stdio. A session belongs to the principal that
// opened it: another principal's id, an ended one and one never issued all answer the same 404, so
// no one learns which ids exist. Sessions are bounded in number (http_sessions: past it, idle ones
// are ended first, then 503) and in idleness (http_session_idle_ms). Kept in this process; the
// shared store of team mode II takes the ids, not the live transports.
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport, isInitializeRequest, type AuthInfo, type Server } from "@modelcontextprotocol/server";
import type { Principal } from "../support/principal.js";
import { HTTP_STATUS, JSONRPC_SESSION_NOT_FOUND } from "../support/wire.js";
import { SSE_RETRY_MS } from "../decisions/generated/spec.js";
import { SessionEvents } from "./session-events.js";

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  principal: string;
  lastUsed: number;
}

export interface LegacySessionsOptions {
  /** A server instance for one new session, acting for `principal`. */
  serverFor: (principal: Principal) => Server;
  maxSessions: number;
  idleMs: number;
  maxBodyBytes: number;
  now?: () => number;
}

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json", ...headers } });

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly now: () => number;
  private closing = false;

  constructor(private readonly opts: LegacySessionsOptions) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request, parsedBody: unknown, principal: Principal, authInfo: AuthInfo): Promise<Response> {
    this.sweep();
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      if (request.method !== "POST" || !isInitializeRequest(parsedBody)) return jsonRpcError(HTTP_STATUS.badRequest, JSONRPC_SESSION_NOT_FOUND, "Bad Request: no Mcp-Session-Id; a 2025-11-25 session starts with initialize");
      if (this.closing) return jsonRpcError(HTTP_STATUS.unavailable, JSONRPC_SESSION_NOT_FOUND, "atrium is stopping: no new sessions");
      if (this.sessions.size >= this.opts.maxSessions) this.endIdlest();
      if (this.sessions.size >= this.opts.maxSessions) return jsonRpcError(HTTP_STATUS.unavailable, JSONRPC_SESSION_NOT_FOUND, `too many sessions (http_sessions, ${this.opts.maxSessions}); try again later`, { "retry-after": "1" });
      return this.open(request, parsedBody, principal, authInfo);
    }
    const session = this.sessions.get(id);
    // One answer for an id never issued, one that ended and one of another principal.
    if (!session || session.principal !== principal.id) return jsonRpcError(HTTP_STATUS.notFound, JSONRPC_SESSION_NOT_FOUND, "Session not found");
    session.lastUsed = this.now();
    return session.transport.handleRequest(request, { parsedBody, authInfo });
  }

  private async open(request: Request, parsedBody: unknown, principal: Principal, authInfo: AuthInfo): Promise<Response> {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: this.opts.maxBodyBytes,
      eventStore: new SessionEvents(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (sid) => void this.sessions.set(sid, { transport, principal: principal.id, lastUsed: this.now() }),
      onsessionclosed: (sid) => void this.sessions.delete(sid),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await this.opts.serverFor(principal).connect(transport);
    return transport.handleRequest(request, { parsedBody, authInfo });
  }

  /** Sessions idle past http_session_idle_ms end (their ids then answer 404). */
  private sweep(): void {
    const cutoff = this.now() - this.opts.idleMs;
    for (const [id, s] of this.sessions) if (s.lastUsed < cutoff) this.end(id, s);
  }

  private endIdlest(): void {
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
    if (oldest) this.end(...oldest);
  }

  private end(id: string, s: Session): void {
    this.sessions.delete(id);
    void s.transport.close().catch(() => {});
  }

  /** New sessions are refused from now on; every open one ends. */
  async closeAll(): Promise<void> {
    this.closing = true;
    const all = [...this.sessions];
    this.sessions.clear();
    await Promise.all(all.map(([, s]) => s.transport.close().catch(() => {})));
  }
}
