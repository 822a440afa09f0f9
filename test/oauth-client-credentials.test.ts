// The client credentials grant (spec/oauth.md O15, SEP-1046) end to end through a real atrium over
// stdio, with hostile servers of our own on this machine as the attacker (issue 19). Honest first:
// oidc-provider (test/harness/oauth-server.ts, every request recorded as it arrived) issues the
// token with no person, the secret in HTTP Basic (in the body only where the server takes nothing
// else), or a private_key_jwt assertion signed by the configured key, which itself is never sent.
// Then the attacks: a protected resource that names a second authorization server after the first
// issued a token (O8: neither the secret nor that token goes there); token endpoints on plain http
// to another host, metadata on another origin, an issuer that is not the server asked (no
// credentials sent there); a 401 of a cached token (one new token, never a storm); and a token
// endpoint that echoes the credentials back. In every test the secret (as itself, in Basic, in a
// form body) appears in nothing the model is shown, no stderr line and no activity log line.
import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import type { ClientAuthMethod, ClientMetadata } from "oidc-provider";
import { startAuthServer, type AuthServer } from "./harness/oauth-server.js";
import { startProtectedMcp, type ProtectedMcp } from "./harness/protected-mcp.js";
import { atriumBin, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const SECRET = `cc-secret-${Math.random().toString(36).slice(2)}-svc`;
/** Every form the secret travels in: itself, HTTP Basic's base64 of `svc:<secret>`, a form body's encoding. */
const SECRET_FORMS = [SECRET, Buffer.from(`svc:${SECRET}`).toString("base64"), encodeURIComponent(SECRET)];

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Hit { method: string; path: string; headers: IncomingMessage["headers"]; body: string }
type Route = (origin: string, path: string, req: IncomingMessage, res: ServerResponse) => boolean | void;

/** A server on `host` (127.0.0.2 is this machine, but not an address O1/O11 read as loopback) that records every request and answers with `route`, else 404. */
async function recordingServer(route: Route, host = "127.0.0.1") {
  const hits: Hit[] = [];
  const http = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => { body += c.toString("utf8"); });
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      hits.push({ method: req.method ?? "", path, headers: req.headers, body });
      if (!route(origin, path, req, res)) res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, host, r));
  const origin = `http://${host}:${(http.address() as AddressInfo).port}`;
  cleanups.push(() => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }));
  return { origin, hits };
}

const json = (res: ServerResponse, status: number, body: unknown): true => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  return true;
};

/** A hostile authorization server: RFC 8414 metadata (its own issuer; `over` changes any of it) and a token endpoint that hands out `<name>-access`. */
const hostileAs = (name: string, over: (origin: string) => Record<string, unknown> = () => ({})): Route => (origin, path, _req, res) => {
  if (path === "/.well-known/oauth-authorization-server") return json(res, 200, { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, response_types_supported: ["code"], ...over(origin) });
  if (path === "/token") return json(res, 200, { access_token: `${name}-access`, token_type: "Bearer", expires_in: 3600 });
};

/** oidc-provider with one pre-registered machine client `svc`, and the protected MCP server whose tokens it issues. */
async function honestPair(client: Partial<ClientMetadata> = { client_secret: SECRET }, clientAuthMethods?: ClientAuthMethod[]): Promise<{ as: AuthServer; mcp: ProtectedMcp }> {
  const as = await startAuthServer({ recordRequests: true, clientAuthMethods, clients: [{ client_id: "svc", grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "mcp:read mcp:write", ...client }] });
  cleanups.push(() => as.close());
  const mcp = await startProtectedMcp({ issuer: as.issuer });
  cleanups.push(() => mcp.close());
  as.resource = mcp.url;
  return { as, mcp };
}

const secretOAuth = { grant: "client_credentials", clientId: "svc", clientSecret: SECRET, scope: "mcp:read" };

