// A remote connector behind a login, end to end with real parts: atrium spawned over stdio with a
// real SDK client, oidc-provider as the authorization server, a bearer-protected MCP server, and
// Chromium completing the login on atrium's own loopback receiver. From auth_required (with its
// nextAction) to working through authorize_connector; refresh after the access token expires; a
// revoked grant back to auth_required; a host with URL-mode elicitation asked to open the URL;
// and no token value in anything atrium says.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Browser } from "playwright-core";
import { startOAuthRig, type OAuthRig } from "./harness/oauth-rig.js";
import { startAuthServer, type AuthServer } from "./harness/oauth-server.js";
import { startProtectedMcp, type ProtectedMcp } from "./harness/protected-mcp.js";
import { loginThroughAtrium } from "./harness/oauth-client.js";
import { atriumBin, startAtrium, type Atrium } from "./harness/atrium-client.js";

let as: AuthServer;
let mcp: ProtectedMcp;
let browser: Browser;
let rig: OAuthRig | undefined;

beforeAll(async () => {
  rig = await startOAuthRig({ accessTokenTtl: 60 });
  ({ as, mcp, browser } = rig);
});

afterAll(async () => {
  await rig?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const config = () => ({ mcpServers: { prot: { url: mcp.url } } });
const open = () => startAtrium({ config: config(), env: { ATRIUM_KEYRING: "off" } });

/** Every token value atrium stored (access and refresh, and a client secret if any). */
function storedSecrets(a: Atrium): string[] {
  const text = readFileSync(join(a.dir, "state", "tokens.json"), "utf8");
  const out: string[] = [];
  for (const r of JSON.parse(text).records) {
    for (const v of [r.tokens?.access_token, r.tokens?.refresh_token, r.client?.client_secret]) if (typeof v === "string") out.push(v);
  }
  return out;
}

/** authorize_connector, then Chromium through the URL, then authorize_connector again until ready. */
async function logIn(a: Atrium, transcript: unknown[]): Promise<void> {
  const first = await a.call("authorize_connector", { connector: "prot" });
  transcript.push(first);
  expect(first.isError).toBeFalsy();
  const pending = first.structuredContent as { status: string; authorizationUrl: string };
  expect(pending.status).toBe("login_pending");
  const url = new URL(pending.authorizationUrl);
  expect(url.origin).toBe(as.issuer);
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  expect(url.searchParams.get("resource")).toBe(mcp.url);
  expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  expect(url.searchParams.get("state")?.length).toBeGreaterThan(20);
  expect(JSON.stringify(first.content)).toContain(pending.authorizationUrl);
  // The second call starts while the person is still logging in: it waits for the login to complete.
  const [second, landing] = await Promise.all([a.call("authorize_connector", { connector: "prot" }), loginThroughAtrium(browser, pending.authorizationUrl)]);
  expect(landing).toMatch(/Signed in/);
  transcript.push(second);
  expect(second.structuredContent).toMatchObject({ connector: "prot", status: "ready", tools: 2 });
}

describe("a connector behind a login", () => {
  it("is auth_required with nextAction authorize_connector, then works after authorize_connector and a login in Chromium", async () => {
    const a = await open();
    const transcript: unknown[] = [];
    try {
      const refused = await a.call("call_tool", { address: "prot.whoami" });
      transcript.push(refused);
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as any).error).toMatchObject({
        code: "auth_required",
        retryable: false,
        nextAction: { tool: "authorize_connector", arguments: { connector: "prot" } },
      });
      expect((refused.structuredContent as any).error.message).toMatch(/person to log in/);
      const search = await a.json("search_tools", { query: "" });
      transcript.push(search);
      expect(search.unavailable).toEqual([expect.objectContaining({ connector: "prot", state: "needs_auth", nextAction: expect.objectContaining({ tool: "authorize_connector" }) })]);
      // A program meets the same error.
      const program = await a.call("execute_code", { code: "async () => { try { await prot.whoami({}); } catch (e) { return e.code; } }" });
      transcript.push(program);
      expect((program.structuredContent as any).value).toBe("auth_required");

      await logIn(a, transcript);

      const who = await a.call("call_tool", { address: "prot.whoami", resultMode: "value" });
      transcript.push(who);
      expect(who.isError).toBeFalsy();
      expect(JSON.stringify(who.structuredContent)).toContain("alice");
      const value = await a.value("async () => await prot.whoami({})");
      expect(JSON.stringify(value)).toContain("alice");
      // ready at once when called again
      expect((await a.json("authorize_connector", { connector: "prot" }))).toMatchObject({ status: "ready" });

      const secrets = storedSecrets(a);
      expect(secrets.length).toBeGreaterThanOrEqual(2);
      const said = JSON.stringify(transcript) + a.stderr();
      for (const s of secrets) expect(said.includes(s), "a token value appeared in atrium's output").toBe(false);
    } finally {
      await a.close();
    }
  });

  it("an access token past its expiry is refreshed: the next call succeeds without a new login", async () => {
    as.accessTokenTtl = 1;
    const a = await open();
    try {
      await logIn(a, []);
      expect((await a.call("call_tool", { address: "prot.whoami" })).isError).toBeFalsy();
      const logins = as.hits.filter((h) => h.startsWith("GET /auth")).length;
      const tokenCalls = as.hits.filter((h) => h === "POST /token").length;
      await sleep(2_100);
      const after = await a.call("call_tool", { address: "prot.whoami" });
      expect(after.isError).toBeFalsy();
      expect(as.hits.filter((h) => h.startsWith("GET /auth")).length).toBe(logins);
      expect(as.hits.filter((h) => h === "POST /token").length).toBeGreaterThan(tokenCalls);
    } finally {
      as.accessTokenTtl = 60;
      await a.close();
    }
  });

  it("an access token that expires within the refresh lead time is refreshed before the request: the server never refuses it", async () => {
    as.accessTokenTtl = 30; // under OAUTH_REFRESH_LEAD_MS: every request finds it about to expire
    const a = await open();
    try {
      await logIn(a, []);
      const tokenCalls = as.hits.filter((h) => h === "POST /token").length;
      const seen = mcp.hits.length;
      for (let i = 0; i < 2; i++) expect((await a.call("call_tool", { address: "prot.whoami" })).isError).toBeFalsy();
      expect(as.hits.filter((h) => h === "POST /token").length).toBeGreaterThanOrEqual(tokenCalls + 2);
      expect(mcp.hits.slice(seen).filter((h) => h.status === 401)).toEqual([]);
    } finally {
      as.accessTokenTtl = 60;
      await a.close();
    }
  });

  it("a grant revoked at the authorization server leads back to auth_required with nextAction authorize_connector", async () => {
    as.accessTokenTtl = 1;
    const a = await open();
    try {
      await logIn(a, []);
      expect((await a.call("call_tool", { address: "prot.whoami" })).isError).toBeFalsy();
      await as.revokeAll();
      await sleep(2_100);
      const refused = await a.call("call_tool", { address: "prot.whoami" });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as any).error).toMatchObject({ code: "auth_required", nextAction: { tool: "authorize_connector", arguments: { connector: "prot" } } });
      const search = await a.json("search_tools", { query: "" });
      expect(search.unavailable).toEqual([expect.objectContaining({ connector: "prot", state: "needs_auth" })]);
    } finally {
      as.accessTokenTtl = 60;
      await a.close();
    }
  });
});

