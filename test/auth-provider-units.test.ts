// atrium's OAuth client provider for one remote connector (glue/auth/provider.ts), in process,
// with the real core and an in-memory login record store; the network is a fetch function of the
// test's that answers as a protected MCP server and its authorization server would, and records
// what it was asked. It proves: whose tokens these are (O15: the grant, a machine client's token
// request and metadata, the private_key_jwt assertion and an unreadable key), the login mode (the
// state, the redirect URI, the client metadata of a native or a web client), a 401 in the
// background (O5, O12: resource metadata only, no authorization server asked without tokens; the
// named metadata URL at the server's own origin only; a refresh through the SDK; failures in
// atrium's words), a 403 step-up (O14), the client registration (O1–O3, O13), the tokens (O9:
// refreshed first, once for concurrent reads; O8: the issuer and revocation endpoint recorded in
// one write, the scope asked filled in), the authorization URL and endpoints (O11), discovered
// metadata (O7, O8, and tokens bound to their issuer), and what each invalidation forgets.
import { afterEach, describe, expect, it } from "vitest";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type { FetchLike, OAuthDiscoveryState } from "@modelcontextprotocol/client";
import { AUTH_OPTIONS, ConnectorOAuth, metadataUrlToUse } from "../glue/auth/provider.js";
import { withTokens, type AuthRecord, type LoginRecords } from "../glue/auth/store.js";
import { NeedsLogin, RefusedWithoutLogin } from "../glue/auth/needs-login.js";
import { JudgedRefusal } from "../glue/auth/background-failure.js";
import type { HttpConnectorConfig, OAuthSettings } from "../glue/config/schema.js";
import { OAuthGrant, OAuthUnauthorized, OAUTH_REFRESH_LEAD_MS } from "../glue/decisions/generated/spec.js";
import { oauthAuthorizationUrlText, oauthForbiddenText, oauthIssuerText, oauthMachineTokenIssuerText, oauthResourceText, oauthTokenEndpointText, oauthTokenIssuerText } from "../glue/decisions/messages.js";
import { notLoopback } from "../glue/config/loopback.js";

const MCP = "https://mcp.example/mcp";
const AS = "https://as.example";
const PRM_URL = "https://mcp.example/.well-known/oauth-protected-resource/mcp";

const cleanups: (() => void)[] = [];
afterEach(() => { for (const c of cleanups.splice(0)) c(); });

function config(oauth: Partial<OAuthSettings> | null = {}, over: Partial<HttpConnectorConfig> = {}): HttpConnectorConfig {
  return {
    kind: "http", id: "remote", url: MCP, headers: {}, auth: "shared",
    oauth: oauth === null ? null : { grant: "authorization_code", clientId: null, clientSecret: null, privateKeyFile: null, signingAlgorithm: null, clientMetadataUrl: null, scope: null, redirectUri: null, ...oauth },
    ...over,
  } as HttpConnectorConfig;
}

/** Login records in memory, written as the token store writes them (withTokens). */
function memoryStore(initial?: Omit<AuthRecord, "connector" | "url">) {
  const records = new Map<string, AuthRecord>();
  const key = (c: string, u: string) => JSON.stringify([c, u]);
  if (initial) records.set(key("remote", MCP), { connector: "remote", url: MCP, ...initial });
  const store: LoginRecords = {
    get: (c, u) => records.get(key(c, u)),
    update: (c, u, change) => {
      const next = change(records.get(key(c, u)) ?? { connector: c, url: u });
      if (next) records.set(key(c, u), next);
      else records.delete(key(c, u));
    },
    saveTokens: (c, u, t, by) => store.update(c, u, withTokens(t, by)),
  };
  return { store, record: () => records.get(key("remote", MCP)) };
}

interface Hit { url: string; body: string }
type Routes = Record<string, (hit: Hit) => Response | Promise<Response>>;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const asMetadata = (over: Record<string, unknown> = {}) => ({ issuer: AS, authorization_endpoint: `${AS}/authorize`, token_endpoint: `${AS}/token`, revocation_endpoint: `${AS}/revoke`, response_types_supported: ["code"], code_challenge_methods_supported: ["S256"], ...over });

/** The network: each URL (without its query) answered by its route, else 404; every request recorded. */
function network(routes: Routes = {}) {
  const hits: Hit[] = [];
  const fetchFn: FetchLike = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = init?.body === undefined || init.body === null ? "" : String(init.body);
    const hit = { url, body };
    hits.push(hit);
    const u = new URL(url);
    const route = routes[u.origin + u.pathname];
    return route ? route(hit) : new Response("not here", { status: 404 });
  };
  return { fetchFn, hits, urls: () => hits.map((h) => h.url.split("?")[0]) };
}

/** A protected server with its resource metadata and authorization server (one token per token request). */
function fullNetwork(over: { as?: Record<string, unknown>; token?: (hit: Hit) => Response; prm?: Record<string, unknown> } = {}) {
  let n = 0;
  return network({
    [PRM_URL]: () => json({ resource: MCP, authorization_servers: [AS], ...over.prm }),
    [`${AS}/.well-known/oauth-authorization-server`]: () => json(asMetadata(over.as)),
    [`${AS}/token`]: over.token ?? (() => json({ access_token: `access-${++n}`, token_type: "Bearer", expires_in: 3600, refresh_token: `refresh-${n}` })),
  });
}

const unauthorized = (header?: string) => new Response(null, { status: 401, headers: header === undefined ? {} : { "www-authenticate": header } });