/** A real atrium with `servers` (id → url and oauth); the state directory may be shared by two in turn. */
async function machineAtrium(servers: Record<string, { url: string; oauth?: Record<string, unknown> }>, state = mkdtempSync(join(tmpdir(), "atrium-cc-state-"))): Promise<Atrium & { state: string; said: unknown[] }> {
  const mcpServers = Object.fromEntries(Object.entries(servers).map(([id, s]) => [id, { url: s.url, oauth: s.oauth ?? secretOAuth }]));
  const a = await startAtrium({ config: { mcpServers, atrium: { connectors: { startRetries: 0 } } }, env: { ATRIUM_KEYRING: "off", ATRIUM_STATE_DIR: state } });
  cleanups.push(() => rmSync(state, { recursive: true, force: true }));
  cleanups.push(() => a.close());
  const said: unknown[] = [];
  // Everything the model is shown goes into `said`, for the check at the end of each test.
  const call: Atrium["call"] = async (name, args, timeout) => {
    const r = await a.call(name, args, timeout);
    said.push(r);
    return r;
  };
  return { ...a, call, json: async (name, args) => (await call(name, args)).structuredContent, state, said };
}

/** `atrium auth logout svc` as the operator runs it, on `state` with these servers; its exit code and output. */
async function logout(state: string, servers: Record<string, { url: string; oauth: Record<string, unknown> }>): Promise<{ code: number | null; text: string }> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-cc-cli-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, "atrium.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const child = spawn(process.execPath, [atriumBin, "auth", "logout", "svc", "--config", config], { env: { ...process.env, ATRIUM_KEYRING: "off", ATRIUM_STATE_DIR: state }, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout.on("data", (c: Buffer) => { text += c.toString(); });
  child.stderr.on("data", (c: Buffer) => { text += c.toString(); });
  const code = await new Promise<number | null>((r) => child.on("close", r));
  return { code, text };
}

/** The activity log's text (every file of it). */
function activityText(state: string): string {
  const dir = join(state, "activity");
  return existsSync(dir) ? readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("") : "";
}

/** O15, issue 19: the secret is in nothing the model was shown, no stderr line, no activity log line. */
function expectSecretNowhere(a: Atrium & { state: string; said: unknown[] }): void {
  const places = { "what the model was shown": JSON.stringify(a.said), stderr: a.stderr(), "the activity log": activityText(a.state) };
  for (const [where, text] of Object.entries(places)) for (const form of SECRET_FORMS) expect(text.includes(form), `the secret (${form === SECRET ? "itself" : "encoded"}) in ${where}`).toBe(false);
  expect(a.said.length, "the test looked at what the model is shown").toBeGreaterThan(0);
}

/** The connector's entry under search_tools' `unavailable`, once its first start has settled. */
async function unavailableEntry(a: Atrium, id: string): Promise<{ state: string; problem: string; nextAction?: unknown }> {
  let entry: { state: string; problem: string; nextAction?: unknown } | undefined;
  await waitFor(async () => {
    entry = ((await a.json("search_tools", { query: "" })).unavailable ?? []).find((u: { connector: string }) => u.connector === id);
    return entry !== undefined && entry.state !== "starting" && entry.state !== "retrying";
  }, `${id}'s start to settle`);
  return entry!;
}

/** The bearer tokens the MCP server was sent, oldest first. */
const bearers = (mcp: ProtectedMcp): string[] => mcp.requests.map((r) => String(r.headers.authorization ?? "")).filter((h) => h.startsWith("Bearer ")).map((h) => h.slice("Bearer ".length));
const tokenRequests = (as: AuthServer) => as.requests.filter((r) => r.method === "POST" && r.path === "/token");
const whoami = async (a: Atrium) => JSON.parse(((await a.call("call_tool", { address: "svc.whoami" })).content as { text: string }[])[0].text);