describe("authorize_connector on a host that opens URLs (URL-mode elicitation)", () => {
  it("asks the host to open the login URL, then answers ready once the person logged in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-elicit-"));
    writeFileSync(join(dir, "atrium.json"), JSON.stringify(config()));
    const transport = new StdioClientTransport({ command: process.execPath, args: [atriumBin, "--config", join(dir, "atrium.json")], cwd: dir, stderr: "pipe", env: { ATRIUM_STATE_DIR: join(dir, "state"), ATRIUM_KEYRING: "off" } });
    const client = new Client({ name: "url-host", version: "1.0.0" }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const asked: { mode?: string; url?: string; message?: string; elicitationId?: string }[] = [];
    let login: Promise<string> | undefined;
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { mode?: string; url?: string; message?: string; elicitationId?: string };
      asked.push(params);
      // The host opens the URL for the person and answers at once; the login completes in the browser.
      login = loginThroughAtrium(browser, params.url!);
      return { action: "accept" };
    });
    const completed: string[] = [];
    client.setNotificationHandler("notifications/elicitation/complete", (n) => { completed.push((n.params as { elicitationId: string }).elicitationId); });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: "authorize_connector", arguments: { connector: "prot" } }, { timeout: 120_000 });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: "url", message: expect.stringMatching(/Log in to prot/) });
      expect(new URL(asked[0].url!).origin).toBe(as.issuer);
      expect(await login).toMatch(/Signed in/);
      expect(r.structuredContent).toMatchObject({ connector: "prot", status: "ready", tools: 2 });
      // The host is told the URL-mode elicitation completed (it went out before the answer).
      expect(completed).toEqual([(asked[0] as { elicitationId?: string }).elicitationId]);
      const who = await client.callTool({ name: "call_tool", arguments: { address: "prot.whoami", resultMode: "value" } });
      expect(JSON.stringify(who.structuredContent)).toContain("alice");
    } finally {
      await client.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a person who declines to open the URL gets auth_required saying so, with nextAction to start again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-elicit-"));
    writeFileSync(join(dir, "atrium.json"), JSON.stringify(config()));
    const transport = new StdioClientTransport({ command: process.execPath, args: [atriumBin, "--config", join(dir, "atrium.json")], cwd: dir, stderr: "pipe", env: { ATRIUM_STATE_DIR: join(dir, "state"), ATRIUM_KEYRING: "off" } });
    const client = new Client({ name: "url-host", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler("elicitation/create", async () => ({ action: "decline" }));
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: "authorize_connector", arguments: { connector: "prot" } });
      expect((r.structuredContent as any).error).toMatchObject({ code: "auth_required", retryable: false, message: expect.stringMatching(/did not open the login for prot \(decline\)/), nextAction: { tool: "authorize_connector", arguments: { connector: "prot" } } });
    } finally {
      await client.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a 2026-07-28 host (no elicitation requests) gets the URL to show", async () => {
    const a = await startAtrium({ config: config(), env: { ATRIUM_KEYRING: "off" }, revision: "2026-07-28" });
    try {
      const r = await a.call("authorize_connector", { connector: "prot" });
      expect(r.structuredContent).toMatchObject({ connector: "prot", status: "login_pending", authorizationUrl: expect.stringContaining(`${as.issuer}/auth?`) });
    } finally {
      await a.close();
    }
  });

  it("a stdio connector or an unknown one is invalid_args naming the remote connectors", async () => {
    const a = await startAtrium({ config: { mcpServers: { prot: { url: mcp.url }, local: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] } } }, env: { ATRIUM_KEYRING: "off" }, waitForConnectors: false });
    try {
      for (const connector of ["local", "nope"]) {
        const r = await a.call("authorize_connector", { connector });
        expect((r.structuredContent as any).error).toMatchObject({ code: "invalid_args", message: expect.stringMatching(/not a remote \(Streamable HTTP\) connector atrium logs in to; those are: prot/) });
      }
    } finally {
      await a.close();
    }
  });
});

