// Attacks on atrium's OAuth client by servers of our own on 127.0.0.1 (issue 19): a remote MCP
// server that switches its protected resource metadata to another authorization server after a
// login (logout must revoke only at the issuer that issued the tokens, spec/oauth.md O8); a 401
// that points discovery at another local service, and a background start that would register a
// client nobody asked for (O12); authorization endpoints of schemes a host would hand to the OS
// (O11). Each hostile server records every request it is sent, so what atrium did not send is
// checked by what arrived, after the exchange that would have sent it ended.
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startLogin } from "../glue/auth/flow.js";
import { logout } from "../glue/auth/revocation.js";
import { ConnectorOAuth } from "../glue/auth/provider.js";
import { boundedAuthFetch } from "../glue/auth/bounded-fetch.js";
import { needsLogin, refusedWithoutLogin } from "../glue/auth/needs-login.js";
import { OAUTH_DOCUMENT_BYTES_MAX, OAUTH_SCOPE_CHARS_MAX } from "../glue/decisions/generated/spec.js";
import { TokenStore } from "../glue/auth/store.js";
import { TokenFile } from "../glue/auth/file-store.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";
import type { HttpConnectorConfig } from "../glue/config/schema.js";
import { startAtrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

interface Hit { method: string; path: string; body: string }
type Route = (req: IncomingMessage, res: ServerResponse, body: string) => boolean | void;

/** A server that records every request (method, path, body) and answers with `route`, else 404. */
async function recordingServer(route: (origin: string) => Route = () => () => false) {
  const hits: Hit[] = [];
  let answer: Route = () => false;
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      hits.push({ method: req.method ?? "", path: (req.url ?? "/").split("?")[0], body });
      if (!answer(req, res, body)) res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  answer = route(origin);
  const server = { origin, hits, close: () => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }) };
  cleanups.push(server.close);
  return server;
}

const json = (res: ServerResponse, status: number, body: unknown): true => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  return true;
};

/** An authorization server: metadata, registration, token (one code, then refreshes) and revocation. */
function authServer(name: string, over: (origin: string) => Record<string, unknown> = () => ({})) {
  return (origin: string): Route => (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/.well-known/oauth-authorization-server") return json(res, 200, { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, registration_endpoint: `${origin}/reg`, revocation_endpoint: `${origin}/revoke`, response_types_supported: ["code"], code_challenge_methods_supported: ["S256"], ...over(origin) });
    if (path === "/reg") return json(res, 201, { client_id: `${name}-client`, redirect_uris: ["http://127.0.0.1/callback"] });
    if (path === "/token") return json(res, 200, { access_token: `${name}-access`, token_type: "Bearer", expires_in: 3600, refresh_token: `${name}-refresh` });
    if (path === "/revoke") return json(res, 200, {});
  };
}