describe("O15 honest path: a machine client gets its token with no person, through atrium", () => {
  it("client_secret: the connector is ready without authorize_connector, whoami answers as the client, and the token request carried the secret in HTTP Basic only", async () => {
    const { as, mcp } = await honestPair();
    const a = await machineAtrium({ svc: { url: mcp.url } });
    expect(await whoami(a)).toMatchObject({ sub: "svc", client_id: "svc" });
    const [request, ...more] = tokenRequests(as);
    expect(more).toEqual([]);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`svc:${SECRET}`).toString("base64")}`);
    const body = new URLSearchParams(request.body);
    expect(body.get("grant_type")).toBe("client_credentials");
    expect(body.get("client_secret"), "HTTP Basic where the server takes it: never also the body").toBeNull();
    expect(request.body).not.toContain(encodeURIComponent(SECRET));
    expect(as.hits.filter((h) => /\/(reg|auth)\b/.test(h)), "no registration, no authorization request: no person").toEqual([]);
    expectSecretNowhere(a);
  });

  it("client_secret_post only where the authorization server takes nothing else: the secret in the body, no Authorization header", async () => {
    const { as, mcp } = await honestPair({ client_secret: SECRET, token_endpoint_auth_method: "client_secret_post" }, ["client_secret_post"]);
    const a = await machineAtrium({ svc: { url: mcp.url } });
    expect(await whoami(a)).toMatchObject({ sub: "svc" });
    const [request] = tokenRequests(as);
    expect(request.headers.authorization).toBeUndefined();
    const body = new URLSearchParams(request.body);
    expect([body.get("client_id"), body.get("client_secret"), body.get("grant_type")]).toEqual(["svc", SECRET, "client_credentials"]);
    expectSecretNowhere(a);
  });

  it("private_key_jwt: the assertion is a JWT signed by the configured key, iss = sub = the client ID, aud = the issuer, minutes at most; the key itself is in no request", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const { d } = await exportJWK(privateKey);
    const keyDir = mkdtempSync(join(tmpdir(), "atrium-cc-key-"));
    cleanups.push(() => rmSync(keyDir, { recursive: true, force: true }));
    const keyFile = join(keyDir, "svc.pem");
    writeFileSync(keyFile, pem, { mode: 0o600 });
    const { as, mcp } = await honestPair({ token_endpoint_auth_method: "private_key_jwt", token_endpoint_auth_signing_alg: "ES256", jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: "ES256", use: "sig" }] } as never });
    const a = await machineAtrium({ svc: { url: mcp.url, oauth: { grant: "client_credentials", clientId: "svc", privateKeyFile: keyFile, signingAlgorithm: "ES256", scope: "mcp:read" } } });
    expect(await whoami(a)).toMatchObject({ sub: "svc", client_id: "svc" });

    const [request, ...more] = tokenRequests(as);
    expect(more).toEqual([]);
    expect(request.headers.authorization).toBeUndefined();
    const body = new URLSearchParams(request.body);
    expect(body.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    expect(body.get("client_secret")).toBeNull();
    const assertion = body.get("client_assertion")!;
    expect(decodeProtectedHeader(assertion).alg).toBe("ES256");
    const { payload } = await jwtVerify(assertion, publicKey, { issuer: "svc", subject: "svc", audience: as.issuer, algorithms: ["ES256"] });
    const now = Math.floor(Date.now() / 1000);
    expect(payload.exp! - payload.iat!, "a short-lived assertion").toBeLessThanOrEqual(300);
    expect(payload.exp!).toBeGreaterThan(now);
    expect(typeof payload.jti).toBe("string");

    // The key: neither its PEM body nor its private scalar, in any request to either server.
    const keyBody = pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
    const sent = JSON.stringify([as.requests, mcp.requests]);
    for (const part of [keyBody, keyBody.slice(0, 40), d!]) expect(sent.includes(part)).toBe(false);
    expectSecretNowhere(a);
  });
});

describe("O8, hostile: the resource names a second authorization server after the first issued a token", () => {
  it("neither the secret nor AS1's token reaches AS2 (it is asked only for its metadata); the connector says it is the operator's to resolve, no person is asked to log in, and the way out it names (atrium auth logout) makes the next start ask AS2", async () => {
    const { as: as1, mcp } = await honestPair();
    const as2 = await recordingServer(hostileAs("as2"));
    const state = mkdtempSync(join(tmpdir(), "atrium-cc-state-"));
    const first = await machineAtrium({ svc: { url: mcp.url } }, state);
    expect(await whoami(first)).toMatchObject({ sub: "svc" });
    const [as1Token] = bearers(mcp);

    // The server now names AS2 and refuses every token: the running connector asks AS1 again, once.
    mcp.authorizationServers = [as2.origin];
    mcp.refuse = () => true;
    const refused = await first.call("call_tool", { address: "svc.whoami" });
    expect(refused.isError).toBe(true);
    expect(tokenRequests(as1)).toHaveLength(2);
    expectSecretNowhere(first);
    await first.close();

    // A new atrium on the same tokens discovers AS2 afresh.
    const second = await machineAtrium({ svc: { url: mcp.url } }, state);
    const entry = await unavailableEntry(second, "svc");
    expect(as2.hits.length, "AS2 was asked for its metadata").toBeGreaterThan(0);
    expect(as2.hits.filter((h) => h.method !== "GET" || h.path !== "/.well-known/oauth-authorization-server"), "nothing but its metadata").toEqual([]);
    const toAs2 = JSON.stringify(as2.hits);
    for (const form of [...SECRET_FORMS, as1Token]) expect(toAs2.includes(form)).toBe(false);
    expect(entry.problem).toContain(`client-credentials tokens were issued by ${as1.issuer}, not ${as2.origin}: nothing is sent there`);
    expect(entry.problem).toContain("atrium auth logout svc");
    expect(entry.problem, "no person's login helps a machine client").not.toMatch(/person/);
    expect(entry.nextAction, "authorize_connector cannot help: no nextAction sends the model there").toBeUndefined();
    const call = await second.call("call_tool", { address: "svc.whoami" });
    expect((call.structuredContent as { error: { nextAction?: unknown } }).error.nextAction).toBeUndefined();
    expectSecretNowhere(second);
    await second.close();

    // The operator decides the server has moved: logout deletes AS1's tokens, and only then is AS2 asked for a token.
    const out = await logout(state, { svc: { url: mcp.url, oauth: secretOAuth } });
    expect(out.code, out.text).toBe(0);
    expect(out.text).toContain("svc: deleted the local tokens");
    for (const form of SECRET_FORMS) expect(out.text.includes(form)).toBe(false);
    const third = await machineAtrium({ svc: { url: mcp.url } }, state);
    await unavailableEntry(third, "svc"); // AS2's token is no JWT the server takes
    expect(as2.hits.filter((h) => h.path === "/token").map((h) => h.headers.authorization)).toEqual([`Basic ${Buffer.from(`svc:${SECRET}`).toString("base64")}`]);
    expect(JSON.stringify(as2.hits).includes(as1Token), "AS1's token never").toBe(false);
  });
});

describe("hostile: where the credentials would go", () => {
  it("a token endpoint on plain http to a host that is not loopback (127.0.0.2): nothing is sent there, and the problem says atrium refused it", async () => {
    const far = await recordingServer(() => false, "127.0.0.2");
    const as = await recordingServer(hostileAs("as", () => ({ token_endpoint: `${far.origin}/token` })));
    const mcp = await startProtectedMcp({ issuer: as.origin });
    cleanups.push(() => mcp.close());
    const a = await machineAtrium({ svc: { url: mcp.url } });
    const entry = await unavailableEntry(a, "svc");
    expect(far.hits).toEqual([]);
    expect(as.hits.filter((h) => h.method === "POST")).toEqual([]);
    expect(entry.problem).toContain(`${far.origin}/token`);
    expect(entry.problem).toMatch(/token endpoint .* is not https:/);
    expect(entry.problem).not.toMatch(/its answer is not shown/);
    expectSecretNowhere(a);
  });

  it("a 401 naming resource metadata on another origin (which names a hostile authorization server): that origin and its server are asked nothing; the credentials go to the server the resource's own metadata names (O12)", async () => {
    const evilAs = await recordingServer(hostileAs("evil"));
    const evilPrm = await recordingServer((_o, _p, _req, res) => json(res, 200, { resource: "ignored", authorization_servers: [evilAs.origin] }));
    const { as, mcp } = await honestPair();
    const front = await recordingServer((origin, path, req, res) => {
      // The honest server's answers, but its 401 names the hostile metadata URL.
      if (path === "/mcp" && !req.headers.authorization) {
        res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${evilPrm.origin}/.well-known/oauth-protected-resource"` }).end();
        return true;
      }
      if (path.startsWith("/.well-known/oauth-protected-resource")) return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [as.issuer] });
      return false;
    });
    // The honest AS issues tokens for the front's URL; the front proxies nothing, so only discovery and the token request are judged here.
    as.resource = `${front.origin}/mcp`;
    const a = await machineAtrium({ svc: { url: `${front.origin}/mcp` } });
    await unavailableEntry(a, "svc");
    expect(evilPrm.hits).toEqual([]);
    expect(evilAs.hits).toEqual([]);
    expect(tokenRequests(as)).toHaveLength(1);
    expect(mcp.requests).toEqual([]);
    expectSecretNowhere(a);
  });

  it("authorization server metadata whose issuer is another server (with its token endpoint there): refused (O8), no credentials sent to either", async () => {
    const other = await recordingServer(hostileAs("other"));
    const as = await recordingServer(hostileAs("as", () => ({ issuer: other.origin, token_endpoint: `${other.origin}/token` })));
    const mcp = await startProtectedMcp({ issuer: as.origin });
    cleanups.push(() => mcp.close());
    const a = await machineAtrium({ svc: { url: mcp.url } });
    const entry = await unavailableEntry(a, "svc");
    expect(other.hits).toEqual([]);
    expect(as.hits.filter((h) => h.method === "POST")).toEqual([]);
    expect(entry.problem).toMatch(/names the issuer .*, another server .*; refused/);
    expectSecretNowhere(a);
  });
});

