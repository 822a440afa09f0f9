// Bad input on the way to a login, each refused with a clear error and no token stored: a
// malformed authorization server answer (metadata that is not JSON or misses required fields, a
// token response without access_token), a redirect URI that is not loopback (in the config or in
// a registration), metadata from the wrong place (a protected resource whose `resource` is not the
// server, AS metadata whose issuer is not the AS), an oversized token answer, a wrong or missing
// state, and a replayed redirect. The servers are real HTTP servers on 127.0.0.1 that answer as
// each case needs; the login runs through atrium's own flow (glue/auth/flow.ts).
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startLogin } from "../glue/auth/flow.js";
import { startReceiver } from "../glue/auth/receiver.js";
import { TokenStore } from "../glue/auth/store.js";
import { TokenFile } from "../glue/auth/file-store.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";
import type { HttpConnectorConfig } from "../glue/config/schema.js";
import { OAUTH_HTTP_MS } from "../glue/decisions/generated/spec.js";

/** Answers with a body (already text); true, so an override can `return send(...)`. */
function send(res: ServerResponse, status: number, body: string): true {
  res.writeHead(status, { "content-type": "application/json" }).end(body);
  return true;
}

type Handler = (req: IncomingMessage, res: ServerResponse, origin: string) => boolean | void;

