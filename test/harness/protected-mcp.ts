// A real Streamable HTTP MCP server protected by bearer tokens (issue 11's test kit), in this
// process on 127.0.0.1 with an ephemeral port: SDK 2's `createMcpHandler` behind the node:http
// adapter (web-http.ts), guarded as the MCP authorization specification says:
//   - no token, or a token that fails verification → 401 with
//     `WWW-Authenticate: Bearer resource_metadata="<url>"` (plus error="invalid_token" when a token was sent)
//   - a `tools/call` of write_record without the mcp:write scope → 403, error="insufficient_scope"
//   - the protected resource metadata (RFC 9728) at /.well-known/oauth-protected-resource/mcp (the
//     path-aware variant) and at /.well-known/oauth-protected-resource, naming the AS.
// Verification is offline: the JWT's signature against the AS's JWKS (jose's remote JWK set, from
// the AS metadata's jwks_uri), `iss` = the AS, `aud` = this server's URL, `typ` at+jwt, `exp`
// (no clock tolerance), and a scope that includes mcp:read.
//
// Tools: whoami (readOnlyHint) → JSON { sub, scopes, client_id }; write_record (destructiveHint)
// { id, text } → stores it. `calls` logs every tool call with the caller; `requests` every request
// as it arrived (method, path, headers, body), for tests that check what was never sent.
// A test may turn hostile at run time: `authorizationServers` changes what the metadata names, and
// `refuse(token)` answers a verified token 401 invalid_token as if it had been revoked.
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, createMcpHandler, type AuthInfo, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { z } from "zod";
import { sendWeb, webRequest } from "./web-http.js";

interface ProtectedCall { tool: string; sub: string; scopes: string[]; args: unknown }

/** What the server answered each HTTP request with, and why (for tests that check refusals). */
interface ProtectedHit { status: number; reason: "ok" | "no-token" | "invalid-token" | "insufficient-scope" | "metadata" }

/** One request as it arrived. */
interface RawRequest { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string }

export interface ProtectedMcp {
  /** The MCP endpoint and the resource identifier tokens must be bound to: http://127.0.0.1:PORT/mcp */
  url: string;
  /** The protected resource metadata URL (path-aware), as sent in resource_metadata. */
  resourceMetadataUrl: string;
  calls: ProtectedCall[];
  hits: ProtectedHit[];
  records: Map<string, string>;
  /** Every request as it arrived, the metadata's included. */
  requests: RawRequest[];
  /** What the protected resource metadata names as its authorization servers (the issuer given at start, until a test changes it). */
  authorizationServers: string[];
  /** Whether a token that verifies is still refused (401 invalid_token, as a revoked one would be); never, until a test sets it. */
  refuse: (token: string) => boolean;
  close(): Promise<void>;
}