async function thrown(p: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

const receiver = (redirectUrl = "http://127.0.0.1:4567/callback", native = true, refusal: (uri: string) => string | undefined = notLoopback) => ({ redirectUrl, native, refusal });

const discovery = (over: Partial<OAuthDiscoveryState> = {}, meta: Record<string, unknown> = {}): OAuthDiscoveryState => ({
  authorizationServerUrl: AS,
  resourceMetadata: { resource: MCP, authorization_servers: [AS] },
  authorizationServerMetadata: asMetadata(meta) as OAuthDiscoveryState["authorizationServerMetadata"],
  ...over,
});

const soon = () => Date.now() + OAUTH_REFRESH_LEAD_MS / 2;
const later = () => Date.now() + OAUTH_REFRESH_LEAD_MS * 10;

describe("metadataUrlToUse (O12)", () => {
  it("keeps a named URL at the server's own origin, drops one elsewhere, and has nothing when nothing is named", () => {
    const same = new URL("https://mcp.example/meta/prm");
    expect(metadataUrlToUse(MCP, same)).toBe(same);
    expect(metadataUrlToUse(MCP, new URL("https://other.example/meta/prm"))).toBeUndefined();
    expect(metadataUrlToUse(MCP, undefined)).toBeUndefined();
  });

  it("every auth() call skips the SDK's own issuer check", () => {
    expect(AUTH_OPTIONS).toEqual({ skipIssuerMetadataValidation: true });
  });
});

describe("whose tokens these are (O15)", () => {
  it("a person's login by default: no machine, no token request of its own, no client assertion", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    expect(p.grant).toBe(OAuthGrant.person_login);
    expect(p.machine).toBe(false);
    expect(p.prepareTokenRequest("s")).toBeUndefined();
    expect(p.addClientAuthentication).toBeUndefined();
  });

  it("client credentials with a secret: a machine client whose token request is the client credentials grant, with the scope only when one is asked", () => {
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", clientSecret: "sec" }), memoryStore().store, network().fetchFn);
    expect(p.grant).toBe(OAuthGrant.client_secret);
    expect(p.machine).toBe(true);
    expect(p.prepareTokenRequest("read write")?.toString()).toBe("grant_type=client_credentials&scope=read+write");
    expect(p.prepareTokenRequest()?.toString()).toBe("grant_type=client_credentials");
    expect(p.prepareTokenRequest("")?.toString()).toBe("grant_type=client_credentials");
    expect(p.addClientAuthentication).toBeUndefined();
    expect(p.redirectUrl).toBeUndefined();
  });

  it("client credentials without a way to authenticate is no machine client", () => {
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc" }), memoryStore().store, network().fetchFn);
    expect(p.grant).toBe(OAuthGrant.no_client_auth);
    expect(p.machine).toBe(false);
    expect(p.prepareTokenRequest("s")).toBeUndefined();
  });

  it("a machine client's metadata: no redirect URIs, the client credentials grant, its authentication method, and the configured scope", () => {
    const secret = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", clientSecret: "sec", scope: "read" }), memoryStore().store, network().fetchFn);
    expect(secret.clientMetadata).toStrictEqual({ client_name: "atrium", redirect_uris: [], grant_types: ["client_credentials"], token_endpoint_auth_method: "client_secret_basic", scope: "read" });
    const jwt = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", privateKeyFile: "/nowhere/key.pem" }), memoryStore().store, network().fetchFn);
    expect(jwt.grant).toBe(OAuthGrant.private_key_jwt);
    expect(jwt.machine).toBe(true);
    expect(jwt.clientMetadata).toStrictEqual({ client_name: "atrium", redirect_uris: [], grant_types: ["client_credentials"], token_endpoint_auth_method: "private_key_jwt" });
  });

  it("private_key_jwt signs each token request's assertion with the key file (iss and sub the client ID, the configured algorithm), read when the token is fetched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-provider-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const keyFile = join(dir, "key.pem");
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", privateKeyFile: keyFile, signingAlgorithm: "ES256" }), memoryStore().store, network().fetchFn);
    // Not read until a token is fetched: the file is written after the provider was made.
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }));
    const params = new URLSearchParams();
    await p.addClientAuthentication!(new Headers(), params, `${AS}/token`, asMetadata() as never);
    expect(params.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    const [header, payload] = params.get("client_assertion")!.split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>);
    expect(header.alg).toBe("ES256");
    expect(payload).toMatchObject({ iss: "svc", sub: "svc", aud: AS });
  });

  it("private_key_jwt signs with RS256 when the config names no algorithm", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-provider-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const keyFile = join(dir, "key.pem");
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }));
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", privateKeyFile: keyFile }), memoryStore().store, network().fetchFn);
    const params = new URLSearchParams();
    await p.addClientAuthentication!(new Headers(), params, `${AS}/token`, asMetadata() as never);
    const header = JSON.parse(Buffer.from(params.get("client_assertion")!.split(".")[0], "base64url").toString("utf8")) as { alg: string };
    expect(header.alg).toBe("RS256");
  });

  it("an unreadable key file is atrium's own refusal naming the file and why", async () => {
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", privateKeyFile: "/nowhere/key.pem" }), memoryStore().store, network().fetchFn);
    const e = await thrown(async () => p.addClientAuthentication!(new Headers(), new URLSearchParams(), `${AS}/token`, undefined));
    expect(e).toBeInstanceOf(JudgedRefusal);
    expect((e as Error).message).toBe('could not read oauth.privateKeyFile "/nowhere/key.pem": ENOENT');
  });

  it("no assertion for a person's login or a key file without a client ID", () => {
    expect(new ConnectorOAuth(config({ privateKeyFile: "/k.pem", clientId: "svc" }), memoryStore().store, network().fetchFn).addClientAuthentication).toBeUndefined();
    expect(new ConnectorOAuth(config({ grant: "client_credentials", privateKeyFile: "/k.pem" }), memoryStore().store, network().fetchFn).addClientAuthentication).toBeUndefined();
  });
});

