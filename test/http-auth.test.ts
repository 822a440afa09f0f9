// Team mode signed in (issue 20 item 2, spec/inbound-tokens.md): a real `atrium serve --http`
// with atrium.http.auth in front of the demo and gate connectors, a real authorization server
// (oidc-provider) issuing RS256 JWT access tokens to two principals (client_credentials, `sub` =
// client id, a groups claim), and SDK clients on both revisions. Each principal gets only the
// connectors atrium.access grants its groups, a session or a stashed result of one is answered
// to the other as one that never existed, and a request without a token, with a forged one or
// one for another resource runs nothing (401 with the RFC 9728 challenge).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair, SignJWT, decodeJwt } from "jose";
import { startAuthServer, type AuthServer } from "./harness/oauth-server.js";
import { startHttpAtrium, connectHttp, type HttpAtrium } from "./harness/atrium-http.js";
import { demoServer, fixture, nodeServer, programValue } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";
import { teamToken } from "./harness/team-logins.js";

const RESOURCE = "https://atrium.test/mcp";
const GROUPS: Record<string, string[]> = { "alice-app": ["ops"], "bob-app": ["sales"] };
let as: AuthServer;
let atrium: HttpAtrium;

/** An access token for `clientId` from the authorization server's token endpoint (client_credentials, RFC 8707 resource). */
const tokenFor = (clientId: string, resource = RESOURCE): Promise<string> => teamToken(as.issuer, resource, clientId);

const post = (token: string | undefined, body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers: Record<string, string> = {}) =>
  fetch(atrium.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", ...(token && { authorization: `Bearer ${token}` }), ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  as = await startAuthServer({
    resource: RESOURCE,
    clients: Object.keys(GROUPS).map((id) => ({ client_id: id, client_secret: `secret-${id}`, grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "mcp:read" })),
    extraClaims: (clientId) => ({ groups: GROUPS[clientId] ?? [] }),
  });
  atrium = await startHttpAtrium({
    config: {
      mcpServers: { desk: nodeServer(demoServer), gate: nodeServer(fixture("gate-server")), echo: nodeServer(fixture("nasty-server"), { maxResultBytes: 50_000 }) },
      atrium: {
        log: { enabled: false },
        search: { semantic: false },
        http: { auth: { issuer: as.issuer, audience: RESOURCE } },
        access: [{ connectors: ["desk", "echo"] }, { groups: ["ops"], connectors: ["gate"] }],
      },
    },
  });
}, 60_000);
afterAll(async () => {
  await atrium?.stop();
  await as?.close();
});

