// A real OAuth 2.1 / OpenID authorization server for the tests (issue 11): oidc-provider on
// 127.0.0.1, an ephemeral port, in this process. Importing this module has no side effects.
//
// What it does, and how:
//   grants        client_credentials (service tokens, sub = client_id) and authorization_code (PKCE required, S256 only: oidc-provider 9 knows no other
//                 method) and refresh_token, rotated on every use (the old one is consumed; a
//                 consumed one presented again revokes the grant, as oidc-provider does)
//   clients       dynamic registration (RFC 7591, open: no initial access token) plus any
//                 pre-registered ones in `opts.clients`
//   tokens        RFC 8707 resource indicators: an access token is for ONE resource (the MCP
//                 server's URL, `opts.resource`), carries it as `aud`, and is a JWT (RFC 9068,
//                 typ at+jwt, RS256) so the resource server verifies it offline against the
//                 JWKS. (Opaque tokens + introspection would make every MCP request a round trip
//                 to the AS; the price of JWTs is that a revoked access token stays usable until
//                 it expires, which is why the TTL is short and settable.)
//   TTLs          access token `accessTokenTtl` seconds (default 60, settable at run time on the
//                 handle, so a test can get a token that expires in 1 s); code 60 s; refresh 1 day
//   revocation    RFC 7009 at /token/revocation; and helpers on the handle (revokeGrant, revokeAll)
//   metadata      /.well-known/openid-configuration (oidc-provider's) and the same document at
//                 /.well-known/oauth-authorization-server (RFC 8414), which the SDK client tries first
//   client auth   at the token endpoint: oidc-provider's methods (client_secret_basic, _post, _jwt,
//                 private_key_jwt, none), or only those `clientAuthMethods` names (the metadata's
//                 token_endpoint_auth_methods_supported says the same)
//   requests      with `recordRequests`, every request as it arrived (method, path and query,
//                 headers, body): the body is read first and handed to oidc-provider already read
//                 (it warns once that it was), so a test sees what a client sent, the token
//                 request's client authentication included
//   login         oidc-provider's dev interactions: a login form (any login, any password: the login
//                 becomes the token's `sub`) and a consent form with one button. A browser can
//                 complete both; nothing here is for real users.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { errors, type Adapter, type AdapterPayload, type ClientAuthMethod, type ClientMetadata, type Configuration } from "oidc-provider";

/** The scopes an access token for the MCP server can carry. */
const RESOURCE_SCOPES = ["mcp:read", "mcp:write"] as const;

export interface AuthServerOptions {
  /** The protected resource (the MCP server's URL) tokens are issued for; other resource indicators are
   * refused (invalid_target). Settable later on the handle, since the MCP server needs the issuer first. */
  resource?: string;
  /** Access token lifetime in seconds (default 60). */
  accessTokenTtl?: number;
  /** Pre-registered clients (oidc-provider client metadata); a client with grant_types ["client_credentials"] gets tokens whose `sub` is its client_id. */
  clients?: ClientMetadata[];
  /** Claims added to each access token (a groups claim, say), by the client it is issued to. */
  extraClaims?: (clientId: string) => Record<string, unknown>;
  /** The client authentication methods the token endpoint takes (oidc-provider's defaults when unset). */
  clientAuthMethods?: ClientAuthMethod[];
  /** Record every request as it arrived, body included (`requests`). */
  recordRequests?: boolean;
}

/** One request as it arrived at the authorization server. */
interface AsRequest { method: string; url: string; path: string; headers: Record<string, string | string[] | undefined>; body: string }

export interface AuthServer {
  /** The issuer, http://127.0.0.1:PORT (no trailing slash). */
  issuer: string;
  /** The provider itself, for what the helpers below do not cover. */
  provider: Provider;
  /** Access token lifetime in seconds for tokens issued from now on. */
  accessTokenTtl: number;
  /** The one resource tokens are issued for. */
  resource: string;
  /** Every request the server saw, as "METHOD /path" (no query). */
  hits: string[];
  /** With `recordRequests`: every request as it arrived, body included; empty otherwise. */
  requests: AsRequest[];
  /** Revokes a grant: its refresh tokens, access tokens and codes stop working at the AS. */
  revokeGrant(grantId: string): Promise<void>;
  /** Revokes every grant issued so far; answers how many. */
  revokeAll(): Promise<number>;
  /** The grant ids of the live refresh tokens. */
  grantIds(): string[];
  close(): Promise<void>;
}

/** oidc-provider's storage, in memory, with the grant index the revoke helpers need. */
class MemoryStore {
  readonly models = new Map<string, Map<string, AdapterPayload>>();
  readonly byGrant = new Map<string, Set<[string, string]>>();

  model(name: string): Map<string, AdapterPayload> {
    let m = this.models.get(name);
    if (!m) this.models.set(name, (m = new Map()));
    return m;
  }

