// Per-user downstream logins in team mode (issue 20 item 5, spec/oauth.md O13): a real
// `atrium serve --http` with atrium.http.auth (team tokens from one oidc-provider, client
// credentials, one principal per client) in front of a real bearer-protected MCP server whose
// logins come from a second oidc-provider (people sign in in Debian's Chromium). The connector
// is `"auth": "per-user"`: each principal logs in with their own account through
// authorize_connector, the browser comes back to atrium's own /oauth/callback, and every call
// carries the caller's own token, as the protected server's log of verified `sub`s shows. A
// principal without a login gets auth_required, never someone else's token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startAuthServer, type AuthServer } from "./harness/oauth-server.js";
import { startOAuthRig, type OAuthRig } from "./harness/oauth-rig.js";
import { loginThroughAtrium } from "./harness/oauth-client.js";
import { startHttpAtrium, connectHttp, type HttpAtrium, type HttpClient } from "./harness/atrium-http.js";
import { waitFor } from "./harness/until.js";
import { loginUrl, structured, teamClients, teamToken, whoami } from "./harness/team-logins.js";

const RESOURCE = "https://atrium.test/mcp";
const PRINCIPALS = ["alice-app", "bob-app", "carol-app"];
let team: AuthServer;
let rig: OAuthRig;
let atrium: HttpAtrium;
const clients: HttpClient[] = [];

const tokenFor = (clientId: string) => teamToken(team.issuer, RESOURCE, clientId);

async function connect(clientId: string, revision: "2025-11-25" | "2026-07-28" = "2026-07-28"): Promise<HttpClient> {
  const c = await connectHttp(atrium.url, { revision, headers: { authorization: `Bearer ${await tokenFor(clientId)}` } });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  team = await startAuthServer({
    resource: RESOURCE,
    clients: teamClients(PRINCIPALS),
  });
  rig = await startOAuthRig({ accessTokenTtl: 600 });
  atrium = await startHttpAtrium({
    config: {
      mcpServers: {
        crm: { url: rig.mcp.url, auth: "per-user", readOnlyTools: ["whoami"] },
        wiki: { url: rig.mcp.url, readOnlyTools: ["whoami"] },
      },
      atrium: { log: { enabled: false }, search: { semantic: false }, http: { auth: { issuer: team.issuer, audience: RESOURCE } } },
    },
    env: { ATRIUM_KEYRING: "off" },
  });
}, 90_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await atrium?.stop();
  await rig?.close();
  await team?.close();
});

describe("per-user logins: each principal's calls carry their own downstream token", () => {
  it("O13: alice's login comes back to atrium's own callback and her calls carry her token; bob, not logged in, gets auth_required and no token of hers", async () => {
    const alice = await connect("alice-app");
    const bob = await connect("bob-app");
    const url = await loginUrl(alice);
    expect(new URL(url).searchParams.get("redirect_uri")).toBe(`${atrium.base}/oauth/callback`);
    expect(await loginThroughAtrium(rig.browser, url, "alice")).toMatch(/Signed in/);
    await waitFor(async () => structured(await alice.call("authorize_connector", { connector: "crm" }))?.status === "ready", "alice's crm ready");
    expect(await whoami(alice)).toEqual({ sub: "alice" });
    const before = rig.mcp.calls.length;
    expect(await whoami(bob)).toEqual({ error: "auth_required" });
    expect(rig.mcp.calls.slice(before)).toEqual([]);
    expect(rig.mcp.calls.map((c) => c.sub)).not.toContain("bob");
  }, 120_000);

  it("bob logs in with his own account: from then on each one's calls, programs included, carry their own token", async () => {
    const alice = await connect("alice-app");
    const bob = await connect("bob-app", "2025-11-25");
    expect(await loginThroughAtrium(rig.browser, await loginUrl(bob), "bob")).toMatch(/Signed in/);
    await waitFor(async () => structured(await bob.call("authorize_connector", { connector: "crm" }))?.status === "ready", "bob's crm ready");
    const from = rig.mcp.calls.length;
    expect(await whoami(bob)).toEqual({ sub: "bob" });
    expect(await whoami(alice)).toEqual({ sub: "alice" });
    const program = "const r = await crm.whoami({}); return JSON.stringify(r)";
    expect(JSON.stringify(structured(await bob.call("execute_code", { code: program })))).toContain('\\"sub\\":\\"bob\\"');
    expect(JSON.stringify(structured(await alice.call("execute_code", { code: program })))).toContain('\\"sub\\":\\"alice\\"');
    expect(rig.mcp.calls.slice(from).map((c) => c.sub)).toEqual(["bob", "alice", "bob", "alice"]);
  }, 120_000);

  it("each principal's tokens are stored under that principal, apart from the operator's (local) records", () => {
    const file = JSON.parse(readFileSync(join(atrium.dir, "state", "tokens.json"), "utf8")) as { records: { connector: string; owner?: string; tokens?: unknown }[] };
    const crm = file.records.filter((r) => r.connector === "crm" && r.tokens);
    expect(crm.length).toBe(2);
    expect(new Set(crm.map((r) => r.owner)).size).toBe(2);
    expect(crm.every((r) => typeof r.owner === "string" && r.owner.startsWith("p:"))).toBe(true);
  });

  it("a redirect whose state no login is waiting for exchanges nothing (400), and one login's state is used once", async () => {
    const carol = await connect("carol-app");
    const url = await loginUrl(carol);
    const state = new URL(url).searchParams.get("state")!;
    const hits = rig.as.hits.filter((h) => h === "POST /token").length;
    const forged = await fetch(`${atrium.base}/oauth/callback?code=stolen&state=${"A".repeat(43)}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(/Refused: the state/);
    // The AS's error for carol's own state ends her login once; the same state again is refused as unknown.
    const failed = await fetch(`${atrium.base}/oauth/callback?error=access_denied&state=${state}`);
    expect(failed.status).toBe(400);
    expect(await failed.text()).toMatch(/did not complete/);
    const replay = await fetch(`${atrium.base}/oauth/callback?code=x&state=${state}`);
    expect(await replay.text()).toMatch(/Refused: the state/);
    expect(rig.as.hits.filter((h) => h === "POST /token").length).toBe(hits);
    expect(await whoami(carol)).toEqual({ error: "auth_required" });
  }, 120_000);

  it("a shared connector's login is the operator's: a team principal cannot log everyone in from a host", async () => {
    const alice = await connect("alice-app");
    const r = await alice.call("authorize_connector", { connector: "wiki" });
    expect(r.isError).toBe(true);
    expect(structured(r).error.code).toBe("auth_required");
    expect(structured(r).error.message).toMatch(/atrium auth login wiki/);
  }, 60_000);
});