describe("serve --http with atrium.http.auth: tokens from a real authorization server", () => {
  it("the issued token is a JWT for this resource, and the principal is its client (sanity of the rig)", async () => {
    const claims = decodeJwt(await tokenFor("alice-app"));
    expect(claims).toMatchObject({ iss: as.issuer, aud: RESOURCE, sub: "alice-app", groups: ["ops"] });
  });

  it("T1: no token is 401 with the RFC 9728 challenge, and its metadata names the issuer", async () => {
    const r = await post(undefined);
    expect(r.status).toBe(401);
    const challenge = r.headers.get("www-authenticate") ?? "";
    const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(url).toBe(`${atrium.base}/.well-known/oauth-protected-resource/mcp`);
    const doc = (await (await fetch(url!)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({ resource: atrium.url, authorization_servers: [as.issuer] });
    expect(await fetch(`${atrium.base}/readyz`).then((x) => x.status)).toBe(200);
  });

  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it(`G1/G2 over ${revision}: each principal's programs see only the connectors its groups are granted`, async () => {
      const alice = await connectHttp(atrium.url, { revision, headers: { authorization: `Bearer ${await tokenFor("alice-app")}` } });
      const bob = await connectHttp(atrium.url, { revision, headers: { authorization: `Bearer ${await tokenFor("bob-app")}` } });
      try {
        await waitFor(async () => programValue(await alice.call("execute_code", { code: "return typeof gate" })) === "object", "gate ready for alice");
        expect(programValue(await alice.call("execute_code", { code: "return (await gate.whoami({})).label" }))).toBe("gate");
        expect(programValue(await bob.call("execute_code", { code: "return [typeof gate, typeof desk]" }))).toEqual(["undefined", "object"]);
        const hidden = await bob.call("call_tool", { address: "gate.whoami", args: {} });
        expect((hidden.structuredContent as any).error.code).toBe("unknown_address");
      } finally {
        await alice.close();
        await bob.close();
      }
    }, 60_000);
  }

  it("a 2025-11-25 session of one principal is, to the other, a session that never existed", async () => {
    const alice = await connectHttp(atrium.url, { revision: "2025-11-25", headers: { authorization: `Bearer ${await tokenFor("alice-app")}` } });
    try {
      const sid = alice.transport.sessionId!;
      const bobToken = await tokenFor("bob-app");
      const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
      const hijack = await post(bobToken, list, { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" });
      const never = await post(bobToken, list, { "mcp-session-id": "00000000-0000-4000-8000-000000000000", "mcp-protocol-version": "2025-11-25" });
      expect(hijack.status).toBe(404);
      expect(await hijack.text()).toBe(await never.text());
      expect((await alice.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await alice.close();
    }
  }, 60_000);

  it("a result stashed for one principal is, to the other, a result that never existed", async () => {
    const alice = await connectHttp(atrium.url, { revision: "2026-07-28", headers: { authorization: `Bearer ${await tokenFor("alice-app")}` } });
    const bob = await connectHttp(atrium.url, { revision: "2026-07-28", headers: { authorization: `Bearer ${await tokenFor("bob-app")}` } });
    try {
      await waitFor(async () => ((await alice.call("search_tools", { query: "echo", limit: 5 })).structuredContent as { total?: number } | undefined)?.total !== 0, "echo listed");
      const big = await alice.call("call_tool", { address: "echo.echo", args: { s: "x".repeat(60_000) }, resultMode: "value" });
      const id = (big.structuredContent as { resultId?: string }).resultId;
      expect(id).toBeTruthy();
      expect((await alice.call("get_result", { id, offset: 0 })).isError).toBeFalsy();
      const stolen = await bob.call("get_result", { id, offset: 0 });
      const fake = `${id!.slice(0, -4)}${id!.slice(-4) === "0000" ? "1111" : "0000"}`;
      const never = await bob.call("get_result", { id: fake, offset: 0 });
      expect(stolen.isError).toBe(true);
      expect(JSON.stringify(stolen.structuredContent).replaceAll(id!, "ID")).toBe(JSON.stringify(never.structuredContent).replaceAll(fake, "ID"));
    } finally {
      await alice.close();
      await bob.close();
    }
  }, 60_000);

  it("T6/T11: a forged token, one for another resource and a token that is not a JWS run nothing (401 invalid_token)", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const kid = JSON.parse(Buffer.from((await tokenFor("alice-app")).split(".")[0], "base64url").toString()).kid as string;
    const forged = await new SignJWT({ groups: ["ops"], scope: "mcp:read" }).setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" }).setIssuer(as.issuer).setAudience(RESOURCE).setSubject("alice-app").setIssuedAt().setExpirationTime("5m").sign(privateKey);
    const program = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "execute_code", arguments: { code: "return (await gate.whoami({})).pid" } } };
    for (const token of [forged, "not-a-jwt", `${forged.split(".").slice(0, 2).join(".")}.`]) {
      const r = await post(token, program);
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token", error_description="[^"]+"$/);
    }
    // A token the same authorization server issued for another resource: refused by audience (RFC 8707).
    as.resource = "https://elsewhere.test/mcp";
    try {
      const other = await tokenFor("alice-app", "https://elsewhere.test/mcp");
      const r = await post(other, program);
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toContain("the token was issued for another resource");
    } finally {
      as.resource = RESOURCE;
    }
  }, 60_000);
});
