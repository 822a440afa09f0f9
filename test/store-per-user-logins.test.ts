// Per-user downstream logins across replicas (atrium.store, ATRIUM_STORE_KEY): two real
// `atrium serve --http` replicas on one real redis-server, team tokens from one oidc-provider, a
// real bearer-protected MCP server whose logins come from a second one (people sign in in Debian's
// Chromium). alice starts her login through replica A; her browser comes back to replica B's
// callback (the public URL points there), B carries it to A, A exchanges the code, and her tokens,
// sealed in the store, are hers on B too. bob has none on either. The store holds no token in the
// clear, and a replica without the key refuses to start with per-user connectors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { startAuthServer, type AuthServer } from "./harness/oauth-server.js";
import { startOAuthRig, type OAuthRig } from "./harness/oauth-rig.js";
import { loginThroughAtrium } from "./harness/oauth-client.js";
import { startHttpAtrium, connectHttp, type HttpAtrium, type HttpClient } from "./harness/atrium-http.js";
import { atriumBin } from "./harness/atrium-client.js";
import { startRedis, type RedisServer as TestRedis } from "./harness/redis-server.js";
import { waitFor } from "./harness/until.js";
import { loginUrl, structured, teamClients, teamToken, whoami } from "./harness/team-logins.js";

const RESOURCE = "https://atrium.test/mcp";
const STORE_KEY = Buffer.alloc(32, 7).toString("base64");
let team: AuthServer;
let rig: OAuthRig;
let redis: TestRedis;
let a: HttpAtrium;
let b: HttpAtrium;
let config: Record<string, any>;
const clients: HttpClient[] = [];

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer();
  s.listen(0, "127.0.0.1", () => {
    const port = (s.address() as { port: number }).port;
    s.close(() => resolve(port));
  });
});

async function connect(replica: HttpAtrium, clientId: string): Promise<HttpClient> {
  const c = await connectHttp(replica.url, { revision: "2026-07-28", headers: { authorization: `Bearer ${await teamToken(team.issuer, RESOURCE, clientId)}` } });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  team = await startAuthServer({ resource: RESOURCE, clients: teamClients(["alice-app", "bob-app"]) });
  rig = await startOAuthRig({ accessTokenTtl: 600 });
  redis = await startRedis();
  const portB = await freePort();
  config = {
    mcpServers: { crm: { url: rig.mcp.url, auth: "per-user", readOnlyTools: ["whoami"] } },
    atrium: {
      log: { enabled: false }, search: { semantic: false },
      // Every login's browser comes back to B, whichever replica started it.
      http: { publicUrl: `http://127.0.0.1:${portB}`, auth: { issuer: team.issuer, audience: RESOURCE } },
      store: { url: redis.url, keyPrefix: "logins-test:" },
    },
  };
  const env = { ATRIUM_KEYRING: "off", ATRIUM_STORE_KEY: STORE_KEY };
  [a, b] = await Promise.all([startHttpAtrium({ config, env }), startHttpAtrium({ config, env, listen: `127.0.0.1:${portB}` })]);
  for (const r of [a, b]) await waitFor(async () => (await fetch(`${r.base}/readyz`)).status === 200, "each replica ready");
}, 120_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
  await rig?.close();
  await team?.close();
});

describe("per-user logins on replicas sharing a store", () => {
  it("alice's login started on A comes back to B's callback and completes on A; her calls through either replica carry her token, bob's none", async () => {
    const aliceOnA = await connect(a, "alice-app");
    const url = await loginUrl(aliceOnA);
    expect(new URL(url).searchParams.get("redirect_uri")).toBe(`${b.base}/oauth/callback`);
    expect(await loginThroughAtrium(rig.browser, url, "alice")).toMatch(/Signed in/);
    await waitFor(async () => structured(await aliceOnA.call("authorize_connector", { connector: "crm" }))?.status === "ready", "alice's crm ready on A");
    expect(await whoami(aliceOnA)).toEqual({ sub: "alice" });
    const aliceOnB = await connect(b, "alice-app");
    await waitFor(async () => (await whoami(aliceOnB)).sub === "alice", "alice's login on B");
    const bobOnB = await connect(b, "bob-app");
    const before = rig.mcp.calls.length;
    expect(await whoami(bobOnB)).toEqual({ error: "auth_required" });
    expect(rig.mcp.calls.slice(before)).toEqual([]);
  }, 120_000);

  it("the store keeps each login sealed: no token, issuer or principal in the clear, every key with a TTL", async () => {
    const peek = createClient({ url: redis.url });
    await peek.connect();
    try {
      const keys = await peek.keys("logins-test:login:*");
      expect(keys.length).toBe(1);
      const value = (await peek.get(keys[0]))!;
      for (const clear of ["access_token", "alice", "refresh", rig.as.issuer, "crm"]) expect(value).not.toContain(clear);
      expect(await peek.pTTL(keys[0])).toBeGreaterThan(0);
    } finally {
      peek.destroy();
    }
  });

  it("a replica with per-user connectors and no ATRIUM_STORE_KEY refuses to start, naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-nokey-"));
    writeFileSync(join(dir, "atrium.json"), JSON.stringify(config));
    const r = spawnSync(process.execPath, [atriumBin, "serve", "--http", "--listen", "127.0.0.1:0", "--config", join(dir, "atrium.json")], { env: { ...process.env, ATRIUM_STATE_DIR: join(dir, "state"), ATRIUM_STORE_KEY: "" }, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/crm logs each person in .*ATRIUM_STORE_KEY is not set/);
  });
});
