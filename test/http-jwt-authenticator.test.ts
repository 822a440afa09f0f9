// spec/inbound-tokens.md wired (issue 20 item 2): the resource-server verifier against an issuer
// served by a fake fetch (metadata + JWKS, counted) with real keys and real JWTs from jose, on a
// fake clock. Each refusal's status and WWW-Authenticate (RFC 6750 §3, RFC 9728), rotation
// followed within JWKS_REFETCH_COOLDOWN_MS, a stale set dropped past JWKS_STALE_MAX_MS, and
// discovery that names another issuer, a jwks_uri of another scheme or an oversized set refused.
import { describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK, type CryptoKey } from "jose";
import { createHmac } from "node:crypto";
import { core } from "../glue/decisions/core.js";
import { createJwtAuthenticator } from "../glue/http/jwt-authenticator.js";
import { tokenPrincipal } from "../glue/support/principal.js";
import { JWKS_KEYS_MAX, JWKS_REFETCH_COOLDOWN_MS, JWKS_STALE_MAX_MS, TOKEN_CLOCK_SKEW_S } from "../glue/decisions/generated/spec.js";

const ISSUER = "https://login.example";
const AUDIENCE = "https://atrium.example/mcp";
const T0 = 1_800_000_000; // seconds

async function keyPair(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } as JWK };
}
type Pair = Awaited<ReturnType<typeof keyPair>>;

