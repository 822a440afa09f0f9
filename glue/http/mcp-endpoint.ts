// /mcp on both revisions. 2026-07-28 requests (a per-request `_meta` envelope) go to the SDK's
// createMcpHandler, which builds one server instance per request (stateless: any process could
// answer); 2025-era requests go to the sessions of legacy-sessions.ts. The SDK's isLegacyRequest
// decides which, so atrium and the SDK can never disagree on a request's era. The principal rides
// in AuthInfo's `extra` (never a token: atrium passes no credential into the MCP layer).
import { createMcpHandler, isLegacyRequest, type AuthInfo, type Server, type ServerNotifier } from "@modelcontextprotocol/server";
import type { Revision } from "../decisions/generated/spec.js";
import type { Principal } from "../support/principal.js";
import { LegacySessions } from "./legacy-sessions.js";
import type { SessionRecords } from "../store/state-store.js";
import type { Bus } from "../support/bus.js";

export interface McpEndpointOptions {
  serverFor: (revision: Revision, principal: Principal) => Server;
  revisionOf: (era: "legacy" | "modern") => Revision;
  maxBodyBytes: number;
  maxSessions: number;
  sessionIdleMs: number;
  /** The shared store's 2025-11-25 session records, so any replica serves any session. */
  records?: SessionRecords;
  /** The store's bus (replicas): answers and cancellations reach the replica holding the call. */
  bus?: Bus;
  onerror?: (error: Error) => void;
}

export interface McpEndpoint {
  handle(request: Request, parsedBody: unknown, principal: Principal): Promise<Response>;
  /** 2026-07-28 hosts listening on subscriptions/listen hear list changes here (2025-11-25 sessions from their own server instance). */
  notify: ServerNotifier;
  readonly sessions: number;
  close(): Promise<void>;
}

const PRINCIPAL = "atriumPrincipal";

const authInfoOf = (principal: Principal): AuthInfo => ({ token: "", clientId: principal.id, scopes: [...principal.scopes], extra: { [PRINCIPAL]: principal } });

function principalOf(authInfo: AuthInfo | undefined): Principal {
  const p = authInfo?.extra?.[PRINCIPAL];
  // Fail closed: an instance is never built for nobody.
  if (p === undefined) throw new Error("atrium: a request reached the MCP layer without a principal");
  return p as Principal;
}

export function createMcpEndpoint(opts: McpEndpointOptions): McpEndpoint {
  const modern = createMcpHandler((ctx) => opts.serverFor(opts.revisionOf(ctx.era), principalOf(ctx.authInfo)), {
    legacy: "reject",
    maxRequestBodySize: opts.maxBodyBytes,
    onerror: opts.onerror,
  });
  const legacy = new LegacySessions({ serverFor: (p) => opts.serverFor(opts.revisionOf("legacy"), p), maxSessions: opts.maxSessions, idleMs: opts.sessionIdleMs, maxBodyBytes: opts.maxBodyBytes, records: opts.records, bus: opts.bus });
  return {
    async handle(request, parsedBody, principal) {
      const authInfo = authInfoOf(principal);
      if (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: opts.maxBodyBytes })) return legacy.handle(request, parsedBody, principal, authInfo);
      return modern.fetch(request, { authInfo, parsedBody });
    },
    notify: modern.notify,
    get sessions() {
      return legacy.size;
    },
    async close() {
      await Promise.all([modern.close(), legacy.closeAll()]);
    },
  };
}
