// 2025-11-25 over HTTP: sessions (Mcp-Session-Id) served by the SDK's web-standard Streamable HTTP
// transport, one server instance per session as on stdio. A session belongs to the principal that
// opened it: another principal's id, an ended one and one never issued all answer the same 404, so
// no one learns which ids exist. Sessions are bounded in number (http_sessions: past it, idle ones
// are ended first, then 503) and in idleness (http_session_idle_ms). With a shared store
// (`records`), each session's owner and initialize are kept there too: a request that lands on
// another replica opens the same session there by replaying its initialize (the host never knows),
// and a session ended anywhere (DELETE, idleness) ends everywhere at its next request. What a
// host sends back to a request of the server's (an elicitation's answer) or a cancellation may
// land on another replica than the one whose server asked or runs the call: with a bus, those
// messages go to every replica holding the session, and the one that asked hears its answer.
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport, isInitializeRequest, type AuthInfo, type Server } from "@modelcontextprotocol/server";
import type { Principal } from "../support/principal.js";
import { HTTP_STATUS, JSONRPC_SESSION_NOT_FOUND } from "../support/wire.js";
import { SSE_RETRY_MS, STORE_SESSION_INIT_BYTES_MAX } from "../decisions/generated/spec.js";
import { AtriumError } from "../support/errors.js";
import type { SessionRecords } from "../store/state-store.js";
import type { Bus } from "../support/bus.js";
import { isJsonObject } from "../support/json-object.js";
import { SessionEvents } from "./session-events.js";

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  principal: string;
  authInfo: AuthInfo;
  /** Where it was reached, for the messages the bus brings (a request needs a URL). */
  url: string;
  lastUsed: number;
  /** Stops hearing the session's channel on the bus. */
  stopHearing?: () => Promise<void>;
}