/** One server playing the MCP endpoint and its authorization server; `override` answers first. */
async function fakeServer(override: Handler = () => false) {
  const hits: string[] = [];
  const http = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    hits.push(`${req.method} ${path}`);
    if (override(req, res, origin)) return;
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (path === "/mcp") return res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` }).end();
    if (path.startsWith("/.well-known/oauth-protected-resource")) return json(200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    if (path === "/.well-known/oauth-authorization-server") return json(200, asMetadata(origin));
    if (path === "/reg") return json(201, { client_id: "c1", redirect_uris: ["http://127.0.0.1/callback"] });
    if (path === "/token") return json(200, { access_token: "at-good", token_type: "Bearer", expires_in: 60, refresh_token: "rt-good" });
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { origin, hits, close: () => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }) };
}

function asMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/reg`,
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function storeIn(): { store: TokenStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "atrium-oauth-bad-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { store: new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(dir)), dir };
}

function connector(url: string, oauth: Partial<HttpConnectorConfig["oauth"]> = null as never): HttpConnectorConfig {
  const r = validateConfig({ mcpServers: { bad: { url, ...(oauth && { oauth }) } } }, core());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config.connectors[0] as HttpConnectorConfig;
}

async function setUp(override?: Handler) {
  const server = await fakeServer(override);
  cleanups.push(server.close);
  const { store } = storeIn();
  return { server, store, config: connector(`${server.origin}/mcp`) };
}

const noTokens = (store: TokenStore) => expect(store.all().some((r) => r.tokens)).toBe(false);

/** Starts a login and answers its authorization URL (the AS here never renders a page). */
async function pendingLogin(config: HttpConnectorConfig, store: TokenStore) {
  const start = await startLogin(config, store);
  if (start.kind !== "pending") throw new Error("expected a pending login");
  cleanups.push(() => start.cancel());
  const url = new URL(start.authorizationUrl);
  return { start, url, redirect: url.searchParams.get("redirect_uri")!, state: url.searchParams.get("state")! };
}

describe("a malformed authorization server answer is refused, no token stored", () => {
  it("AS metadata that is not JSON", async () => {
    const { store, config } = await setUp((req, res) => {
      if (req.url?.startsWith("/.well-known/oauth-authorization-server") || req.url?.startsWith("/.well-known/openid-configuration")) return send(res, 200, "<html>not json</html>");
    });
    await expect(startLogin(config, store)).rejects.toThrow(/^the login failed: /);
    noTokens(store);
  });

  it("AS metadata without its required fields (no token or authorization endpoint)", async () => {
    const { store, config } = await setUp((req, res, origin) => {
      if (req.url?.startsWith("/.well-known/oauth-authorization-server")) return send(res, 200, JSON.stringify({ issuer: origin }));
    });
    await expect(startLogin(config, store)).rejects.toThrow(/the login failed: .*(authorization_endpoint|token_endpoint|Invalid)/i);
    noTokens(store);
  });

  it("a token response without access_token", async () => {
    const { store, config, server } = await setUp((req, res) => {
      if (req.url === "/token") return send(res, 200, JSON.stringify({ token_type: "Bearer", expires_in: 60 }));
    });
    const { start, redirect, state } = await pendingLogin(config, store);
    expect((await fetch(`${redirect}?code=abc&state=${state}`)).status).toBe(200);
    await expect(start.done).rejects.toThrow(/the login failed: .*access_token/);
    expect(server.hits).toContain("POST /token");
    noTokens(store);
  });

  it("a token response over OAUTH_TOKEN_RESPONSE_BYTES_MAX is refused before it is parsed", async () => {
    const { store, config } = await setUp((req, res) => {
      if (req.url === "/token") return send(res, 200, JSON.stringify({ access_token: "x".repeat(70_000), token_type: "Bearer" }));
    });
    const { start, redirect, state } = await pendingLogin(config, store);
    await fetch(`${redirect}?code=abc&state=${state}`);
    await expect(start.done).rejects.toThrow(/answered more than 65536 bytes/);
    noTokens(store);
  });

  it("an oversized metadata document (streamed, no content-length) is refused unread", async () => {
    const { store, config } = await setUp((req, res) => {
      if (req.url?.startsWith("/.well-known/oauth-authorization-server")) {
        res.writeHead(200, { "content-type": "application/json" });
        for (let i = 0; i < 100; i++) res.write(" ".repeat(1024));
        res.end("{}");
        return true;
      }
    });
    await expect(startLogin(config, store)).rejects.toThrow(/answered more than 65536 bytes/);
    noTokens(store);
  });
});

describe("a redirect URI that is not loopback is refused", () => {
  it("in the config: oauth.redirectUri must be http://127.0.0.1:<port>/…", () => {
    for (const uri of ["https://evil.example/callback", "http://192.168.1.5:8080/callback", "http://127.0.0.1.evil.example/cb"]) {
      const r = validateConfig({ mcpServers: { bad: { url: "https://mcp.example/mcp", oauth: { redirectUri: uri } } } }, core());
      expect(r.ok).toBe(false);
      expect(!r.ok && r.errors[0]).toMatchObject({ path: "mcpServers.bad.oauth.redirectUri", message: expect.stringMatching(/loopback/) });
    }
    expect(validateConfig({ mcpServers: { ok: { url: "https://mcp.example/mcp", oauth: { redirectUri: "http://127.0.0.1:8765/callback" } } } }, core()).ok).toBe(true);
  });

  it("in a registration: a client registered with a non-loopback redirect URI is refused before any login", async () => {
    const { store, config } = await setUp((req, res) => {
      if (req.url === "/reg") return send(res, 201, JSON.stringify({ client_id: "c1", redirect_uris: ["https://evil.example/callback"] }));
    });
    await expect(startLogin(config, store)).rejects.toThrow(/registered a redirect URI that is not loopback/);
    noTokens(store);
    expect(store.all().some((r) => r.client)).toBe(false);
  });
});

describe("metadata from the wrong place is refused", () => {
  it("protected resource metadata whose resource is not the server's URL", async () => {
    const { store, config } = await setUp((req, res, origin) => {
      if (req.url?.startsWith("/.well-known/oauth-protected-resource")) return send(res, 200, JSON.stringify({ resource: "https://other.example/mcp", authorization_servers: [origin] }));
    });
    await expect(startLogin(config, store)).rejects.toThrow(/the login failed: Protected resource https:\/\/other\.example\/mcp does not match/);
    noTokens(store);
  });

  it("authorization server metadata whose issuer is not the AS it was fetched for", async () => {
    const { store, config } = await setUp((req, res, origin) => {
      if (req.url?.startsWith("/.well-known/oauth-authorization-server")) return send(res, 200, JSON.stringify({ ...asMetadata(origin), issuer: "https://impostor.example" }));
    });
    await expect(startLogin(config, store)).rejects.toThrow(/the login failed: .*issuer/i);
    noTokens(store);
  });
});

describe("the loopback receiver", () => {
  it("refuses a redirect with a wrong or missing state (the page says so) and exchanges nothing", async () => {
    const { store, config, server } = await setUp();
    const { redirect, state } = await pendingLogin(config, store);
    for (const q of ["?code=abc&state=forged", "?code=abc"]) {
      const res = await fetch(`${redirect}${q}`);
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/Refused: the state of this redirect does not match/);
    }
    expect(server.hits).not.toContain("POST /token");
    noTokens(store);
    expect(state.length).toBeGreaterThan(20);
  });

  it("accepts one code once: a replayed redirect is refused and the token endpoint is asked once", async () => {
    const { store, config, server } = await setUp();
    const { start, redirect, state } = await pendingLogin(config, store);
    expect((await fetch(`${redirect}?code=abc&state=${state}`)).status).toBe(200);
    await start.done;
    const replay = await fetch(`${redirect}?code=abc&state=${state}`).then((r) => r.status, () => "refused");
    expect([400, "refused"]).toContain(replay);
    expect(server.hits.filter((h) => h === "POST /token")).toHaveLength(1);
    expect(store.get("bad", config.url)?.tokens?.access_token).toBe("at-good");
  });

  it("refuses an overlong redirect unread", async () => {
    const { store, config } = await setUp();
    const { redirect, state } = await pendingLogin(config, store);
    const res = await fetch(`${redirect}?code=${"a".repeat(5000)}&state=${state}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/too long/);
    noTokens(store);
  });

  it("closes when the login wait runs out: the login fails with the bound named, and a late redirect finds nobody", async () => {
    const receiver = await startReceiver("the-state", { waitMs: 50 });
    await expect(receiver.result).rejects.toThrow(/no login arrived within 50 ms \(OAUTH_LOGIN_WAIT_MS\)/);
    const late = await fetch(`${receiver.redirectUrl}?code=abc&state=the-state`).then((r) => r.status, () => "refused");
    expect(late).toBe("refused");
  });

  it("listens on 127.0.0.1 only, at /callback", async () => {
    const receiver = await startReceiver("s");
    cleanups.push(() => receiver.close());
    expect(receiver.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect((await fetch(new URL("/elsewhere", receiver.redirectUrl))).status).toBe(404);
  });
});

describe("a server that never answers ends the login in time", () => {
  it("authorization server metadata that never comes: the login fails at OAUTH_HTTP_MS, naming it, and nothing is stored", async () => {
    const { store, config, server } = await setUp((req) => req.url?.startsWith("/.well-known/oauth-authorization-server") || req.url?.startsWith("/.well-known/openid-configuration") ? true : false);
    // The error names the deadline that fired: OAUTH_HTTP_MS, not the login's own wait.
    await expect(startLogin(config, store)).rejects.toThrow(new RegExp(`the login failed: .*did not answer within ${OAUTH_HTTP_MS} ms`));
    expect(server.hits.some((h) => h.includes("/.well-known/oauth-authorization-server"))).toBe(true);
    noTokens(store);
  }, OAUTH_HTTP_MS * 4);

  it("an MCP endpoint that never answers the first request: the login fails at OAUTH_HTTP_MS", async () => {
    const { store, config } = await setUp((req) => req.url === "/mcp" ? true : false);
    await expect(startLogin(config, store)).rejects.toThrow(new RegExp(`did not answer within ${OAUTH_HTTP_MS} ms`));
    noTokens(store);
  }, OAUTH_HTTP_MS * 4);
});