describe("a 401 of a cached token", () => {
  it("atrium gets one new token by itself and the call succeeds; a server that refuses every token costs one token request per call, never a storm, and the error says the new token was refused", async () => {
    const { as, mcp } = await honestPair();
    const a = await machineAtrium({ svc: { url: mcp.url } });
    expect(await whoami(a)).toMatchObject({ sub: "svc" });
    expect(tokenRequests(as)).toHaveLength(1);

    const cached = bearers(mcp).at(-1);
    mcp.refuse = (token) => token === cached; // as if revoked
    expect(await whoami(a)).toMatchObject({ sub: "svc" });
    expect(tokenRequests(as), "one new token, no person").toHaveLength(2);

    mcp.refuse = () => true;
    for (const n of [3, 4]) {
      const r = await a.call("call_tool", { address: "svc.whoami" });
      const error = (r.structuredContent as { error: { code: string; message: string; nextAction?: unknown } }).error;
      expect(error.code).toBe("auth_required");
      expect(error.message).toMatch(/refused .*token .*client credentials/);
      expect(error.message, "no advice to put credentials in headers").not.toMatch(/headers/);
      expect(error.nextAction).toBeUndefined();
      expect(tokenRequests(as), `call ${n - 2} of a refusing server: one token request`).toHaveLength(n);
    }
    expect(((await a.json("search_tools", { query: "whoami" })).results ?? []).length, "a refusal is no reason to drop the connector").toBeGreaterThan(0);
    expect(tokenRequests(as)).toHaveLength(4);
    expectSecretNowhere(a);
  });
});