describe("the login mode", () => {
  it("a new state is 32 random bytes in base64url, different each time", () => {
    const a = ConnectorOAuth.newState();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ConnectorOAuth.newState()).not.toBe(a);
  });

  it("the redirect URI: the bound receiver's, else the configured one, else the loopback default", () => {
    expect(new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn).redirectUrl).toBe("http://127.0.0.1/callback");
    const fixed = new ConnectorOAuth(config({ redirectUri: "http://127.0.0.1:9999/cb" }), memoryStore().store, network().fetchFn);
    expect(fixed.redirectUrl).toBe("http://127.0.0.1:9999/cb");
    fixed.bindLogin(receiver("http://127.0.0.1:4567/callback"), "st");
    expect(fixed.redirectUrl).toBe("http://127.0.0.1:4567/callback");
  });

  it("the state is the bound login's; in the background asking for it is the refusal O5 names", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    const e = thrownSync(() => p.state());
    expect(e).toBeInstanceOf(RefusedWithoutLogin);
    expect((e as RefusedWithoutLogin).meaning).toBe(OAuthUnauthorized.no_login_offered);
    p.bindLogin(receiver(), "the-state");
    expect(p.state()).toBe("the-state");
  });

  it("binding a login forgets an authorization URL of an earlier one", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    p.bindLogin(receiver(), "one");
    p.redirectToAuthorization(new URL(`${AS}/authorize?x=1`));
    expect(p.authorizationUrl?.href).toBe(`${AS}/authorize?x=1`);
    p.bindLogin(receiver(), "two");
    expect(p.authorizationUrl).toBeUndefined();
  });

  it("a person's client metadata: a native app's with the redirect URI, or a web server's for atrium's own callback, with the configured scope", () => {
    const p = new ConnectorOAuth(config({ scope: "read" }), memoryStore().store, network().fetchFn);
    p.bindLogin(receiver("http://127.0.0.1:4567/callback"), "s");
    expect(p.clientMetadata).toStrictEqual({ client_name: "atrium", redirect_uris: ["http://127.0.0.1:4567/callback"], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", application_type: "native", scope: "read" });
    const team = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    team.bindLogin(receiver("https://atrium.example/oauth/callback", false, () => undefined), "s");
    expect(team.clientMetadata).toStrictEqual({ client_name: "atrium", redirect_uris: ["https://atrium.example/oauth/callback"], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", application_type: "web" });
    expect(new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn).clientMetadata).toMatchObject({ application_type: "native" });
  });

  it("the client metadata document URL is the configured one, else none", () => {
    expect(new ConnectorOAuth(config({ clientMetadataUrl: "https://atrium.example/client.json" }), memoryStore().store, network().fetchFn).clientMetadataUrl).toBe("https://atrium.example/client.json");
    expect(new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn).clientMetadataUrl).toBeUndefined();
  });

  it("the code verifier is kept until the verifier is invalidated", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    expect(p.codeVerifier()).toBe("");
    p.saveCodeVerifier("v");
    expect(p.codeVerifier()).toBe("v");
    p.invalidateCredentials("tokens");
    expect(p.codeVerifier()).toBe("v");
    p.invalidateCredentials("verifier");
    expect(p.codeVerifier()).toBe("");
  });
});

function thrownSync(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

describe("in the background where the server offers a login (O5): each step the SDK would take is a login needed, saying why", () => {
  const offering = () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    p.saveDiscoveryState(discovery());
    return p;
  };
  const why = (f: () => unknown) => {
    const e = thrownSync(f);
    expect(e).toBeInstanceOf(NeedsLogin);
    return (e as NeedsLogin).why;
  };

  it("the state, the client, a new registration and the authorization URL", () => {
    expect(why(() => offering().state())).toBe("no valid token is stored and a refresh was not possible");
    expect(why(() => offering().clientInformation())).toBe("atrium has no client registration with this server yet");
    expect(why(() => offering().saveClientInformation({ client_id: "c" }))).toBe("atrium has no client registration with this server yet");
    expect(why(() => offering().redirectToAuthorization(new URL(`${AS}/authorize`)))).toBe("the server asks for a login");
  });
});

describe("the authorization URL (O11)", () => {
  it("in the background no login starts: redirecting is refused", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    expect(thrownSync(() => p.redirectToAuthorization(new URL(`${AS}/authorize`)))).toBeInstanceOf(RefusedWithoutLogin);
    expect(p.authorizationUrl).toBeUndefined();
  });

  it("an https URL is recorded with the scope it asks for; one of another scheme or plain http elsewhere is refused in atrium's words and not recorded", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    for (const bad of ["javascript:alert(1)", "http://as.example/authorize"]) {
      const e = thrownSync(() => p.redirectToAuthorization(new URL(bad)));
      expect(e).toBeInstanceOf(JudgedRefusal);
      const name = bad.startsWith("javascript") ? "refused_scheme" : "not_loopback";
      expect((e as Error).message).toBe(oauthAuthorizationUrlText[name](new URL(bad).href));
      expect(p.authorizationUrl).toBeUndefined();
    }
    p.redirectToAuthorization(new URL(`${AS}/authorize?scope=read+write`));
    expect(p.authorizationUrl?.href).toBe(`${AS}/authorize?scope=read+write`);
  });
});