/** A remote MCP server that refuses everything with a 401 and names `prm()` as its protected resource metadata. */
function protectedServer(prm: (origin: string) => unknown, challenge: (origin: string) => string = (o) => `Bearer resource_metadata="${o}/.well-known/oauth-protected-resource/mcp"`) {
  return (origin: string): Route => (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/mcp") {
      res.writeHead(401, { "www-authenticate": challenge(origin) }).end();
      return true;
    }
    if (path.startsWith("/.well-known/oauth-protected-resource")) return json(res, 200, prm(origin));
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function store(): TokenStore {
  const dir = mkdtempSync(join(tmpdir(), "atrium-oauth-hostile-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(dir));
}

function connector(url: string): HttpConnectorConfig {
  const r = validateConfig({ mcpServers: { remote: { url } } }, core());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config.connectors[0] as HttpConnectorConfig;
}

/** A login a person completes: the authorization URL's redirect is followed with a code. */
async function logInOnce(config: HttpConnectorConfig, tokens: TokenStore): Promise<URL> {
  const start = await startLogin(config, tokens);
  if (start.kind !== "pending") throw new Error("expected a pending login");
  cleanups.push(() => start.cancel());
  const url = new URL(start.authorizationUrl);
  await fetch(`${url.searchParams.get("redirect_uri")}?code=abc&state=${url.searchParams.get("state")}`);
  await start.done;
  return url;
}

/** A background start as the connector does it: the SDK client over Streamable HTTP with atrium's provider; answers what it threw. */
async function backgroundStart(config: HttpConnectorConfig, tokens: TokenStore): Promise<unknown> {
  const fetchFn = boundedAuthFetch(config.url);
  const transport = new StreamableHTTPClientTransport(new URL(config.url), { fetch: fetchFn, authProvider: new ConnectorOAuth(config, tokens, fetchFn).forTransport() });
  const client = new Client({ name: "hostile-test", version: "0" });
  try {
    await client.connect(transport);
    return undefined;
  } catch (e) {
    return e;
  } finally {
    await client.close().catch(() => {});
  }
}

describe("O8: tokens stay bound to the issuer that issued them", () => {
  it("after a login at AS1, a 401 naming AS2 keeps AS1 as the tokens' issuer, and logout revokes at AS1 only, sending AS2 nothing", async () => {
    const as1 = await recordingServer(authServer("as1"));
    const as2 = await recordingServer(authServer("as2"));
    let current = as1.origin;
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [current] })));
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    expect(tokens.get(config.id, config.url)?.tokens?.access_token).toBe("as1-access");

    current = as2.origin; // the server now names another authorization server and answers a 401
    const failed = await backgroundStart(config, tokens);
    expect(needsLogin(failed), "a server naming another issuer needs a new login").toBeTruthy();
    const record = tokens.get(config.id, config.url)!;
    expect(record.issuer).toBe(as1.origin);
    expect(record.revocationEndpoint).toBe(`${as1.origin}/revoke`);

    const out = await logout(config, tokens);
    expect(as2.hits.filter((h) => h.method === "POST")).toEqual([]);
    expect(as2.hits.some((h) => h.body.includes("as1-"))).toBe(false);
    expect(as1.hits.filter((h) => h.path === "/revoke").map((h) => new URLSearchParams(h.body).get("token"))).toEqual(["as1-refresh", "as1-access"]);
    expect(out.lines.join("\n")).not.toContain(as2.origin);
    expect(tokens.get(config.id, config.url)?.tokens).toBeUndefined();
  });

  it("a login started after the server switched to AS2 goes to AS2 and never sends AS1's tokens there; the new tokens carry AS2", async () => {
    const as1 = await recordingServer(authServer("as1"));
    const as2 = await recordingServer(authServer("as2"));
    let current = as1.origin;
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [current] })));
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    current = as2.origin;
    const url = await logInOnce(config, tokens);
    expect(url.origin).toBe(as2.origin);
    expect(as2.hits.some((h) => h.body.includes("as1-"))).toBe(false);
    const record = tokens.get(config.id, config.url)!;
    expect(record.tokens?.access_token).toBe("as2-access");
    expect(record.issuer).toBe(as2.origin);
    expect(record.revocationEndpoint).toBe(`${as2.origin}/revoke`);
  });

  it("a stored record whose revocation endpoint is not of the tokens' issuer (written before this fix) is revoked nowhere; the local copy is still deleted", async () => {
    const as2 = await recordingServer(authServer("as2"));
    const config = connector("http://127.0.0.1:9/mcp");
    const tokens = store();
    tokens.update(config.id, config.url, (r) => ({ ...r, tokens: { access_token: "as1-access", refresh_token: "as1-refresh", token_type: "Bearer", issuer: "http://127.0.0.1:1" } as never, client: { client_id: "c" }, issuer: as2.origin, revocationEndpoint: `${as2.origin}/revoke` }));
    const out = await logout(config, tokens);
    expect(as2.hits).toEqual([]);
    expect(out.lines.join("\n")).toMatch(/not revoked/);
    expect(tokens.get(config.id, config.url)?.tokens).toBeUndefined();
  });
});