/** An issuer behind a fake fetch: its RFC 8414 metadata and JWKS, every fetch counted. */
function issuer(opts: { keys: Pair[]; metadata?: Record<string, unknown>; jwks?: unknown; down?: boolean }) {
  const state = { ...opts, fetches: [] as string[] };
  const fetchFn = (async (input: string | URL) => {
    const url = String(input);
    state.fetches.push(url);
    if (state.down) throw new TypeError("fetch failed");
    if (url === `${ISSUER}/.well-known/oauth-authorization-server`) return Response.json(state.metadata ?? { issuer: ISSUER, jwks_uri: `${ISSUER}/jwks` });
    if (url === `${ISSUER}/jwks`) return Response.json(state.jwks ?? { keys: state.keys.map((k) => k.jwk) });
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
  return { state, fetchFn };
}

function verifier(fetchFn: typeof fetch, clock: { s: number }, auth: Partial<{ requiredScopes: string[]; groupsClaim: string }> = {}) {
  return createJwtAuthenticator({
    auth: { issuer: ISSUER, audience: AUDIENCE, requiredScopes: auth.requiredScopes ?? [], groupsClaim: auth.groupsClaim ?? "groups" },
    resource: () => "https://atrium.example/mcp",
    core: core(),
    fetch: fetchFn,
    now: () => clock.s * 1000,
  });
}

async function jwt(key: { kid: string; privateKey: CryptoKey }, claims: Record<string, unknown> = {}, opts: { iat?: number; exp?: number; iss?: string; aud?: string | string[] } = {}) {
  return new SignJWT({ groups: ["ops"], scope: "mcp:read", ...claims })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "at+jwt" })
    .setIssuer(opts.iss ?? ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setSubject("alice")
    .setIssuedAt(opts.iat ?? T0)
    .setExpirationTime(opts.exp ?? T0 + 300)
    .sign(key.privateKey);
}

const bearer = (t: string) => `Bearer ${t}`;
const challenge = (r: Awaited<ReturnType<ReturnType<typeof verifier>["authenticate"]>>) => (r.ok ? undefined : r.headers["www-authenticate"]);
const METADATA = 'resource_metadata="https://atrium.example/.well-known/oauth-protected-resource/mcp"';

describe("inbound tokens: what a request's bearer token gets", () => {
  it("T12: a token of the issuer's key, for this audience, in time, is the principal iss + sub with its groups and scopes", async () => {
    const k = await keyPair("k1");
    const v = verifier(issuer({ keys: [k] }).fetchFn, { s: T0 });
    const r = await v.authenticate(bearer(await jwt(k)));
    expect(r).toEqual({ ok: true, principal: tokenPrincipal(ISSUER, "alice", ["ops"], ["mcp:read"]) });
  });

  it("T1: no Authorization header is 401 with resource_metadata and no error code (RFC 6750 §3.1)", async () => {
    const k = await keyPair("k1");
    const v = verifier(issuer({ keys: [k] }).fetchFn, { s: T0 });
    const r = await v.authenticate(undefined);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toBe(`Bearer ${METADATA}`);
    expect((await v.authenticate("Basic YWxpY2U6cHc=")).ok).toBe(false);
  });

  it("T2: a malformed Authorization header is 400 invalid_request", async () => {
    const v = verifier(issuer({ keys: [await keyPair("k1")] }).fetchFn, { s: T0 });
    const r = await v.authenticate("Bearer a b");
    expect(r.ok ? 0 : r.status).toBe(400);
    expect(challenge(r)).toContain('error="invalid_request"');
  });

  it("T4: alg none and HS256 (the public key as an HMAC secret) are refused before any key is used", async () => {
    const k = await keyPair("k1");
    const { state, fetchFn } = issuer({ keys: [k] });
    const v = verifier(fetchFn, { s: T0 });
    const none = new UnsecuredJWT({ sub: "alice", groups: ["ops"] }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime(T0 + 300).encode();
    const head = Buffer.from(JSON.stringify({ alg: "HS256", kid: "k1" })).toString("base64url");
    const body = Buffer.from(JSON.stringify({ sub: "alice", iss: ISSUER, aud: AUDIENCE, exp: T0 + 300 })).toString("base64url");
    const hs = `${head}.${body}.${createHmac("sha256", JSON.stringify(k.jwk)).update(`${head}.${body}`).digest("base64url")}`;
    for (const t of [none, hs]) {
      const r = await v.authenticate(bearer(t));
      expect(r.ok ? 0 : r.status).toBe(401);
      expect(challenge(r)).toContain('error="invalid_token", error_description="the token is signed with an algorithm atrium does not accept"');
    }
    expect(state.fetches).toEqual([]);
  });

  it("T6: a token signed by another key under the issuer's kid is invalid_token, and runs as nobody", async () => {
    const k = await keyPair("k1");
    const forger = await keyPair("k1");
    const v = verifier(issuer({ keys: [k] }).fetchFn, { s: T0 });
    const r = await v.authenticate(bearer(await jwt(forger)));
    expect(r.ok).toBe(false);
    expect(challenge(r)).toContain("the token's signature does not verify");
    const tampered = (await jwt(k)).split(".");
    tampered[1] = Buffer.from(JSON.stringify({ sub: "root", iss: ISSUER, aud: AUDIENCE, exp: T0 + 300 })).toString("base64url");
    expect((await v.authenticate(bearer(tampered.join(".")))).ok).toBe(false);
  });

  it("T9/T10: another issuer, another audience (RFC 8707), or expired past the skew are invalid_token; within the skew is accepted", async () => {
    const k = await keyPair("k1");
    const v = verifier(issuer({ keys: [k] }).fetchFn, { s: T0 });
    const cases: [string, string][] = [
      [await jwt(k, {}, { iss: "https://other.example" }), "issued by another issuer"],
      [await jwt(k, {}, { aud: "https://other.example/mcp" }), "issued for another resource"],
      [await jwt(k, {}, { iat: T0 - 600, exp: T0 - TOKEN_CLOCK_SKEW_S - 1 }), "has expired"],
      [await jwt(k, { nbf: T0 + TOKEN_CLOCK_SKEW_S + 1 }), "not valid yet"],
    ];
    for (const [t, words] of cases) {
      const r = await v.authenticate(bearer(t));
      expect(r.ok ? 0 : r.status).toBe(401);
      expect(challenge(r)).toContain(words);
    }
    expect((await v.authenticate(bearer(await jwt(k, {}, { iat: T0 - 600, exp: T0 - TOKEN_CLOCK_SKEW_S + 1 })))).ok).toBe(true);
    expect((await v.authenticate(bearer(await jwt(k, {}, { aud: ["https://other.example", AUDIENCE] })))).ok).toBe(true);
  });

  it("T13: a token without a required scope is 403 insufficient_scope naming the scopes", async () => {
    const k = await keyPair("k1");
    const v = verifier(issuer({ keys: [k] }).fetchFn, { s: T0 }, { requiredScopes: ["mcp:read", "mcp:tools"] });
    const r = await v.authenticate(bearer(await jwt(k)));
    expect(r.ok ? 0 : r.status).toBe(403);
    expect(challenge(r)).toBe(`Bearer ${METADATA}, error="insufficient_scope", error_description="the token lacks a required scope", scope="mcp:read mcp:tools"`);
    expect((await v.authenticate(bearer(await jwt(k, { scope: "mcp:tools mcp:read" })))).ok).toBe(true);
  });

  it("key rotation: a new kid makes one refetch; another unknown kid within JWKS_REFETCH_COOLDOWN_MS makes none", async () => {
    const k1 = await keyPair("k1");
    const k2 = await keyPair("k2");
    const { state, fetchFn } = issuer({ keys: [k1] });
    const clock = { s: T0 };
    const v = verifier(fetchFn, clock);
    expect((await v.authenticate(bearer(await jwt(k1)))).ok).toBe(true);
    const jwksFetches = () => state.fetches.filter((u) => u.endsWith("/jwks")).length;
    expect(jwksFetches()).toBe(1);
    clock.s += JWKS_REFETCH_COOLDOWN_MS / 1000 + 1;
    state.keys = [k1, k2];
    expect((await v.authenticate(bearer(await jwt(k2)))).ok).toBe(true);
    expect(jwksFetches()).toBe(2);
    const stranger = await keyPair("k3");
    const r = await v.authenticate(bearer(await jwt(stranger)));
    expect(challenge(r)).toContain("no key of the issuer's key set signed this token");
    expect(jwksFetches()).toBe(2);
  });

  it("an issuer that cannot be reached gives 503 and /readyz not ready, then serves once it answers (past the cooldown)", async () => {
    const k = await keyPair("k1");
    const { state, fetchFn } = issuer({ keys: [k], down: true });
    const clock = { s: T0 };
    const v = verifier(fetchFn, clock);
    const r = await v.authenticate(bearer(await jwt(k)));
    expect(r.ok ? 0 : r.status).toBe(503);
    expect(r.ok ? undefined : r.body.retryable).toBe(true);
    expect(v.ready()).toBe(false);
    state.down = false;
    expect((await v.authenticate(bearer(await jwt(k)))).ok).toBe(false); // within the cooldown: no new fetch
    clock.s += JWKS_REFETCH_COOLDOWN_MS / 1000 + 1;
    expect((await v.authenticate(bearer(await jwt(k)))).ok).toBe(true);
    expect(v.ready()).toBe(true);
  });

  it("a key set that cannot be fetched again for JWKS_STALE_MAX_MS is dropped: tokens get 503", async () => {
    const k = await keyPair("k1");
    const { state, fetchFn } = issuer({ keys: [k] });
    const clock = { s: T0 };
    const v = verifier(fetchFn, clock);
    expect((await v.authenticate(bearer(await jwt(k)))).ok).toBe(true);
    state.down = true;
    clock.s += JWKS_STALE_MAX_MS / 1000 + 1;
    const r = await v.authenticate(bearer(await jwt(k, {}, { iat: clock.s, exp: clock.s + 300 })));
    expect(r.ok ? 0 : r.status).toBe(503);
  });

  it("discovery: metadata naming another issuer, a jwks_uri that is not https, or a set over JWKS_KEYS_MAX keys give 503 (nothing is trusted)", async () => {
    const k = await keyPair("k1");
    const bad = [
      issuer({ keys: [k], metadata: { issuer: "https://evil.example", jwks_uri: `${ISSUER}/jwks` } }),
      issuer({ keys: [k], metadata: { issuer: ISSUER, jwks_uri: "file:///etc/keys.json" } }),
      issuer({ keys: [k], jwks: { keys: Array.from({ length: JWKS_KEYS_MAX + 1 }, () => k.jwk) } }),
    ];
    for (const { fetchFn } of bad) {
      const r = await verifier(fetchFn, { s: T0 }).authenticate(bearer(await jwt(k)));
      expect(r.ok ? 0 : r.status).toBe(503);
    }
  });

  it("RFC 9728: the protected resource metadata names the resource and the issuer, at the well-known path of /mcp", async () => {
    const v = verifier(issuer({ keys: [] }).fetchFn, { s: T0 }, { requiredScopes: ["mcp:read"] });
    const doc = { resource: AUDIENCE, authorization_servers: [ISSUER], bearer_methods_supported: ["header"], scopes_supported: ["mcp:read"], resource_name: "atrium" };
    expect(v.documentAt("/.well-known/oauth-protected-resource/mcp")).toEqual(doc);
    expect(v.documentAt("/.well-known/oauth-protected-resource")).toEqual(doc);
    expect(v.documentAt("/.well-known/oauth-protected-resource/other")).toBeUndefined();
  });
});
