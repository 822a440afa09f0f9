// glue/http/jwt-authenticator.ts in process, with the real core (spec/inbound-tokens.md T1–T14):
// every answer's full response (status, WWW-Authenticate with its quoted values escaped,
// Retry-After only on 503, the body), each observation made only when the ones before it passed
// (no key fetched for a token refused by its form or algorithm), the JWS shape (three parts, a
// decodable header, a string alg), the payload read as strict UTF-8 JSON, a key set with several
// keys under one kid tried key by key, the refetch made for an unknown kid only (and a set gone
// stale during it not used), the clock given (else Date.now, floored to seconds), and RFC 9728's
// metadata URL and document for a resource at the root or under a path. Keys are ES256, made once
// per file inside the first test that needs them.
import { describe, expect, it } from "vitest";
import { CompactSign, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { core } from "../glue/decisions/core.js";
import { createJwtAuthenticator } from "../glue/http/jwt-authenticator.js";
import { tokenPrincipal } from "../glue/support/principal.js";
import { Budget, JWKS_REFETCH_COOLDOWN_MS, JWKS_STALE_MAX_MS, TOKEN_CLOCK_SKEW_S } from "../glue/decisions/generated/spec.js";

const ISSUER = "https://login.example";
const AUDIENCE = "https://atrium.example/mcp";
const T0 = 1_000_000_000; // seconds: far in the past of the real clock, so a token valid at T0 is expired by Date.now
const METADATA = 'resource_metadata="https://atrium.example/.well-known/oauth-protected-resource/mcp"';

type Pair = { kid: string; privateKey: CryptoKey; jwk: JWK };
const made = new Map<string, Promise<Pair>>();
/** The ES256 key pair named `name` (kid `kid`), made on first use and kept for the file. */
function pair(name: string, kid = name): Promise<Pair> {
  const key = `${name}/${kid}`;
  let p = made.get(key);
  if (!p) {
    p = (async () => {
      const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
      return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
    })();
    made.set(key, p);
  }
  return p;
}

/** An issuer behind a fake fetch (RFC 8414 metadata and its JWKS), every fetch counted; `onJwks` runs before the set is answered. */
function issuer(keys: Pair[], opts: { down?: boolean; onJwks?: () => void } = {}) {
  const state = { keys, down: opts.down ?? false, fetches: [] as string[] };
  const fetchFn = (async (input: string | URL) => {
    const url = String(input);
    state.fetches.push(url);
    if (state.down) throw new TypeError("fetch failed");
    if (url === `${ISSUER}/.well-known/oauth-authorization-server`) return Response.json({ issuer: ISSUER, jwks_uri: `${ISSUER}/jwks` });
    if (url === `${ISSUER}/jwks`) {
      opts.onJwks?.();
      if (state.down) throw new TypeError("fetch failed");
      return Response.json({ keys: state.keys.map((k) => k.jwk) });
    }
    return new Response("not found", { status: 404 });
  }) as typeof fetch;
  const jwksFetches = () => state.fetches.filter((u) => u.endsWith("/jwks")).length;
  return { state, fetchFn, jwksFetches };
}

function verifier(fetchFn: typeof fetch, now: (() => number) | undefined, over: { requiredScopes?: string[]; resource?: string; log?: (l: string) => void } = {}) {
  return createJwtAuthenticator({
    auth: { issuer: ISSUER, audience: AUDIENCE, requiredScopes: over.requiredScopes ?? [], groupsClaim: "groups" },
    resource: () => over.resource ?? AUDIENCE,
    core: core(),
    fetch: fetchFn,
    now,
    log: over.log,
  });
}
const at = (clock: { s: number }) => () => clock.s * 1000;

async function jwt(key: Pair, opts: { iat?: number; exp?: number; claims?: Record<string, unknown> } = {}) {
  return new SignJWT({ groups: ["ops"], scope: "mcp:read", ...opts.claims })
    .setProtectedHeader({ alg: "ES256", kid: key.kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("alice")
    .setIssuedAt(opts.iat ?? T0)
    .setExpirationTime(opts.exp ?? T0 + 300)
    .sign(key.privateKey);
}
/** A compact JWS of `key` over raw payload bytes (not necessarily JSON, not necessarily UTF-8). */
const signedBytes = (key: Pair, bytes: Uint8Array) => new CompactSign(bytes).setProtectedHeader({ alg: "ES256", kid: key.kid }).sign(key.privateKey);
const b64 = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

const bearer = (t: string) => `Bearer ${t}`;
type Answer = Awaited<ReturnType<ReturnType<typeof verifier>["authenticate"]>>;
const refusal = (r: Answer) => {
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.principal)}`);
  return r;
};
const invalidToken = (description: string) => ({
  ok: false,
  status: 401,
  headers: { "www-authenticate": `Bearer ${METADATA}, error="invalid_token", error_description="${description}"` },
  body: { error: "invalid_token", message: description, retryable: false },
});

describe("each answer's full response (RFC 6750 §3)", () => {
  it("no Authorization header, or another scheme: 401 with resource_metadata only, body error unauthorized, no Retry-After", async () => {
    const { fetchFn } = issuer([]);
    const v = verifier(fetchFn, at({ s: T0 }));
    expect(await v.authenticate(undefined)).toEqual({
      ok: false,
      status: 401,
      headers: { "www-authenticate": `Bearer ${METADATA}` },
      body: { error: "unauthorized", message: "this atrium needs a bearer token from its authorization server", retryable: false },
    });
    const basic = refusal(await v.authenticate("Basic YWxpY2U6cHc="));
    expect(basic.status).toBe(401);
    expect(basic.headers).toEqual({ "www-authenticate": `Bearer ${METADATA}` });
    expect(basic.body).toEqual({ error: "unauthorized", message: "this atrium takes Bearer tokens only", retryable: false });
  });

  it("a malformed header: 400 invalid_request with its description", async () => {
    const v = verifier(issuer([]).fetchFn, at({ s: T0 }));
    const description = "the Authorization header does not hold one bearer token";
    expect(await v.authenticate("Bearer a b")).toEqual({
      ok: false,
      status: 400,
      headers: { "www-authenticate": `Bearer ${METADATA}, error="invalid_request", error_description="${description}"` },
      body: { error: "invalid_request", message: description, retryable: false },
    });
  });

  it("a token past bearer_token_bytes is invalid_token (oversize); one of exactly that many bytes is judged as a token", async () => {
    const { fetchFn, state } = issuer([]);
    const v = verifier(fetchFn, at({ s: T0 }));
    const max = core().limitDefault(Budget.bearer_token_bytes);
    expect(await v.authenticate(bearer("a".repeat(max + 1)))).toEqual(invalidToken("the bearer token is longer than atrium reads"));
    expect(await v.authenticate(bearer("a".repeat(max)))).toEqual(invalidToken("the token is not a signed JWT"));
    expect(state.fetches).toEqual([]);
  });

  it("an issuer whose keys cannot be fetched: 503 with Retry-After of the refetch cooldown, body unavailable and retryable, no error code", async () => {
    const k = await pair("k1");
    const { fetchFn } = issuer([k], { down: true });
    const lines: string[] = [];
    const v = verifier(fetchFn, at({ s: T0 }), { log: (l) => lines.push(l) });
    expect(await v.authenticate(bearer(await jwt(k)))).toEqual({
      ok: false,
      status: 503,
      headers: { "www-authenticate": `Bearer ${METADATA}`, "retry-after": String(JWKS_REFETCH_COOLDOWN_MS / 1000) },
      body: { error: "unavailable", message: "the issuer's keys are not known now", retryable: true },
    });
    expect(v.ready()).toBe(false);
    expect(lines.join("\n")).toContain(`the key set of ${ISSUER} could not be fetched`);
  });

  it("insufficient_scope: 403 naming every required scope, space-separated, each quoted value escaped (RFC 9110 quoted-string)", async () => {
    const k = await pair("k1");
    const v = verifier(issuer([k]).fetchFn, at({ s: T0 }), { requiredScopes: ["mcp:read", 'say "hi"', "back\\slash"] });
    const description = "the token lacks a required scope";
    expect(await v.authenticate(bearer(await jwt(k)))).toEqual({
      ok: false,
      status: 403,
      headers: { "www-authenticate": `Bearer ${METADATA}, error="insufficient_scope", error_description="${description}", scope="mcp:read say \\"hi\\" back\\\\slash"` },
      body: { error: "insufficient_scope", message: description, retryable: false },
    });
  });

  it("a token refused for its claims keeps its claims' reason and gives no principal", async () => {
    const k = await pair("k1");
    const v = verifier(issuer([k]).fetchFn, at({ s: T0 }));
    expect(await v.authenticate(bearer(await jwt(k, { iat: T0 - 600, exp: T0 - 300 })))).toEqual(invalidToken("the token has expired"));
    expect(await v.authenticate(bearer(await jwt(k, { claims: { nbf: T0 + 3600 } })))).toEqual(invalidToken("the token is not valid yet"));
  });
});

describe("the token's form and algorithm, judged before any key is fetched", () => {
  it("not three parts, or a header that does not decode, is not_jws; a five-part token (JWE-shaped) with a good header too", async () => {
    const { fetchFn, state } = issuer([]);
    const v = verifier(fetchFn, at({ s: T0 }));
    const header = b64({ alg: "ES256", kid: "k1" });
    for (const t of ["abc", `${header}.e30`, "a.b.c", `${b64("not json")}.e30.sig`, `${header}.a.b.c.d`]) {
      expect(await v.authenticate(bearer(t)), t).toEqual(invalidToken("the token is not a signed JWT"));
    }
    expect(state.fetches).toEqual([]);
  });

  it("an alg that is not a string, a symmetric one or none is refused as alg, with no fetch", async () => {
    const { fetchFn, state } = issuer([]);
    const v = verifier(fetchFn, at({ s: T0 }));
    const body = b64({ sub: "alice", iss: ISSUER, aud: AUDIENCE, exp: T0 + 300 });
    for (const alg of [["ES256"], { name: "ES256" }, 256, "HS256", "none"]) {
      const t = `${b64({ alg, kid: "k1" })}.${body}.c2ln`;
      expect(await v.authenticate(bearer(t)), JSON.stringify(alg)).toEqual(invalidToken("the token is signed with an algorithm atrium does not accept"));
    }
    expect(state.fetches).toEqual([]);
  });
});

describe("the signature against the issuer's key set", () => {
  it("a token of the issuer's key is the principal iss + sub with its groups and scopes; /readyz ready once the set is held", async () => {
    const k = await pair("k1");
    const v = verifier(issuer([k]).fetchFn, at({ s: T0 }));
    expect(v.ready()).toBe(false);
    expect(await v.authenticate(bearer(await jwt(k, { claims: { scope: "mcp:read mcp:tools", groups: ["ops", "dev"] } })))).toEqual({
      ok: true,
      principal: tokenPrincipal(ISSUER, "alice", ["ops", "dev"], ["mcp:read", "mcp:tools"]),
    });
    expect(v.ready()).toBe(true);
  });

  it("another key under the issuer's kid: signature (not no_key), and no refetch even past the cooldown", async () => {
    const k = await pair("k1");
    const forger = await pair("forger", "k1");
    const clock = { s: T0 };
    const { fetchFn, jwksFetches } = issuer([k]);
    const v = verifier(fetchFn, at(clock));
    expect((await v.authenticate(bearer(await jwt(k)))).ok).toBe(true);
    clock.s += JWKS_REFETCH_COOLDOWN_MS / 1000 + 1;
    expect(await v.authenticate(bearer(await jwt(forger)))).toEqual(invalidToken("the token's signature does not verify"));
    expect(jwksFetches()).toBe(1);
  });

  it("a valid token past the cooldown makes no refetch (only an unknown kid does)", async () => {
    const k = await pair("k1");
    const clock = { s: T0 };
    const { fetchFn, jwksFetches } = issuer([k]);
    const v = verifier(fetchFn, at(clock));
    expect((await v.authenticate(bearer(await jwt(k)))).ok).toBe(true);
    clock.s += JWKS_REFETCH_COOLDOWN_MS / 1000 + 1;
    expect((await v.authenticate(bearer(await jwt(k)))).ok).toBe(true);
    expect(jwksFetches()).toBe(1);
  });

  it("an unknown kid: no_key; past the cooldown one refetch, and the rotated-in key then verifies", async () => {
    const k1 = await pair("k1");
    const k2 = await pair("k2");
    const clock = { s: T0 };
    const { fetchFn, state, jwksFetches } = issuer([k1]);
    const v = verifier(fetchFn, at(clock));
    expect((await v.authenticate(bearer(await jwt(k1)))).ok).toBe(true);
    expect(await v.authenticate(bearer(await jwt(k2)))).toEqual(invalidToken("no key of the issuer's key set signed this token"));
    expect(jwksFetches()).toBe(1);
    clock.s += JWKS_REFETCH_COOLDOWN_MS / 1000 + 1;
    state.keys = [k1, k2];
    expect(await v.authenticate(bearer(await jwt(k2)))).toEqual({ ok: true, principal: tokenPrincipal(ISSUER, "alice", ["ops"], ["mcp:read"]) });
    expect(jwksFetches()).toBe(2);
  });

  it("a set that went stale while it was fetched again is not used: the token stays no_key", async () => {
    const k1 = await pair("k1");
    const k2 = await pair("k2");
    const clock = { s: T0 };
    let calls = 0;
    const iss = issuer([k1], {
      onJwks: () => {
        if (++calls < 2) return;
        // the refetch hangs until the held set is past JWKS_STALE_MAX_MS, then fails
        clock.s = T0 + JWKS_STALE_MAX_MS / 1000 + 1;
        iss.state.down = true;
      },
    });
    const v = verifier(iss.fetchFn, at(clock));
    expect((await v.authenticate(bearer(await jwt(k1)))).ok).toBe(true);
    clock.s += JWKS_REFETCH_COOLDOWN_MS / 1000 + 1;
    expect(await v.authenticate(bearer(await jwt(k2, { exp: T0 + JWKS_STALE_MAX_MS / 1000 + 600 })))).toEqual(invalidToken("no key of the issuer's key set signed this token"));
    expect(calls).toBe(2);
  });

  it("several keys under one kid are tried in turn: the issuer's key verifies after a wrong one; none verifying is signature", async () => {
    const k = await pair("k1");
    const wrong = await pair("wrong", "k1");
    const other = await pair("other", "k1");
    const v = verifier(issuer([wrong, k]).fetchFn, at({ s: T0 }));
    expect(await v.authenticate(bearer(await jwt(k)))).toEqual({ ok: true, principal: tokenPrincipal(ISSUER, "alice", ["ops"], ["mcp:read"]) });
    const w = verifier(issuer([wrong, other]).fetchFn, at({ s: T0 }));
    expect(await w.authenticate(bearer(await jwt(k)))).toEqual(invalidToken("the token's signature does not verify"));
  });
});

describe("the payload and the clock", () => {
  it("a payload that is not JSON, not an object, or not valid UTF-8 is claims (malformed)", async () => {
    const k = await pair("k1");
    const v = verifier(issuer([k]).fetchFn, at({ s: T0 }));
    const good = { sub: "alice", iss: ISSUER, aud: AUDIENCE, exp: T0 + 300 };
    const json = JSON.stringify({ ...good, sub: "al_ice" });
    const bad = Buffer.from(json);
    bad[json.indexOf("_")] = 0xff; // "al\xffice": not UTF-8, but JSON once decoded leniently
    for (const bytes of [Buffer.from("hello"), Buffer.from("[1]"), bad]) {
      expect(await v.authenticate(bearer(await signedBytes(k, bytes))), bytes.toString("latin1")).toEqual(invalidToken("the token's claims are malformed"));
    }
    expect(await v.authenticate(bearer(await signedBytes(k, Buffer.from(JSON.stringify(good)))))).toEqual({ ok: true, principal: tokenPrincipal(ISSUER, "alice", [], []) });
  });

  it("the clock given is the one used, in whole seconds (floored): expired only from exp + skew", async () => {
    const k = await pair("k1");
    let ms = T0 * 1000;
    const v = verifier(issuer([k]).fetchFn, () => ms);
    const token = await jwt(k, { iat: T0 - 600, exp: T0 + 10 });
    ms = (T0 + 10 + TOKEN_CLOCK_SKEW_S) * 1000 - 1; // floored: one second before expiry
    expect((await v.authenticate(bearer(token))).ok).toBe(true);
    ms = (T0 + 10 + TOKEN_CLOCK_SKEW_S) * 1000;
    expect(await v.authenticate(bearer(token))).toEqual(invalidToken("the token has expired"));
  });

  it("with no clock given, Date.now judges the token", async () => {
    const k = await pair("k1");
    const v = verifier(issuer([k]).fetchFn, undefined);
    const nowS = Math.floor(Date.now() / 1000);
    expect((await v.authenticate(bearer(await jwt(k, { iat: nowS, exp: nowS + 3600 })))).ok).toBe(true);
    expect(await v.authenticate(bearer(await jwt(k)))).toEqual(invalidToken("the token has expired"));
  });
});

describe("RFC 9728: protected resource metadata", () => {
  it("a resource at the root: metadata at the bare well-known path, in the challenge and served; no scopes_supported without required scopes", async () => {
    const v = verifier(issuer([]).fetchFn, at({ s: T0 }), { resource: "https://atrium.example/" });
    expect(refusal(await v.authenticate(undefined)).headers["www-authenticate"]).toBe('Bearer resource_metadata="https://atrium.example/.well-known/oauth-protected-resource"');
    const doc = { resource: "https://atrium.example/", authorization_servers: [ISSUER], bearer_methods_supported: ["header"], resource_name: "atrium" };
    expect(v.documentAt("/.well-known/oauth-protected-resource")).toStrictEqual(doc);
    expect(v.documentAt("/.well-known/oauth-protected-resource/mcp")).toBeUndefined();
    expect(v.documentAt("/mcp")).toBeUndefined();
  });

  it("a resource under a path: metadata at the well-known path plus that path, and at the bare one; scopes_supported lists the required scopes", async () => {
    const v = verifier(issuer([]).fetchFn, at({ s: T0 }), { resource: "https://atrium.example:8443/team/mcp", requiredScopes: ["mcp:read", "mcp:tools"] });
    expect(refusal(await v.authenticate(undefined)).headers["www-authenticate"]).toBe('Bearer resource_metadata="https://atrium.example:8443/.well-known/oauth-protected-resource/team/mcp"');
    const doc = { resource: "https://atrium.example:8443/team/mcp", authorization_servers: [ISSUER], bearer_methods_supported: ["header"], scopes_supported: ["mcp:read", "mcp:tools"], resource_name: "atrium" };
    expect(v.documentAt("/.well-known/oauth-protected-resource/team/mcp")).toStrictEqual(doc);
    expect(v.documentAt("/.well-known/oauth-protected-resource")).toStrictEqual(doc);
    expect(v.documentAt("/.well-known/oauth-protected-resource/team")).toBeUndefined();
    expect(v.documentAt("/team/mcp")).toBeUndefined();
  });
});