describe("O12: discovery fetches only the server's origin, then its authorization server; nothing is registered without a person", () => {
  it("a background start with a 401 naming another local service's URL never fetches it", async () => {
    const victim = await recordingServer(() => (_req, res) => json(res, 200, { secret: "VICTIM-SECRET" }));
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [o] }), () => `Bearer resource_metadata="${victim.origin}/admin"`));
    const config = connector(`${mcp.origin}/mcp`);
    const failed = await backgroundStart(config, store());
    expect(failed).toBeDefined();
    expect(victim.hits).toEqual([]);
  });

  it("a login with a 401 naming another origin's metadata URL never fetches it; the server's own well-known metadata is used", async () => {
    const victim = await recordingServer(() => (_req, res) => json(res, 200, { secret: "VICTIM-SECRET" }));
    const mcp = await recordingServer((o) => {
      const as = authServer("as")(o);
      const prm = protectedServer((x) => ({ resource: `${x}/mcp`, authorization_servers: [x] }), () => `Bearer resource_metadata="${victim.origin}/admin"`)(o);
      return (req, res, body) => prm(req, res, body) || as(req, res, body);
    });
    const config = connector(`${mcp.origin}/mcp`);
    await logInOnce(config, store());
    expect(victim.hits).toEqual([]);
    expect(mcp.hits.some((h) => h.path.startsWith("/.well-known/oauth-protected-resource"))).toBe(true);
  });

  it("a background start with stored tokens and a 401 naming another local service's URL never fetches it either", async () => {
    const victim = await recordingServer(() => (_req, res) => json(res, 200, { secret: "VICTIM-SECRET" }));
    let hostile = false;
    const mcp = await recordingServer((o) => {
      const as = authServer("as")(o);
      const prm = protectedServer((x) => ({ resource: `${x}/mcp`, authorization_servers: [x] }), (x) => `Bearer resource_metadata="${hostile ? `${victim.origin}/admin` : `${x}/.well-known/oauth-protected-resource/mcp`}"`)(o);
      return (req, res, body) => prm(req, res, body) || as(req, res, body);
    });
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    hostile = true;
    await backgroundStart(config, tokens);
    expect(mcp.hits.some((h) => h.path === "/token" && h.body.includes("grant_type=refresh_token")), "the refresh path ran").toBe(true);
    expect(victim.hits).toEqual([]);
  });

  it("a background start without a login registers no client and asks the authorization server nothing", async () => {
    const as = await recordingServer(authServer("as"));
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [as.origin] })));
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    for (let i = 0; i < 3; i++) expect(needsLogin(await backgroundStart(config, tokens))).toBeTruthy();
    expect(as.hits).toEqual([]);
    expect(tokens.all()).toEqual([]);
  });

  it("an honest server is sent one registration: later starts and logins reuse it", async () => {
    const as = await recordingServer(authServer("as"));
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [as.origin] })));
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    for (let i = 0; i < 2; i++) await backgroundStart(config, tokens);
    tokens.update(config.id, config.url, (r) => ({ ...r, tokens: undefined, expiresAt: undefined }));
    await backgroundStart(config, tokens);
    await logInOnce(config, tokens);
    expect(as.hits.filter((h) => h.path === "/reg")).toHaveLength(1);
  });

  it("a refresh refused by the authorization server with a body of its own: the background failure says the OAuth error code, never the body's text", async () => {
    let refuse = false;
    const as = await recordingServer((o) => {
      const honest = authServer("as")(o);
      return (req, res, body) => refuse && req.url === "/token" ? json(res, 400, { error: "invalid_request", error_description: "VICTIM-SECRET from the token endpoint" }) : honest(req, res, body);
    });
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [as.origin] })));
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    refuse = true;
    const failed = await backgroundStart(config, tokens);
    const said: string[] = [];
    for (let e = failed as { message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) said.push(String(e.message));
    expect(as.hits.some((h) => h.path === "/token" && h.body.includes("grant_type=refresh_token"))).toBe(true);
    expect(said.join(" | ")).toMatch(/invalid_request/);
    expect(said.join(" | ")).not.toContain("VICTIM-SECRET");
  });

  it("a login whose registration endpoint answers a body of its own: the login's failure names the status and code, never the body", async () => {
    const mcp = await recordingServer((o) => {
      const as = authServer("as")(o);
      const prm = protectedServer((x) => ({ resource: `${x}/mcp`, authorization_servers: [x] }))(o);
      return (req, res, body) => {
        if (req.url === "/reg") {
          res.writeHead(400, { "content-type": "text/plain" }).end("VICTIM-SECRET internal admin page");
          return true;
        }
        return prm(req, res, body) || as(req, res, body);
      };
    });
    const failed = await startLogin(connector(`${mcp.origin}/mcp`), store()).then(() => undefined, (e: Error) => e.message);
    expect(failed).toMatch(/^the login failed: .*HTTP 400/);
    expect(failed).not.toContain("VICTIM-SECRET");
  });

  it("through atrium: a remote connector whose 401 points at another local service leaves that service unasked, and its answer never reaches the model", async () => {
    const victim = await recordingServer(() => (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end("VICTIM-SECRET internal admin page");
      return true;
    });
    const mcp = await recordingServer(protectedServer(() => ({ resource: `${victim.origin}/`, authorization_servers: [victim.origin] }), () => `Bearer resource_metadata="${victim.origin}/admin"`));
    const a = await startAtrium({ config: { mcpServers: { remote: { url: `${mcp.origin}/mcp` } } }, env: { ATRIUM_KEYRING: "off" } });
    try {
      // The start has settled (needs_auth: the server's own metadata offers a login) before anything is checked.
      let search: any;
      await waitFor(async () => (search = await a.json("search_tools", { query: "" })).unavailable?.[0]?.state === "needs_auth", "the connector settles in needs_auth");
      const refused = await a.call("call_tool", { address: "remote.anything" });
      const said = JSON.stringify(refused) + JSON.stringify(search);
      expect(refused.isError).toBe(true);
      expect(said).not.toContain("VICTIM-SECRET");
      expect(victim.hits, said).toEqual([]);
    } finally {
      await a.close();
    }
  });
});