describe("discovered metadata (O7, O8, O11)", () => {
  it("metadata of this server and an issuer of its own is kept; without resource metadata no indicator is needed", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    expect(p.discoveryState()).toBeUndefined();
    const s = discovery();
    p.saveDiscoveryState(s);
    expect(p.discoveryState()).toBe(s);
    const none = discovery({ resourceMetadata: undefined });
    p.saveDiscoveryState(none);
    expect(p.discoveryState()).toBe(none);
  });

  it("resource metadata of another server is refused naming it, and nothing is kept", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    const e = thrownSync(() => p.saveDiscoveryState(discovery({ resourceMetadata: { resource: "https://other.example/mcp" } })));
    expect(e).toBeInstanceOf(JudgedRefusal);
    expect((e as Error).message).toBe(oauthResourceText.refused_origin("https://other.example/mcp", MCP));
    expect(p.discoveryState()).toBeUndefined();
  });

  it("authorization server metadata naming another issuer is refused naming both", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    const e = thrownSync(() => p.saveDiscoveryState(discovery({}, { issuer: "https://evil.example" })));
    expect(e).toBeInstanceOf(JudgedRefusal);
    expect((e as Error).message).toBe(oauthIssuerText.refused(AS, "https://evil.example"));
    expect(p.discoveryState()).toBeUndefined();
  });

  it("an authorization or token endpoint in plain http to another machine is refused before anything goes there", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    const a = thrownSync(() => p.saveDiscoveryState(discovery({}, { authorization_endpoint: "http://as.example/authorize" })));
    expect(a).toBeInstanceOf(JudgedRefusal);
    expect((a as Error).message).toBe(oauthAuthorizationUrlText.not_loopback("http://as.example/authorize"));
    const t = thrownSync(() => p.saveDiscoveryState(discovery({}, { token_endpoint: "http://as.example/token" })));
    expect(t).toBeInstanceOf(JudgedRefusal);
    expect((t as Error).message).toBe(oauthTokenEndpointText.not_loopback("http://as.example/token"));
    // Endpoints that are not strings are left to the SDK's own schema.
    p.saveDiscoveryState(discovery({}, { authorization_endpoint: 7, token_endpoint: 7 }));
    expect(p.discoveryState()).toBeDefined();
  });

  it("in the background, discovery naming another issuer than the stored tokens' is a new login, naming both", () => {
    const { store } = memoryStore({ tokens: { access_token: "a", token_type: "Bearer", issuer: "https://as1.example" } });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    const e = thrownSync(() => p.saveDiscoveryState(discovery()));
    expect(e).toBeInstanceOf(NeedsLogin);
    expect((e as NeedsLogin).why).toBe(oauthTokenIssuerText.new_login("https://as1.example", AS));
    expect(p.discoveryState()).toBeUndefined();
    // The same issuer (up to a trailing slash) is kept.
    const same = new ConnectorOAuth(config(null), memoryStore({ tokens: { access_token: "a", token_type: "Bearer", issuer: `${AS}/` } }).store, network().fetchFn);
    same.saveDiscoveryState(discovery());
    expect(same.discoveryState()).toBeDefined();
  });

  it("stored tokens without an issuer of their own are judged by the record's issuer; the authorization server URL stands in for metadata without one", () => {
    const { store } = memoryStore({ tokens: { access_token: "a", token_type: "Bearer" }, issuer: "https://as1.example" });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    const e = thrownSync(() => p.saveDiscoveryState(discovery({ authorizationServerMetadata: undefined })));
    expect((e as NeedsLogin).why).toBe(oauthTokenIssuerText.new_login("https://as1.example", AS));
  });

  it("discovery that names no issuer at all is judged as the empty issuer", () => {
    const { store } = memoryStore({ tokens: { access_token: "a", token_type: "Bearer", issuer: AS } });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    const e = thrownSync(() => p.saveDiscoveryState({ resourceMetadata: undefined, authorizationServerMetadata: undefined } as unknown as OAuthDiscoveryState));
    expect((e as NeedsLogin).why).toBe(oauthTokenIssuerText.new_login(AS, ""));
  });

  it("a machine client's tokens of another issuer are the operator's to resolve, naming the connector and both servers", () => {
    const { store } = memoryStore({ tokens: { access_token: "a", token_type: "Bearer", issuer: "https://as1.example" } });
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", clientSecret: "s" }), store, network().fetchFn);
    const e = thrownSync(() => p.saveDiscoveryState(discovery()));
    expect(e).toBeInstanceOf(JudgedRefusal);
    expect((e as Error).message).toBe(oauthMachineTokenIssuerText.new_login("remote", "https://as1.example", AS));
  });

  it("a person's login replaces tokens of another issuer: no binding is judged while logging in", () => {
    const { store } = memoryStore({ tokens: { access_token: "a", token_type: "Bearer", issuer: "https://as1.example" } });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    const s = discovery();
    p.saveDiscoveryState(s);
    expect(p.discoveryState()).toBe(s);
  });

  it("invalidating the discovery (or all) forgets it", () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    p.saveDiscoveryState(discovery());
    p.invalidateCredentials("tokens");
    expect(p.discoveryState()).toBeDefined();
    p.invalidateCredentials("discovery");
    expect(p.discoveryState()).toBeUndefined();
    p.saveDiscoveryState(discovery());
    p.invalidateCredentials("all");
    expect(p.discoveryState()).toBeUndefined();
  });
});