export interface LegacySessionsOptions {
  /** A server instance for one new session, acting for `principal`. */
  serverFor: (principal: Principal) => Server;
  maxSessions: number;
  idleMs: number;
  maxBodyBytes: number;
  /** The shared store's session records (replicas); without them a session lives in this process only. */
  records?: SessionRecords;
  /** The store's bus: a host's answers and cancellations reach the replica that holds the call. */
  bus?: Bus;
  now?: () => number;
}

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json", ...headers } });

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions being opened here from the store's record, so two requests for one id open it once. */
  private readonly reopening = new Map<string, Promise<Session | undefined>>();
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
    const session = await this.find(id, request, principal, authInfo);
    // One answer for an id never issued, one that ended and one of another principal.
    if (!session || session.principal !== principal.id) return jsonRpcError(HTTP_STATUS.notFound, JSONRPC_SESSION_NOT_FOUND, "Session not found");
    session.lastUsed = this.now();
    if (this.opts.bus && request.method === "POST" && answersOrCancels(parsedBody)) {
      await this.opts.bus.publish(channelOf(id), JSON.stringify({ body: parsedBody, version: request.headers.get("mcp-protocol-version") }));
      return new Response(null, { status: HTTP_STATUS.accepted });
    }
    const response = await session.transport.handleRequest(request, { parsedBody, authInfo });
    if (request.method === "DELETE" && response.ok) await this.opts.records?.drop(id);
    return response;
  }

  /** This process's session, checked against the store's record when there is one (ended elsewhere: ended here); else opened from the record. */
  private async find(id: string, request: Request, principal: Principal, authInfo: AuthInfo): Promise<Session | undefined> {
    const local = this.sessions.get(id);
    const records = this.opts.records;
    if (!records) return local;
    if (local && local.principal !== principal.id) return undefined;
    const record = await records.touch(id, this.opts.idleMs);
    if (!record || record.principal !== principal.id) {
      if (local && !record) this.end(id, local);
      return undefined;
    }
    if (local) return local;
    const pending = this.reopening.get(id) ?? this.reopen(id, record.init, request, principal, authInfo).finally(() => this.reopening.delete(id));
    this.reopening.set(id, pending);
    return pending;
  }

  /** Opens session `id` in this process as it was opened elsewhere: its initialize replayed, then initialized. */
  private async reopen(id: string, init: string, request: Request, principal: Principal, authInfo: AuthInfo): Promise<Session | undefined> {
    if (this.closing) return undefined;
    if (this.sessions.size >= this.opts.maxSessions) this.endIdlest();
    const transport = this.transport(principal, authInfo, request.url, () => id);
    await this.opts.serverFor(principal).connect(transport);
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const replay = (body: string, extra: Record<string, string> = {}) => new Request(request.url, { method: "POST", headers: { ...headers, ...extra }, body });
    const opened = await transport.handleRequest(replay(init), { parsedBody: JSON.parse(init) as unknown, authInfo });
    await opened.body?.cancel();
    const version = request.headers.get("mcp-protocol-version");
    const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    const ack = await transport.handleRequest(replay(initialized, { "mcp-session-id": id, ...(version && { "mcp-protocol-version": version }) }), { parsedBody: JSON.parse(initialized) as unknown, authInfo });
    await ack.body?.cancel();
    const session = this.sessions.get(id);
    if (session) this.hear(id, session);
    return session;
  }

  /** With a bus: the session's channel, whose messages (answers, cancellations) go into this replica's copy of it. */
  private hear(id: string, session: Session): void {
    const bus = this.opts.bus;
    if (!bus) return;
    bus.subscribe(channelOf(id), (text) => void this.deliver(id, text)).then((stop) => {
      if (this.sessions.get(id) === session) session.stopHearing = stop;
      else void stop();
    }, () => {});
  }

  private async deliver(id: string, text: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    if (!isJsonObject(m) || !answersOrCancels(m.body)) return;
    const version = typeof m.version === "string" ? m.version : undefined;
    const request = new Request(session.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id, ...(version && { "mcp-protocol-version": version }) }, body: JSON.stringify(m.body) });
    const answered = await session.transport.handleRequest(request, { parsedBody: m.body, authInfo: session.authInfo }).catch(() => undefined);
    await answered?.body?.cancel();
  }

  private async open(request: Request, parsedBody: unknown, principal: Principal, authInfo: AuthInfo): Promise<Response> {
    const transport = this.transport(principal, authInfo, request.url, randomUUID);
    await this.opts.serverFor(principal).connect(transport);
    const response = await transport.handleRequest(request, { parsedBody, authInfo });
    const id = transport.sessionId;
    const opened = id === undefined ? undefined : this.sessions.get(id);
    if (id !== undefined && opened) this.hear(id, opened);
    const records = this.opts.records;
    if (id === undefined || !records) return response;
    // Kept in the store before the host hears the id, so its next request may land on any replica.
    const init = JSON.stringify(parsedBody);
    if (Buffer.byteLength(init) > STORE_SESSION_INIT_BYTES_MAX) return response;
    try {
      await records.save(id, { principal: principal.id, init }, this.opts.idleMs);
    } catch (e) {
      const s = this.sessions.get(id);
      if (s) this.end(id, s);
      await response.body?.cancel();
      return jsonRpcError(HTTP_STATUS.unavailable, JSONRPC_SESSION_NOT_FOUND, e instanceof AtriumError ? e.message : "the session could not be kept", { "retry-after": "1" });
    }
    return response;
  }

  private transport(principal: Principal, authInfo: AuthInfo, url: string, sessionIdGenerator: () => string): WebStandardStreamableHTTPServerTransport {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator,
      maxRequestBodySize: this.opts.maxBodyBytes,
      eventStore: new SessionEvents(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (sid) => void this.sessions.set(sid, { transport, principal: principal.id, authInfo, url, lastUsed: this.now() }),
      onsessionclosed: (sid) => this.forget(sid),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    return transport;
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
    this.forget(id);
    void s.transport.close().catch(() => {});
  }

  private forget(id: string): void {
    const s = this.sessions.get(id);
    this.sessions.delete(id);
    void s?.stopHearing?.().catch(() => {});
  }

  /** New sessions are refused from now on; every open one ends. */
  async closeAll(): Promise<void> {
    this.closing = true;
    const all = [...this.sessions];
    for (const [id] of all) this.forget(id);
    await Promise.all(all.map(([, s]) => s.transport.close().catch(() => {})));
  }
}

const channelOf = (id: string) => `session:${id}`;

/** Whether a body is only what goes back to a request of the server's or cancels one: JSON-RPC answers, notifications/cancelled. */
function answersOrCancels(body: unknown): boolean {
  const one = (m: unknown) => isJsonObject(m) && (("id" in m && !("method" in m) && ("result" in m || "error" in m)) || m.method === "notifications/cancelled");
  return Array.isArray(body) ? body.length > 0 && body.every(one) : one(body);
}