describe("O12: metadata atrium refused in the background is said as what was refused, not as 'advertises no login'", () => {
  /** After a login at an honest server, the server's metadata turns hostile (`hostile` decides how); a background start's failure, every message on its cause chain. */
  async function refusedAfterLogin(hostile: (origin: string) => Route) {
    let turned = false;
    const mcp = await recordingServer((o) => {
      const as = authServer("as")(o);
      const prm = protectedServer((x) => ({ resource: `${x}/mcp`, authorization_servers: [x] }))(o);
      const bad = hostile(o);
      return (req, res, body) => (turned && bad(req, res, body)) || prm(req, res, body) || as(req, res, body);
    });
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    turned = true;
    const failed = await backgroundStart(config, tokens);
    const said: string[] = [];
    for (let e = failed as { message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) said.push(String(e.message));
    return { failed, said: said.join(" | ") };
  }
  const prmPath = "/.well-known/oauth-protected-resource";

  it("protected resource metadata naming another resource: the failure names the resource refused (O7), is no RefusedWithoutLogin", async () => {
    const { failed, said } = await refusedAfterLogin(() => (req, res) => (req.url ?? "").startsWith(prmPath) ? json(res, 200, { resource: "http://127.0.0.1:1/elsewhere", authorization_servers: [] }) : false);
    expect(refusedWithoutLogin(failed), said).toBeUndefined();
    expect(said).toMatch(/Protected resource http:\/\/127\.0\.0\.1:1\/elsewhere does not match expected .*; refused/);
    expect(said).not.toMatch(/advertises no login/);
  });

  it("authorization server metadata naming another issuer: the failure names the issuer refused (O8), is no RefusedWithoutLogin", async () => {
    const { failed, said } = await refusedAfterLogin((o) => (req, res) => req.url === "/.well-known/oauth-authorization-server" ? json(res, 200, { issuer: "http://127.0.0.1:1", authorization_endpoint: `${o}/authorize`, token_endpoint: `${o}/token`, response_types_supported: ["code"], code_challenge_methods_supported: ["S256"] }) : false);
    expect(refusedWithoutLogin(failed), said).toBeUndefined();
    expect(said).toMatch(/names the issuer http:\/\/127\.0\.0\.1:1, another server .*; refused/);
    expect(said).not.toMatch(/advertises no login/);
  });

  it(`authorization server metadata over OAUTH_DOCUMENT_BYTES_MAX (${OAUTH_DOCUMENT_BYTES_MAX}): the failure names the size refused, is no RefusedWithoutLogin`, async () => {
    const { failed, said } = await refusedAfterLogin((o) => (req, res) => req.url === "/.well-known/oauth-authorization-server" ? json(res, 200, { issuer: o, authorization_endpoint: `${o}/authorize`, token_endpoint: `${o}/token`, response_types_supported: ["code"], padding: "x".repeat(OAUTH_DOCUMENT_BYTES_MAX) }) : false);
    expect(refusedWithoutLogin(failed), said).toBeUndefined();
    expect(said).toMatch(new RegExp(`answered more than ${OAUTH_DOCUMENT_BYTES_MAX} bytes`));
    expect(said).not.toMatch(/advertises no login/);
  });

  it(`through atrium, with no stored tokens: protected resource metadata over OAUTH_DOCUMENT_BYTES_MAX makes the connector's problem name the size refused, not 'advertises no login'`, async () => {
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [o], padding: "x".repeat(OAUTH_DOCUMENT_BYTES_MAX) })));
    const a = await startAtrium({ config: { mcpServers: { remote: { url: `${mcp.origin}/mcp` } } }, env: { ATRIUM_KEYRING: "off" } });
    try {
      let entry: any;
      await waitFor(async () => (entry = (await a.json("search_tools", { query: "" })).unavailable?.[0])?.problem !== undefined && entry.state !== "starting", "the connector's first start has failed");
      const said = JSON.stringify(entry);
      expect(said).toMatch(new RegExp(`answered more than ${OAUTH_DOCUMENT_BYTES_MAX} bytes`));
      expect(said).not.toMatch(/advertises no login/);
    } finally {
      await a.close();
    }
  });
});