describe("the client registration (O1–O3, O13)", () => {
  it("a configured client is the client, with its secret only when there is one", () => {
    expect(new ConnectorOAuth(config({ clientId: "pre", clientSecret: "sec" }), memoryStore().store, network().fetchFn).clientInformation()).toStrictEqual({ client_id: "pre", client_secret: "sec" });
    expect(new ConnectorOAuth(config({ clientId: "pre" }), memoryStore().store, network().fetchFn).clientInformation()).toStrictEqual({ client_id: "pre" });
  });

  it("else the stored registration; without one, a login may register and the background may not", () => {
    expect(new ConnectorOAuth(config(null), memoryStore({ client: { client_id: "stored" } }).store, network().fetchFn).clientInformation()).toEqual({ client_id: "stored" });
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    expect(thrownSync(() => p.clientInformation())).toBeInstanceOf(RefusedWithoutLogin);
    p.bindLogin(receiver(), "s");
    expect(p.clientInformation()).toBeUndefined();
  });

  it("the background never saves a new registration", () => {
    const { store, record } = memoryStore();
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    expect(thrownSync(() => p.saveClientInformation({ client_id: "new" }))).toBeInstanceOf(RefusedWithoutLogin);
    expect(record()).toBeUndefined();
  });

  it("the background may re-save a stored registration (the SDK stamps its issuer), and a configured client is never stored", () => {
    const { store, record } = memoryStore({ client: { client_id: "stored" } });
    new ConnectorOAuth(config(null), store, network().fetchFn).saveClientInformation({ client_id: "stored", issuer: AS });
    expect(record()?.client).toEqual({ client_id: "stored", issuer: AS });
    const configured = memoryStore();
    new ConnectorOAuth(config({ clientId: "pre" }), configured.store, network().fetchFn).saveClientInformation({ client_id: "pre", issuer: AS });
    expect(configured.record()).toBeUndefined();
  });

  it("a login stores a registration whose redirect URIs are all loopback, and refuses one that is not, storing nothing", () => {
    const { store, record } = memoryStore();
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    const e = thrownSync(() => p.saveClientInformation({ client_id: "c", redirect_uris: ["http://127.0.0.1:1/callback", "http://evil.example/cb"] } as never));
    expect((e as Error).message).toBe(`the authorization server registered a redirect URI that is not loopback: ${notLoopback("http://evil.example/cb")}; refused`);
    expect(record()).toBeUndefined();
    p.saveClientInformation({ client_id: "c", redirect_uris: ["http://127.0.0.1:1/callback"] } as never);
    expect(record()?.client).toEqual({ client_id: "c", redirect_uris: ["http://127.0.0.1:1/callback"] });
    // A registration answer without a list of redirect URIs has none to judge.
    p.saveClientInformation({ client_id: "d", redirect_uris: "http://evil.example/cb" } as never);
    expect(record()?.client?.client_id).toBe("d");
  });

  it("a team login judges redirect URIs by its own callback, not as loopback", () => {
    const { store, record } = memoryStore();
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    const own = "https://atrium.example/oauth/callback";
    p.bindLogin(receiver(own, false, (uri) => (uri === own ? undefined : `not ${own}`)), "s");
    const e = thrownSync(() => p.saveClientInformation({ client_id: "c", redirect_uris: ["http://127.0.0.1:1/callback"] } as never));
    expect((e as Error).message).toBe(`the authorization server registered a redirect URI that is not atrium's own callback: not ${own}; refused`);
    p.saveClientInformation({ client_id: "c", redirect_uris: [own] } as never);
    expect(record()?.client?.client_id).toBe("c");
  });

  it("invalidating the client (or all) forgets the stored registration, and only that", () => {
    const { store, record } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "a", token_type: "Bearer" }, expiresAt: 5 });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    p.invalidateCredentials("verifier");
    p.invalidateCredentials("discovery");
    expect(record()).toMatchObject({ client: { client_id: "c" }, tokens: { access_token: "a" }, expiresAt: 5 });
    p.invalidateCredentials("client");
    expect(record()?.client).toBeUndefined();
    expect(record()?.tokens?.access_token).toBe("a");
  });
});