describe("a client registered beforehand (oauth.clientId and clientSecret in atrium.json)", () => {
  it("logs in with the configured client, registers nothing, and never shows its secret", async () => {
    const pre = await startAuthServer({
      accessTokenTtl: 60,
      clients: [{ client_id: "atrium-pre", client_secret: "pre-registered-secret-value", application_type: "native", redirect_uris: ["http://127.0.0.1/callback"], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] }],
    });
    const server = await startProtectedMcp({ issuer: pre.issuer });
    pre.resource = server.url;
    const a = await startAtrium({ config: { mcpServers: { prot: { url: server.url, oauth: { clientId: "atrium-pre", clientSecret: "pre-registered-secret-value", scope: "mcp:read" } } } }, env: { ATRIUM_KEYRING: "off" } });
    try {
      const first = await a.call("authorize_connector", { connector: "prot" });
      const url = new URL((first.structuredContent as { authorizationUrl: string }).authorizationUrl);
      expect(url.searchParams.get("client_id")).toBe("atrium-pre");
      expect(url.searchParams.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["mcp:read"]));
      expect(url.searchParams.get("scope")).not.toContain("mcp:write"); // the configured scope, not the server's whole list
      const [second] = await Promise.all([a.call("authorize_connector", { connector: "prot" }), loginThroughAtrium(browser, url.href)]);
      expect(second.structuredContent).toMatchObject({ status: "ready", tools: 2 });
      const who = await a.call("call_tool", { address: "prot.whoami", resultMode: "value" });
      expect(JSON.stringify(who.structuredContent)).toContain("atrium-pre");
      expect(pre.hits.filter((h) => h === "POST /reg")).toEqual([]);
      const said = JSON.stringify([first, second, who]) + a.stderr();
      expect(said).not.toContain("pre-registered-secret-value");
    } finally {
      await a.close();
      await server.close();
      await pre.close();
    }
  });
});
