// Issue 11's OAuth test kit, proven with real parts: oidc-provider as the authorization server
// (test/harness/oauth-server.ts), a Streamable HTTP MCP server that verifies its bearer tokens
// (test/harness/protected-mcp.ts), the SDK 2 client's own OAuth support (OAuthClientProvider,
// auth(), UnauthorizedError) and a headless Chromium that completes the login and consent pages
// and lands on a loopback receiver (test/harness/oauth-client.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, UnauthorizedError, auth } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { decodeJwt } from "jose";
import { startOAuthRig, type OAuthRig } from "./harness/oauth-rig.js";
import type { AuthServer } from "./harness/oauth-server.js";
import type { ProtectedMcp } from "./harness/protected-mcp.js";
import { MemoryOAuthProvider, loginInBrowser, startLoopbackReceiver, type LoopbackReceiver } from "./harness/oauth-client.js";
import { WAIT_MS, waitFor } from "./harness/until.js";

let as: AuthServer;
let mcp: ProtectedMcp;
let browser: Browser;
let rig: OAuthRig | undefined;
let receiver: LoopbackReceiver;

beforeAll(async () => {
  // The MCP server names its AS in its metadata, and the AS binds tokens to the server's URL.
  rig = await startOAuthRig({ accessTokenTtl: 60 });
  ({ as, mcp, browser } = rig);
  receiver = await startLoopbackReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await rig?.close();
});

function toolText(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]).text;
}

/** Connects a client with the provider; the first attempt throws UnauthorizedError and records the authorization URL. */
async function connect(provider: MemoryOAuthProvider): Promise<Client> {
  const client = new Client({ name: "oauth-kit-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }));
  return client;
}

/** The whole login: a 401 from the MCP server, discovery, DCR, Chromium through login and consent, the code exchange. */
async function login(provider: MemoryOAuthProvider): Promise<void> {
  await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const params = await loginInBrowser(browser, provider.authorizationUrl!, receiver);
  expect(await auth(provider, { serverUrl: mcp.url, authorizationCode: params.get("code")!, iss: params.get("iss") ?? undefined })).toBe("AUTHORIZED");
}

/** A login whose access token lives one second (the AS's TTL set back at once, so a refreshed
 * token lives long enough for the rest of the test however busy the machine is). */
async function loginWithShortLivedToken(provider: MemoryOAuthProvider): Promise<NonNullable<MemoryOAuthProvider["saved"]>> {
  as.accessTokenTtl = 1;
  try {
    await login(provider);
  } finally {
    as.accessTokenTtl = 60;
  }
  return provider.saved!;
}

/** Waits until the token's own `exp` has passed as the MCP server judges it (jose: expired once now ≥ exp, in whole seconds, no tolerance). */
async function untilExpired(token: string): Promise<void> {
  const { exp } = decodeJwt(token);
  await waitFor(() => Math.floor(Date.now() / 1000) >= exp!, "the access token to expire", (exp! + 2) * 1000 - Date.now() + WAIT_MS);
}

/** RFC 7009 revocation at the AS, authenticated as the registered client (client_secret_basic). */
async function revoke(provider: MemoryOAuthProvider, token: string): Promise<number> {
  const { client_id, client_secret } = provider.client as { client_id: string; client_secret?: string };
  const res = await fetch(`${as.issuer}/token/revocation`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${encodeURIComponent(client_id)}:${encodeURIComponent(client_secret ?? "")}`).toString("base64")}` },
    body: new URLSearchParams({ token, token_type_hint: "refresh_token" }),
  });
  return res.status;
}

describe("OAuth test kit: the parts", () => {
  it("the MCP server refuses a call without a token: 401 naming its protected resource metadata, which names the AS", async () => {
    const res = await fetch(mcp.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }) });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${mcp.resourceMetadataUrl}"`);
    for (const url of [mcp.resourceMetadataUrl, new URL("/.well-known/oauth-protected-resource", mcp.url).href]) {
      const prm = await (await fetch(url)).json();
      expect(prm).toMatchObject({ resource: mcp.url, authorization_servers: [as.issuer], scopes_supported: ["mcp:read", "mcp:write"] });
    }
    const bad = await fetch(mcp.url, { method: "POST", headers: { authorization: "Bearer not-a-jwt", "content-type": "application/json" }, body: "{}" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("the AS publishes RFC 8414 and OpenID metadata: S256 only, registration, revocation, resource indicators", async () => {
    const rfc8414 = await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json();
    const oidc = await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json();
    expect(rfc8414).toEqual(oidc);
    expect(oidc).toMatchObject({
      issuer: as.issuer,
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: expect.arrayContaining(["authorization_code", "refresh_token"]),
      registration_endpoint: `${as.issuer}/reg`,
      revocation_endpoint: `${as.issuer}/token/revocation`,
      authorization_response_iss_parameter_supported: true,
    });
    expect(oidc.scopes_supported).toEqual(expect.arrayContaining(["mcp:read", "mcp:write"]));
  });

  it("the AS refuses an authorization request without PKCE", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    await login(provider); // registers a client
    const url = new URL(`${as.issuer}/auth`);
    url.search = new URLSearchParams({ client_id: (provider.client as { client_id: string }).client_id, response_type: "code", redirect_uri: receiver.redirectUrl, scope: "mcp:read", state: "s", resource: mcp.url }).toString();
    const res = await fetch(url, { redirect: "manual" });
    const location = new URL(res.headers.get("location") ?? "", as.issuer);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toMatch(/PKCE/);
  });
});