describe("the tokens (O8, O9)", () => {
  it("invalidating the tokens forgets them and their expiry, keeping the client; all forgets both", () => {
    const { store, record } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "a", token_type: "Bearer" }, expiresAt: 5 });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    p.invalidateCredentials("tokens");
    expect(record()).toMatchObject({ client: { client_id: "c" } });
    expect(record()?.tokens).toBeUndefined();
    expect(record()?.expiresAt).toBeUndefined();
    const both = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "a", token_type: "Bearer" } });
    new ConnectorOAuth(config(null), both.store, network().fetchFn).invalidateCredentials("all");
    expect(both.record()?.client).toBeUndefined();
    expect(both.record()?.tokens).toBeUndefined();
  });

  it("are saved with the issuer discovery named and its revocation endpoint, in one write", () => {
    const { store, record } = memoryStore();
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    p.saveDiscoveryState(discovery());
    p.saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(record()).toMatchObject({ issuer: AS, revocationEndpoint: `${AS}/revoke` });
    expect(record()?.tokens).toStrictEqual({ access_token: "a", token_type: "Bearer" });
  });

  it("the issuer the tokens carry wins; a revocation endpoint is recorded only for tokens of the discovered issuer, and only a string one", () => {
    const other = memoryStore();
    const p = new ConnectorOAuth(config(null), other.store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    p.saveDiscoveryState(discovery());
    p.saveTokens({ access_token: "a", token_type: "Bearer", issuer: "https://as2.example" });
    expect(other.record()).toMatchObject({ issuer: "https://as2.example", revocationEndpoint: undefined });
    const odd = memoryStore();
    const q = new ConnectorOAuth(config(null), odd.store, network().fetchFn);
    q.bindLogin(receiver(), "s");
    q.saveDiscoveryState(discovery({}, { revocation_endpoint: 7 }));
    q.saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(odd.record()).toMatchObject({ issuer: AS, revocationEndpoint: undefined });
  });

  it("the issuer is the metadata's own, not the URL it was fetched for (which may end in a slash the issuer lacks)", () => {
    const a = memoryStore();
    const p = new ConnectorOAuth(config(null), a.store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    p.saveDiscoveryState(discovery({ authorizationServerUrl: `${AS}/` }));
    p.saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(a.record()).toMatchObject({ issuer: AS, revocationEndpoint: `${AS}/revoke` });
  });

  it("without metadata the authorization server URL is the issuer; without discovery there is none", () => {
    const a = memoryStore();
    const p = new ConnectorOAuth(config(null), a.store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    p.saveDiscoveryState(discovery({ authorizationServerMetadata: undefined }));
    p.saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(a.record()).toMatchObject({ issuer: AS, revocationEndpoint: undefined });
    const b = memoryStore();
    new ConnectorOAuth(config(null), b.store, network().fetchFn).saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(b.record()?.issuer).toBeUndefined();
    expect(b.record()?.revocationEndpoint).toBeUndefined();
  });

  it("a login's tokens without a scope cover the scope its authorization request asked; a scope named, or none asked, is left as it is", () => {
    const a = memoryStore();
    const p = new ConnectorOAuth(config(null), a.store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    p.redirectToAuthorization(new URL(`${AS}/authorize?scope=read+write`));
    p.saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(a.record()?.tokens).toStrictEqual({ access_token: "a", token_type: "Bearer", scope: "read write" });
    p.saveTokens({ access_token: "b", token_type: "Bearer", scope: "read" });
    expect(a.record()?.tokens?.scope).toBe("read");
    const b = memoryStore();
    const q = new ConnectorOAuth(config(null), b.store, network().fetchFn);
    q.bindLogin(receiver(), "s");
    q.redirectToAuthorization(new URL(`${AS}/authorize`));
    q.saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(b.record()?.tokens).toStrictEqual({ access_token: "a", token_type: "Bearer" });
  });

  it("a background save fills in no scope", () => {
    const a = memoryStore();
    const p = new ConnectorOAuth(config(null), a.store, network().fetchFn);
    p.bindLogin(receiver(), "s");
    p.redirectToAuthorization(new URL(`${AS}/authorize?scope=read`));
    // The same provider is not in the background; a fresh one is.
    const bg = new ConnectorOAuth(config(null), a.store, network().fetchFn);
    bg.saveTokens({ access_token: "a", token_type: "Bearer" });
    expect(a.record()?.tokens).toStrictEqual({ access_token: "a", token_type: "Bearer" });
  });

  it("a stored token far from expiry is read as stored, with no request", async () => {
    const net = fullNetwork();
    const { store } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "stored", token_type: "Bearer", refresh_token: "r", issuer: AS }, expiresAt: later() });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    expect((await p.tokens())?.access_token).toBe("stored");
    expect(await p.forTransport().token()).toBe("stored");
    expect(net.hits).toEqual([]);
  });

  it("no record: no token", async () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    expect(await p.tokens()).toBeUndefined();
    expect(await p.forTransport().token()).toBeUndefined();
  });

  it("a token about to expire is refreshed first, once for concurrent reads, and again when it is about to expire once more", async () => {
    const net = fullNetwork({ token: (() => { let n = 0; return () => json({ access_token: `fresh-${++n}`, token_type: "Bearer", expires_in: 1, refresh_token: "r2" }); })() });
    const { store, record } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS }, expiresAt: soon() });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    const [a, b] = await Promise.all([p.tokens(), p.tokens()]);
    expect(a?.access_token).toBe("fresh-1");
    expect(b?.access_token).toBe("fresh-1");
    expect(net.urls().filter((u) => u === `${AS}/token`)).toHaveLength(1);
    expect(record()?.issuer).toBe(AS);
    // expires_in 1 s is within the lead: the next read refreshes again.
    expect((await p.tokens())?.access_token).toBe("fresh-2");
    expect(net.urls().filter((u) => u === `${AS}/token`)).toHaveLength(2);
  });

  it("a read the SDK makes (with its context), or a login's, never refreshes", async () => {
    const net = fullNetwork();
    const { store } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS }, expiresAt: soon() });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    expect((await p.tokens({ issuer: AS }))?.access_token).toBe("old");
    p.bindLogin(receiver(), "s");
    expect((await p.tokens())?.access_token).toBe("old");
    expect(net.hits).toEqual([]);
  });

  it("a failed refresh sends what is stored", async () => {
    const net = fullNetwork({ token: () => json({ error: "server_error" }, 500) });
    const { store } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS }, expiresAt: soon() });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    expect((await p.tokens())?.access_token).toBe("old");
    expect(net.urls()).toContain(`${AS}/token`);
  });

  it("a logout during a failed refresh leaves no token to send", async () => {
    let drop = () => {};
    const net = fullNetwork({ token: () => { drop(); return json({ error: "server_error" }, 500); } });
    const { store } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS }, expiresAt: soon() });
    drop = () => store.update("remote", MCP, () => undefined);
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    expect(await p.tokens()).toBeUndefined();
  });

  it("a machine client's refresh asks for the configured scope with the client credentials grant", async () => {
    // The configured scope wins over the scopes the resource metadata lists.
    const net = fullNetwork({ prm: { scopes_supported: ["listed"] } });
    const { store } = memoryStore({ tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS }, expiresAt: soon() });
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", clientSecret: "sec", scope: "read" }), store, net.fetchFn);
    expect((await p.tokens())?.access_token).toBe("access-1");
    const body = new URLSearchParams(net.hits.find((h) => h.url.startsWith(`${AS}/token`))!.body);
    expect(body.get("grant_type")).toBe("client_credentials");
    expect(body.get("scope")).toBe("read");
  });
});