describe("O11: an authorization URL is https:, or http: on loopback", () => {
  for (const endpoint of ["ms-msdt:/id PCWDiagnostic /skip force", "smb://attacker.example/share/login", "vscode://attacker.ext/install", "file:///etc/passwd", "http://as.example/authorize"]) {
    it(`an authorization server whose authorization_endpoint is ${endpoint.split(":")[0]}: (${endpoint}) fails the login: no URL is handed out, no client registered`, async () => {
      const mcp = await recordingServer((o) => {
        const as = authServer("as", () => ({ authorization_endpoint: endpoint }))(o);
        const prm = protectedServer((x) => ({ resource: `${x}/mcp`, authorization_servers: [x] }))(o);
        return (req, res, body) => prm(req, res, body) || as(req, res, body);
      });
      const tokens = store();
      await expect(startLogin(connector(`${mcp.origin}/mcp`), tokens)).rejects.toThrow(/authorization (URL|endpoint).*(https|loopback)/);
      expect(mcp.hits.filter((h) => h.path === "/reg")).toEqual([]);
      expect(tokens.all().some((r) => r.client || r.tokens)).toBe(false);
    });
  }
});

describe("the scope a login asks for", () => {
  it("is the scope the 401's WWW-Authenticate names, not the resource's whole scopes_supported (MCP authorization: scope selection)", async () => {
    const as = await recordingServer(authServer("as"));
    const mcp = await recordingServer(protectedServer(
      (o) => ({ resource: `${o}/mcp`, authorization_servers: [as.origin], scopes_supported: ["files:read", "files:write", "admin"] }),
      (o) => `Bearer resource_metadata="${o}/.well-known/oauth-protected-resource/mcp", scope="files:read"`,
    ));
    const url = await logInOnce(connector(`${mcp.origin}/mcp`), store());
    expect(url.searchParams.get("scope")).toBe("files:read");
  });

  it("is the resource's scopes_supported when the 401 names no scope", async () => {
    const as = await recordingServer(authServer("as"));
    const mcp = await recordingServer(protectedServer((o) => ({ resource: `${o}/mcp`, authorization_servers: [as.origin], scopes_supported: ["files:read", "files:write"] })));
    const url = await logInOnce(connector(`${mcp.origin}/mcp`), store());
    expect(url.searchParams.get("scope")).toBe("files:read files:write");
  });
});

/** A 2025-03-26 server: no protected resource metadata; a 401 with `challenge`; its own origin is its authorization server (`metadata`: whether it serves RFC 8414 metadata, else the default endpoints). */
function legacyServer(challenge: string | undefined, metadata: boolean) {
  return (origin: string): Route => (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/mcp") {
      res.writeHead(401, challenge ? { "www-authenticate": challenge } : {}).end();
      return true;
    }
    if (path === "/.well-known/oauth-authorization-server" && metadata) return json(res, 200, { issuer: origin, authorization_endpoint: `${origin}/oauth/authorize`, token_endpoint: `${origin}/oauth/token`, registration_endpoint: `${origin}/oauth/register`, response_types_supported: ["code"], code_challenge_methods_supported: ["S256"] });
    if (path === (metadata ? "/oauth/register" : "/register")) return json(res, 201, { client_id: "legacy-client", redirect_uris: ["http://127.0.0.1/callback"] });
    if (path === (metadata ? "/oauth/token" : "/token")) return json(res, 200, { access_token: "legacy-access", token_type: "Bearer", expires_in: 3600 });
  };
}