export interface ProtectedOptions {
  /** The AS issuer (http://127.0.0.1:PORT); its jwks_uri is read from its RFC 8414 metadata. */
  issuer: string;
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

interface Caller { sub: string; scopes: string[]; clientId: string | undefined }

function callerOf(info: AuthInfo | undefined): Caller {
  return { sub: String(info?.extra?.sub ?? ""), scopes: info?.scopes ?? [], clientId: info?.clientId };
}

/** Starts the server. It must know its own port before it can name its resource, so it listens first. */
export async function startProtectedMcp(opts: ProtectedOptions): Promise<ProtectedMcp> {
  const calls: ProtectedCall[] = [];
  const hits: ProtectedHit[] = [];
  const records = new Map<string, string>();
  const requests: RawRequest[] = [];
  let authorizationServers = [opts.issuer];
  let refuse: (token: string) => boolean = () => false;

  const handler = createMcpHandler(() => {
    // One instance per request; each call's caller is the verified token's, passed in as authInfo.
    const server = new McpServer({ name: "fixture-protected", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool("whoami", { description: "Who the bearer token says the caller is", annotations: { readOnlyHint: true } }, async (extra) => {
      const caller = callerOf(extra.http?.authInfo);
      calls.push({ tool: "whoami", sub: caller.sub, scopes: caller.scopes, args: {} });
      return text(JSON.stringify({ sub: caller.sub, scopes: caller.scopes, client_id: caller.clientId }));
    });
    server.registerTool("write_record", { description: "Store a record (needs mcp:write)", inputSchema: z.object({ id: z.string(), text: z.string() }), annotations: { destructiveHint: true } }, async (args, extra) => {
      const caller = callerOf(extra.http?.authInfo);
      calls.push({ tool: "write_record", sub: caller.sub, scopes: caller.scopes, args });
      records.set(args.id, args.text);
      return text(`stored ${args.id}`);
    });
    return server;
  }, { legacy: "stateless" });

  let resource = "";
  let resourceMetadataUrl = "";
  const metadata = () => JSON.stringify({
    resource,
    authorization_servers: authorizationServers,
    scopes_supported: ["mcp:read", "mcp:write"],
    bearer_methods_supported: ["header"],
    resource_name: "atrium test kit: protected MCP server",
  });
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  const challenge = (extra = "") => `Bearer resource_metadata="${resourceMetadataUrl}"${extra}`;

  const http: HttpServer = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    let body = "";
    for await (const c of req) body += c;
    requests.push({ method: req.method ?? "", path, headers: { ...req.headers }, body });
    if (req.method === "GET" && (path === "/.well-known/oauth-protected-resource/mcp" || path === "/.well-known/oauth-protected-resource")) {
      hits.push({ status: 200, reason: "metadata" });
      res.writeHead(200, { "content-type": "application/json" }).end(metadata());
      return;
    }
    const auth = req.headers.authorization;
    if (!auth?.startsWith("Bearer ")) {
      hits.push({ status: 401, reason: "no-token" });
      res.writeHead(401, { "www-authenticate": challenge(), "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    let payload: JWTPayload;
    try {
      jwks ??= createRemoteJWKSet(new URL((await (await fetch(`${opts.issuer}/.well-known/oauth-authorization-server`)).json() as { jwks_uri: string }).jwks_uri));
      ({ payload } = await jwtVerify(auth.slice("Bearer ".length), jwks, { issuer: opts.issuer, audience: resource, typ: "at+jwt", algorithms: ["RS256"], clockTolerance: 0, requiredClaims: ["exp", "sub"] }));
      if (!String(payload.scope ?? "").split(" ").includes("mcp:read")) throw new Error("scope lacks mcp:read");
      if (refuse(auth.slice("Bearer ".length))) throw new Error("token revoked");
    } catch (e) {
      hits.push({ status: 401, reason: "invalid-token" });
      const description = (e instanceof Error ? e.message : String(e)).replace(/["\\]/g, "'");
      res.writeHead(401, { "www-authenticate": challenge(`, error="invalid_token", error_description="${description}"`), "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_token" }));
      return;
    }
    const scopes = String(payload.scope ?? "").split(" ").filter(Boolean);
    let parsed: unknown;
    try { parsed = body ? JSON.parse(body) : undefined; } catch { parsed = undefined; }
    const message = parsed as JSONRPCMessage | undefined;
    if (message && "method" in message && message.method === "tools/call" && (message.params as { name?: string } | undefined)?.name === "write_record" && !scopes.includes("mcp:write")) {
      hits.push({ status: 403, reason: "insufficient-scope" });
      res.writeHead(403, { "www-authenticate": challenge(`, error="insufficient_scope", scope="mcp:read mcp:write"`), "content-type": "application/json" }).end(JSON.stringify({ error: "insufficient_scope" }));
      return;
    }
    hits.push({ status: 200, reason: "ok" });
    const authInfo: AuthInfo = { token: auth.slice("Bearer ".length), clientId: String(payload.client_id ?? ""), scopes, expiresAt: payload.exp, resource: new URL(resource), extra: { sub: payload.sub } };
    await sendWeb(res, await handler.fetch(webRequest(req, body, res), { parsedBody: parsed, authInfo })).catch(() => { /* a cut stream */ });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  resource = `${origin}/mcp`;
  resourceMetadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  return {
    url: resource,
    resourceMetadataUrl,
    calls,
    hits,
    records,
    requests,
    get authorizationServers() { return authorizationServers; },
    set authorizationServers(list: string[]) { authorizationServers = list; },
    get refuse() { return refuse; },
    set refuse(f: (token: string) => boolean) { refuse = f; },
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