describe("a 401 in the background (O5, O12)", () => {
  const ctx = (fetchFn: FetchLike, header?: string) => ({ response: unauthorized(header), serverUrl: new URL(MCP), fetchFn });

  it("without stored tokens, resource metadata found means a login is needed, and no authorization server is asked", async () => {
    const net = fullNetwork();
    const p = new ConnectorOAuth(config(null), memoryStore().store, net.fetchFn);
    const e = await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn)));
    expect(e).toBeInstanceOf(NeedsLogin);
    expect((e as NeedsLogin).why).toBe("the server asks for a login");
    expect(net.urls()).toEqual([PRM_URL]);
  });

  it("without resource metadata, a Bearer challenge means a login is needed, and any other none is offered", async () => {
    const net = network();
    const p = new ConnectorOAuth(config(null), memoryStore().store, net.fetchFn);
    expect(await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn, "Bearer realm=\"x\"")))).toBeInstanceOf(NeedsLogin);
    const q = new ConnectorOAuth(config(null), memoryStore().store, net.fetchFn);
    const e = await thrown(q.forTransport().onUnauthorized!(ctx(net.fetchFn, "Basic realm=\"x\"")));
    expect(e).toBeInstanceOf(RefusedWithoutLogin);
    expect((e as RefusedWithoutLogin).meaning).toBe(OAuthUnauthorized.no_login_offered);
  });

  it("static credentials refused are the operator's to fix, whatever the metadata says", async () => {
    const net = fullNetwork();
    const p = new ConnectorOAuth(config(null, { headers: { Authorization: "Bearer static" } }), memoryStore().store, net.fetchFn);
    const e = await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn, "Bearer")));
    expect((e as RefusedWithoutLogin).meaning).toBe(OAuthUnauthorized.credentials_refused);
  });

  it("the resource metadata URL the 401 names is fetched at the server's own origin only", async () => {
    const own = "https://mcp.example/meta/prm";
    const net = network({ [own]: () => json({ resource: MCP, authorization_servers: [AS] }) });
    const p = new ConnectorOAuth(config(null), memoryStore().store, net.fetchFn);
    expect(await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn, `Bearer resource_metadata="${own}"`)))).toBeInstanceOf(NeedsLogin);
    expect(net.urls()).toEqual([own]);
    const elsewhere = network();
    const q = new ConnectorOAuth(config(null), memoryStore().store, elsewhere.fetchFn);
    await thrown(q.forTransport().onUnauthorized!(ctx(elsewhere.fetchFn, `Basic resource_metadata="https://other.example/prm"`)));
    expect(elsewhere.urls()).not.toContain("https://other.example/prm");
    expect(elsewhere.urls()).toContain(PRM_URL);
  });

  it("metadata atrium refused itself is said as such, not as 'no login offered'", async () => {
    const refusal = new JudgedRefusal("refused by atrium");
    const net = network({ [PRM_URL]: () => { throw refusal; } });
    const p = new ConnectorOAuth(config(null), memoryStore().store, net.fetchFn);
    expect(await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn)))).toBe(refusal);
    const capped = network({ [PRM_URL]: () => { throw new Error("the server answered more than 100 bytes"); } });
    const q = new ConnectorOAuth(config(null), memoryStore().store, capped.fetchFn);
    const e = await thrown(q.forTransport().onUnauthorized!(ctx(capped.fetchFn)));
    expect(e).not.toBeInstanceOf(RefusedWithoutLogin);
    expect((e as Error).message).toBe("the server answered more than 100 bytes");
  });

  it("metadata that failed for another reason is metadata not found", async () => {
    const net = network({ [PRM_URL]: () => { throw new Error("boom"); } });
    const p = new ConnectorOAuth(config(null), memoryStore().store, net.fetchFn);
    expect(await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn)))).toBeInstanceOf(RefusedWithoutLogin);
  });

  it("with stored tokens, the SDK refreshes them and the request goes out again", async () => {
    const net = fullNetwork();
    const { store, record } = memoryStore({ client: { client_id: "c", issuer: AS }, tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS } });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    await p.forTransport().onUnauthorized!(ctx(net.fetchFn, "Bearer"));
    expect(record()?.tokens?.access_token).toBe("access-1");
    expect(record()).toMatchObject({ issuer: AS, revocationEndpoint: `${AS}/revoke` });
  });

  it("with stored tokens that cannot be refreshed, a login is needed", async () => {
    const net = fullNetwork();
    const { store } = memoryStore({ client: { client_id: "c", issuer: AS }, tokens: { access_token: "old", token_type: "Bearer", issuer: AS } });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    expect(await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn, "Bearer")))).toBeInstanceOf(NeedsLogin);
  });

  it("a login in progress whose auth() ends in a redirect is a login needed", async () => {
    const net = fullNetwork();
    const { store } = memoryStore({ client: { client_id: "c", issuer: AS }, tokens: { access_token: "old", token_type: "Bearer", issuer: AS } });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    p.bindLogin(receiver(), "s");
    const e = await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn, "Bearer")));
    expect(e).toBeInstanceOf(NeedsLogin);
    expect((e as NeedsLogin).why).toBe("the server asks for a login");
    expect(p.authorizationUrl?.origin).toBe(AS);
  });

  it("an issuer atrium refused during the exchange is said as itself", async () => {
    const net = fullNetwork({ as: { issuer: "https://evil.example" } });
    const { store } = memoryStore({ client: { client_id: "c" }, tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS } });
    const p = new ConnectorOAuth(config(null), store, net.fetchFn);
    const e = await thrown(p.forTransport().onUnauthorized!(ctx(net.fetchFn, "Bearer")));
    expect(e).toBeInstanceOf(JudgedRefusal);
    expect((e as Error).message).toBe(oauthIssuerText.refused(AS, "https://evil.example"));
    // Also where the core would otherwise say no login is offered (no Bearer challenge, nothing kept).
    const q = new ConnectorOAuth(config(null), store, net.fetchFn);
    const f = await thrown(q.forTransport().onUnauthorized!(ctx(net.fetchFn, "Basic")));
    expect(f).toBeInstanceOf(JudgedRefusal);
    expect((f as Error).message).toBe(oauthIssuerText.refused(AS, "https://evil.example"));
  });

  it("another failure of the exchange is said in atrium's words where a login is offered, and is the O5 refusal where none is", async () => {
    const broken = () => network({ [PRM_URL]: () => json({ resource: MCP, authorization_servers: [AS] }), [`${AS}/.well-known/oauth-authorization-server`]: () => new Response("secret server text", { status: 500 }) });
    const rec = () => memoryStore({ client: { client_id: "c" }, tokens: { access_token: "old", token_type: "Bearer", refresh_token: "r", issuer: AS } }).store;
    const a = broken();
    const e = await thrown(new ConnectorOAuth(config(null), rec(), a.fetchFn).forTransport().onUnauthorized!(ctx(a.fetchFn, "Bearer")));
    expect(e).not.toBeInstanceOf(RefusedWithoutLogin);
    expect((e as Error).message).toMatch(/^the authorization exchange failed \(HTTP 500\); its answer is not shown$/);
    const b = broken();
    const f = await thrown(new ConnectorOAuth(config(null), rec(), b.fetchFn).forTransport().onUnauthorized!(ctx(b.fetchFn, "Basic")));
    expect(f).toBeInstanceOf(RefusedWithoutLogin);
  });

  it("a machine client gets a token with the scope the 401 names, else the configured one", async () => {
    const net = fullNetwork();
    const p = new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", clientSecret: "sec", scope: "configured" }), memoryStore().store, net.fetchFn);
    await p.forTransport().onUnauthorized!(ctx(net.fetchFn, 'Bearer scope="named"'));
    expect(new URLSearchParams(net.hits.filter((h) => h.url.startsWith(`${AS}/token`)).at(-1)!.body).get("scope")).toBe("named");
    await p.forTransport().onUnauthorized!(ctx(net.fetchFn, "Bearer"));
    expect(new URLSearchParams(net.hits.filter((h) => h.url.startsWith(`${AS}/token`)).at(-1)!.body).get("scope")).toBe("configured");
  });
});