describe("O5: a 2025-03-26 server (no protected resource metadata, a Bearer challenge) offers a login at its own origin", () => {
  for (const metadata of [true, false]) {
    const how = metadata ? "its authorization server metadata at its origin" : "no metadata at all: the default endpoints /authorize, /token, /register";
    it(`with ${how}: a background start needs a login and asks nothing but the resource metadata's well-known locations; a person's login asks only that origin`, async () => {
      const mcp = await recordingServer(legacyServer(`Bearer error="invalid_token", error_description="Missing Authorization header"`, metadata));
      const config = connector(`${mcp.origin}/mcp`);
      const tokens = store();
      const failed = await backgroundStart(config, tokens);
      expect(needsLogin(failed), String(failed)).toBeTruthy();
      expect(refusedWithoutLogin(failed)).toBeUndefined();
      expect(mcp.hits.filter((h) => h.path !== "/mcp").every((h) => h.path.startsWith("/.well-known/oauth-protected-resource")), JSON.stringify(mcp.hits)).toBe(true);
      expect(tokens.all()).toEqual([]);

      const url = await logInOnce(config, tokens);
      expect(url.origin + url.pathname).toBe(`${mcp.origin}${metadata ? "/oauth/authorize" : "/authorize"}`);
      expect(url.searchParams.get("resource"), "no resource metadata: no indicator (O7)").toBeNull();
      expect(tokens.get(config.id, config.url)?.tokens?.access_token).toBe("legacy-access");
      expect(mcp.hits.some((h) => h.path === (metadata ? "/oauth/register" : "/register"))).toBe(true);
      expect(mcp.hits.filter((h) => h.path.startsWith("/.well-known/")).map((h) => h.path).every((p) => p.startsWith("/.well-known/oauth-protected-resource") || p === "/.well-known/oauth-authorization-server" || p === "/.well-known/openid-configuration"), "only the origin's own well-known documents").toBe(true);
      expect(await backgroundStart(config, tokens), "the stored token is sent and judged by the server's answer").toBeDefined();
    });
  }

  for (const challenge of [undefined, `Basic realm="files"`, `Basic realm="Bearer"`]) {
    it(`a 401 without resource metadata and ${challenge ? `only the challenge ${challenge}` : "no WWW-Authenticate"} still offers no login: the operator's credentials are wanted, and nothing is registered`, async () => {
      const mcp = await recordingServer(legacyServer(challenge, true));
      const tokens = store();
      const failed = await backgroundStart(connector(`${mcp.origin}/mcp`), tokens);
      expect(refusedWithoutLogin(failed), String(failed)).toBeDefined();
      expect(needsLogin(failed)).toBeUndefined();
      expect(mcp.hits.some((h) => h.path.includes("oauth-authorization-server") || h.path.includes("register"))).toBe(false);
      expect(tokens.all()).toEqual([]);
    });
  }

  it("through atrium: authorize_connector offers the login of a 2025-03-26 server (needs_auth, then a URL at its own /authorize), as `atrium auth login` does", async () => {
    const mcp = await recordingServer(legacyServer(`Bearer`, false));
    const a = await startAtrium({ config: { mcpServers: { legacy: { url: `${mcp.origin}/mcp` } } }, env: { ATRIUM_KEYRING: "off" } });
    try {
      await waitFor(async () => (await a.json("search_tools", { query: "" })).unavailable?.[0]?.state === "needs_auth", "the connector settles in needs_auth");
      const r = await a.call("authorize_connector", { connector: "legacy" });
      const s = r.structuredContent as { status?: string; authorizationUrl?: string };
      expect(s.status, JSON.stringify(r)).toBe("login_pending");
      expect(new URL(s.authorizationUrl!).href.startsWith(`${mcp.origin}/authorize?`)).toBe(true);
    } finally {
      await a.close();
    }
  });
});