describe("the client secret never appears", () => {
  it("a token endpoint that refuses with the credentials it received echoed in its error description, then as its error code: not in the connector's problem, the call's error, stderr, or the activity log", async () => {
    let refusals = 0;
    const as = await recordingServer((origin, path, req, res) => {
      if (path === "/.well-known/oauth-authorization-server") return json(res, 200, { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, response_types_supported: ["code"] });
      if (path === "/token") {
        const basic = String(req.headers.authorization ?? "");
        const echo = `${basic} = ${Buffer.from(basic.slice("Basic ".length), "base64").toString()}`;
        // The first refusal (invalid_client) makes the SDK warn and try once more; the second is a code of the server's own.
        return json(res, 401, refusals++ === 0 ? { error: "invalid_client", error_description: `client refused: ${echo}` } : { error: echo });
      }
    });
    const mcp = await startProtectedMcp({ issuer: as.origin });
    cleanups.push(() => mcp.close());
    const a = await machineAtrium({ svc: { url: mcp.url } });
    const entry = await unavailableEntry(a, "svc");
    await a.call("call_tool", { address: "svc.whoami" });
    expect(as.hits.filter((h) => h.path === "/token"), "the token endpoint was asked, and refused twice").toHaveLength(2);
    expectSecretNowhere(a);
    expect(entry.problem).toMatch(/the authorization server refused \(an OAuth error code atrium does not know, not shown/);
    expect(a.stderr(), "the SDK's warning is kept, without the server's text").toMatch(/\[mcp-sdk\] OAuth "invalid_client" .* Cause: not shown/);
  });
});