describe("OAuth test kit: a real client through a real login", () => {
  it("a login in Chromium gets a token bound to the MCP server's URL; read and write calls succeed and are logged with the caller", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    await login(provider);
    const client = await connect(provider);
    const who = JSON.parse(toolText(await client.callTool({ name: "whoami", arguments: {} })));
    expect(who.sub).toBe("alice");
    expect(who.scopes).toEqual(expect.arrayContaining(["mcp:read", "mcp:write"]));
    expect(toolText(await client.callTool({ name: "write_record", arguments: { id: "r1", text: "hello" } }))).toBe("stored r1");
    expect(mcp.records.get("r1")).toBe("hello");
    expect(mcp.calls.at(-1)).toMatchObject({ tool: "write_record", sub: "alice" });
    // The token is a JWT for this resource (RFC 8707 + RFC 9068).
    const [, body] = provider.saved!.access_token.split(".");
    const claims = JSON.parse(Buffer.from(body, "base64url").toString());
    expect(claims).toMatchObject({ iss: as.issuer, aud: mcp.url, sub: "alice" });
    await client.close();
  });

  it("an expired access token is refused (401) and the client refreshes it (rotated refresh token) and retries", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    const first = await loginWithShortLivedToken(provider);
    await untilExpired(first.access_token);
    const refused = mcp.hits.length;
    const client = await connect(provider);
    const who = JSON.parse(toolText(await client.callTool({ name: "whoami", arguments: {} })));
    expect(who.sub).toBe("alice");
    expect(mcp.hits.slice(refused).map((h) => h.reason)).toContain("invalid-token");
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await client.close();
  });

  it("a refresh token revoked at the AS (RFC 7009) makes the next refresh fail: the request ends in 401 / UnauthorizedError", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    const first = await loginWithShortLivedToken(provider);
    expect(await revoke(provider, first.refresh_token!)).toBe(200);
    await untilExpired(first.access_token);
    provider.authorizationUrl = undefined;
    await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(mcp.hits.at(-1)).toMatchObject({ status: 401, reason: "invalid-token" });
    // The SDK fell back to a new login: it asked to open the authorization URL again.
    expect(provider.authorizationUrl).toBeDefined();
  });

  it("revokeGrant (the harness helper) ends a grant the same way", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    await login(provider);
    const before = as.grantIds();
    expect(before.length).toBeGreaterThan(0);
    for (const id of before) await as.revokeGrant(id);
    expect(as.grantIds()).toEqual([]);
    await expect(auth(provider, { serverUrl: mcp.url })).resolves.toBe("REDIRECT"); // the refresh failed, so: log in again
  });

  it("a callback with the wrong state is refused by the receiver; the real one is accepted", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    const forged = await fetch(`${receiver.redirectUrl}?code=forged&state=not-the-one`);
    expect(forged.status).toBe(400);
    expect(receiver.hits.at(-1)).toMatchObject({ accepted: false });
    const params = await loginInBrowser(browser, provider.authorizationUrl!, receiver);
    expect(receiver.hits.at(-1)).toMatchObject({ accepted: true });
    expect(await auth(provider, { serverUrl: mcp.url, authorizationCode: params.get("code")!, iss: params.get("iss") ?? undefined })).toBe("AUTHORIZED");
  });

  it("a replayed authorization code is refused by the AS (invalid_grant)", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError);
    const params = await loginInBrowser(browser, provider.authorizationUrl!, receiver);
    const code = params.get("code")!;
    const iss = params.get("iss") ?? undefined;
    expect(await auth(provider, { serverUrl: mcp.url, authorizationCode: code, iss })).toBe("AUTHORIZED");
    await expect(auth(provider, { serverUrl: mcp.url, authorizationCode: code, iss })).rejects.toThrow(/invalid_grant|grant request is invalid/i);
  });
});