describe("O14: a 403 insufficient_scope is a step-up login once per scope it adds, never a loop", () => {
  /** A protected server whose 401 asks for files:read; the MCP endpoint is then `forbid`'s to answer. */
  async function stepUpServer() {
    return recordingServer((o) => {
      const as = authServer("as")(o);
      const prm = protectedServer((x) => ({ resource: `${x}/mcp`, authorization_servers: [x], scopes_supported: ["files:read", "files:write"] }), (x) => `Bearer resource_metadata="${x}/.well-known/oauth-protected-resource/mcp", scope="files:read"`)(o);
      return (req, res, body) => prm(req, res, body) || as(req, res, body);
    });
  }
  /** The transport's fetch as the connector builds it, answering the MCP endpoint with a 403 carrying `challenge`. */
  async function forbiddenOnce(config: HttpConnectorConfig, tokens: TokenStore, challenge: string | undefined): Promise<unknown> {
    const provider = new ConnectorOAuth(config, tokens, boundedAuthFetch(config.url));
    const watched = provider.watchForbidden(async () => new Response("{}", { status: 403, headers: challenge ? { "www-authenticate": challenge } : {} }));
    return watched(config.url, { method: "POST" }).then((r) => r.status, (e: unknown) => e);
  }

  it("a 403 naming a scope the login lacks records the union and needs a login; the next login asks for it anew (no refresh) and clears the record", async () => {
    const mcp = await stepUpServer();
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    expect((await logInOnce(config, tokens)).searchParams.get("scope")).toBe("files:read");
    expect(tokens.get(config.id, config.url)?.tokens?.scope, "the token answer names no scope: the one asked").toBe("files:read");

    const failed = await forbiddenOnce(config, tokens, `Bearer error="insufficient_scope", scope="files:write", resource_metadata="${mcp.origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(needsLogin(failed), String(failed)).toBeTruthy();
    expect(tokens.get(config.id, config.url)?.stepUpScope).toBe("files:read files:write");

    const refreshesBefore = mcp.hits.filter((h) => h.path === "/token" && h.body.includes("refresh_token")).length;
    const url = await logInOnce(config, tokens);
    expect(url.searchParams.get("scope")).toBe("files:read files:write");
    expect(mcp.hits.filter((h) => h.path === "/token" && h.body.includes("refresh_token")).length, "a refresh cannot widen a grant").toBe(refreshesBefore);
    const record = tokens.get(config.id, config.url)!;
    expect(record.stepUpScope).toBeUndefined();
    expect(record.tokens?.scope).toBe("files:read files:write");
  });

  it("a 403 naming only scopes the login has, or none, is a refusal that stands: no login needed, nothing recorded (a server that always says insufficient_scope gets one login, not a loop)", async () => {
    const mcp = await stepUpServer();
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    for (const challenge of [`Bearer error="insufficient_scope", scope="files:read"`, `Bearer error="insufficient_scope"`, `Bearer error="insufficient_scope", scope="  files:read  "`]) {
      const failed = await forbiddenOnce(config, tokens, challenge);
      expect(needsLogin(failed), challenge).toBeUndefined();
      expect(String((failed as Error).message)).toMatch(/names no scope the stored login lacks; logging in again would ask for the same/);
      expect(tokens.get(config.id, config.url)?.stepUpScope).toBeUndefined();
    }
  });

  it(`a 403 whose union would pass OAUTH_SCOPE_CHARS_MAX (${OAUTH_SCOPE_CHARS_MAX}) is a refusal that stands, and nothing is stored`, async () => {
    const mcp = await stepUpServer();
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    await logInOnce(config, tokens);
    const failed = await forbiddenOnce(config, tokens, `Bearer error="insufficient_scope", scope="${"w".repeat(OAUTH_SCOPE_CHARS_MAX)}"`);
    expect(needsLogin(failed)).toBeUndefined();
    expect(String((failed as Error).message)).toMatch(/OAUTH_SCOPE_CHARS_MAX/);
    expect(tokens.get(config.id, config.url)?.stepUpScope).toBeUndefined();
  });

  it("a 403 that is not insufficient_scope passes on to be judged as before", async () => {
    const mcp = await stepUpServer();
    const config = connector(`${mcp.origin}/mcp`);
    const tokens = store();
    expect(await forbiddenOnce(config, tokens, `Bearer error="invalid_token", scope="files:write"`)).toBe(403);
    expect(await forbiddenOnce(config, tokens, undefined)).toBe(403);
    expect(tokens.all()).toEqual([]);
  });
});