describe("a 403 of the MCP endpoint (O14)", () => {
  const forbidden = (header?: string, onCancel?: () => void) => new Response(new ReadableStream({ cancel: () => onCancel?.() }), { status: 403, headers: header === undefined ? {} : { "www-authenticate": header } });

  it("a machine client's fetch is not watched", () => {
    const inner: FetchLike = async () => new Response(null);
    expect(new ConnectorOAuth(config({ grant: "client_credentials", clientId: "svc", clientSecret: "s" }), memoryStore().store, inner).watchForbidden(inner)).toBe(inner);
  });

  it("a step-up records the wider scope for the next login and is a login needed; the answer's body is cancelled", async () => {
    let cancelled = false;
    const { store, record } = memoryStore({ tokens: { access_token: "a", token_type: "Bearer", scope: "read" } });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    const watched = p.watchForbidden(async () => forbidden('Bearer error="insufficient_scope", scope="write"', () => { cancelled = true; }));
    const e = await thrown(watched(MCP));
    expect(e).toBeInstanceOf(NeedsLogin);
    expect((e as NeedsLogin).why).toBe(oauthForbiddenText.step_up("read write"));
    expect(record()?.stepUpScope).toBe("read write");
    expect(cancelled).toBe(true);
  });

  it("a step-up answer without a body is a login needed too", async () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    const watched = p.watchForbidden(async () => new Response(null, { status: 403, headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="write"' } }));
    expect(await thrown(watched(MCP))).toBeInstanceOf(NeedsLogin);
  });

  it("a request given as a Request or a URL is the MCP endpoint's too", async () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    const watched = p.watchForbidden(async () => forbidden('Bearer error="insufficient_scope", scope="write"'));
    expect(await thrown(watched(new Request(MCP) as never))).toBeInstanceOf(NeedsLogin);
    expect(await thrown(watched(new URL(MCP)))).toBeInstanceOf(NeedsLogin);
  });

  it("a refusal for lack of a scope the login already has stands, in atrium's words, recording nothing", async () => {
    const { store, record } = memoryStore({ tokens: { access_token: "a", token_type: "Bearer", scope: "read" } });
    const p = new ConnectorOAuth(config(null), store, network().fetchFn);
    const e = await thrown(p.watchForbidden(async () => forbidden('Bearer error="insufficient_scope", scope="read"'))(MCP));
    expect(e).toBeInstanceOf(JudgedRefusal);
    expect((e as Error).message).toBe(oauthForbiddenText.no_wider_scope(""));
    expect(record()?.stepUpScope).toBeUndefined();
  });

  it("any other 403, a 403 of another URL, and any other status pass on as they are", async () => {
    const p = new ConnectorOAuth(config(null), memoryStore().store, network().fetchFn);
    const plain = forbidden("Bearer");
    expect(await p.watchForbidden(async () => plain)(MCP)).toBe(plain);
    const elsewhere = forbidden('Bearer error="insufficient_scope", scope="write"');
    expect(await p.watchForbidden(async () => elsewhere)("https://mcp.example/other")).toBe(elsewhere);
    const ok = new Response("fine", { status: 200, headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="write"' } });
    expect(await p.watchForbidden(async () => ok)(MCP)).toBe(ok);
  });
});