  adapter(name: string): Adapter {
    const store = this;
    const rows = this.model(name);
    return {
      async upsert(id, payload) {
        rows.set(id, payload);
        if (payload.grantId) {
          let s = store.byGrant.get(payload.grantId);
          if (!s) store.byGrant.set(payload.grantId, (s = new Set()));
          s.add([name, id]);
        }
      },
      async find(id) { return rows.get(id); },
      async findByUserCode(code) { return [...rows.values()].find((p) => p.userCode === code); },
      async findByUid(uid) { return [...rows.values()].find((p) => p.uid === uid); },
      async consume(id) { const p = rows.get(id); if (p) p.consumed = Math.floor(Date.now() / 1000); },
      async destroy(id) { rows.delete(id); },
      async revokeByGrantId(grantId) { store.revokeGrant(grantId); },
    };
  }

  revokeGrant(grantId: string): void {
    for (const [name, id] of this.byGrant.get(grantId) ?? []) this.models.get(name)?.delete(id);
    this.byGrant.delete(grantId);
    this.models.get("Grant")?.delete(grantId);
  }
}

/** Starts the authorization server; `close()` stops it. */
export async function startAuthServer(opts: AuthServerOptions): Promise<AuthServer> {
  const hits: string[] = [];
  const requests: AsRequest[] = [];
  const store = new MemoryStore();
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const http = createServer(async (req, res) => {
    hits.push(`${req.method} ${(req.url ?? "/").split("?")[0]}`);
    if (opts.recordRequests) {
      let body = "";
      for await (const c of req) body += c;
      requests.push({ method: req.method ?? "", url: req.url ?? "/", path: (req.url ?? "/").split("?")[0], headers: { ...req.headers }, body });
      (req as IncomingMessage & { body?: string }).body = body; // oidc-provider reads a body already read from here
    }
    // RFC 8414 metadata: the same document oidc-provider serves as OpenID discovery.
    if (req.url?.startsWith("/.well-known/oauth-authorization-server")) req.url = "/.well-known/openid-configuration";
    if (handle) handle(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const state = { accessTokenTtl: opts.accessTokenTtl ?? 60, resource: opts.resource ?? "" };

  const configuration: Configuration = {
    adapter: (name: string) => store.adapter(name),
    clients: opts.clients ?? [],
    ...(opts.clientAuthMethods && { clientAuthMethods: opts.clientAuthMethods }),
    clientDefaults: { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" },
    scopes: ["openid", "offline_access", ...RESOURCE_SCOPES],
    claims: { openid: ["sub"] },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    pkce: { required: () => true },
    responseTypes: ["code"],
    features: {
      devInteractions: { enabled: true },
      // Service tokens for the team-mode tests: one client, one principal.
      clientCredentials: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      // A client may revoke only its own tokens.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => state.resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!state.resource || indicator !== state.resource) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return { scope: RESOURCE_SCOPES.join(" "), audience: state.resource, accessTokenTTL: state.accessTokenTtl, accessTokenFormat: "jwt", jwt: { sign: { alg: "RS256" } } };
        },
      },
    },
    // A refresh token whenever the client may use the grant, with or without offline_access
    // (which oidc-provider would tie to a consent prompt), rotated on every use.
    extraTokenClaims: async (_ctx, token) => (opts.extraClaims && token.clientId ? opts.extraClaims(token.clientId) : undefined),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: () => state.accessTokenTtl,
      AuthorizationCode: 60,
      RefreshToken: 24 * 3600,
      Grant: 24 * 3600,
      Session: 3600,
      Interaction: 600,
      IdToken: 600,
    },
    // Tests should see the error, not an HTML page about it.
    renderError: async (ctx, out) => {
      ctx.type = "application/json";
      ctx.body = out;
    },
  };
  const provider = new Provider(issuer, configuration);
  // oidc-provider logs each server_error to stderr through this event; keep it (a test that hits one should show why).
  handle = provider.callback();

  return {
    issuer,
    provider,
    get accessTokenTtl() { return state.accessTokenTtl; },
    set accessTokenTtl(s: number) { state.accessTokenTtl = s; },
    get resource() { return state.resource; },
    set resource(r: string) { state.resource = r; },
    hits,
    requests,
    async revokeGrant(grantId) { store.revokeGrant(grantId); },
    async revokeAll() {
      const ids = [...store.byGrant.keys()];
      for (const id of ids) store.revokeGrant(id);
      for (const id of [...(store.models.get("Grant")?.keys() ?? [])]) store.revokeGrant(id);
      return ids.length;
    },
    grantIds() {
      return [...new Set([...(store.models.get("RefreshToken")?.values() ?? [])].map((p) => p.grantId).filter((g): g is string => typeof g === "string"))];
    },
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}
