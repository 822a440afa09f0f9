// atrium as an OAuth 2.1 resource server (atrium.http.auth): each request's bearer token observed
// step by step (the header, the JWS header, the signature against the issuer's key set with jose,
// the claims), each observation reduced to a fact, and the core deciding in one call whether the
// request is served and, if not, with which answer (spec/inbound-tokens.md T1–T14). What the glue
// adds is the wire: the RFC 9728 protected resource metadata and the WWW-Authenticate challenge of
// each refusal (RFC 6750 §3), never a token's or a claim's text in it.
import { compactVerify, decodeProtectedHeader, errors, type CompactVerifyResult } from "jose";
import type { Core } from "../decisions/core.js";
import { claimFactsOf, credentialsOf, FAILING_CLAIMS, type TokenExpectation } from "../decisions/facts/inbound-token.js";
import { describeTokenReason } from "../decisions/messages.js";
import { Budget, InboundToken, TokenAlg, TokenForm, TokenKeys, TokenSignature, JWKS_REFETCH_COOLDOWN_MS, TOKEN_CLOCK_SKEW_S, type BearerCredentials } from "../decisions/generated/spec.js";
import { MS_PER_SECOND } from "../support/format.js";
import { HTTP_STATUS, JWS_COMPACT_PARTS } from "../support/wire.js";
import { tokenPrincipal } from "../support/principal.js";
import type { Authentication, Authenticator } from "./authenticator.js";
import { IssuerKeys, type KeySet } from "./issuer-keys.js";
import { WELL_KNOWN_PRM } from "./paths.js";

export interface JwtAuthenticatorOptions {
  /** atrium.http.auth: the issuer, the audience, the required scopes and the groups claim. */
  auth: TokenExpectation;
  /** This atrium's MCP endpoint as people reach it (publicUrl + /mcp, else the listen address): RFC 9728's `resource`. */
  resource: () => string;
  core: Core;
  fetch?: typeof fetch;
  /** The clock, in ms (a fake one in tests). */
  now?: () => number;
  log?: (line: string) => void;
}

/** Each answer's HTTP status (the table in spec/inbound-tokens.md). */
const STATUS: Record<InboundToken, number> = {
  [InboundToken.accept]: HTTP_STATUS.ok,
  [InboundToken.no_credentials]: HTTP_STATUS.unauthorized,
  [InboundToken.invalid_request]: HTTP_STATUS.badRequest,
  [InboundToken.invalid_token]: HTTP_STATUS.unauthorized,
  [InboundToken.insufficient_scope]: HTTP_STATUS.forbidden,
  [InboundToken.unavailable]: HTTP_STATUS.unavailable,
};
/** The RFC 6750 error code each answer carries in WWW-Authenticate (none when no credentials were sent, none for 503). */
const ERROR: Record<InboundToken, string | undefined> = {
  [InboundToken.accept]: undefined,
  [InboundToken.no_credentials]: undefined,
  [InboundToken.invalid_request]: "invalid_request",
  [InboundToken.invalid_token]: "invalid_token",
  [InboundToken.insufficient_scope]: "insufficient_scope",
  [InboundToken.unavailable]: undefined,
};

/** A quoted-string of RFC 9110 §5.6.4 (the values here are atrium's own words and URLs). */
const quoted = (v: string) => `"${v.replace(/["\\]/g, "\\$&")}"`;

/** What a verified signature gave: its facts, and the payload when it verified. */
type Signed = { signature: TokenSignature; payload?: Uint8Array };

/** jose's verdict on `token` with `keys`, `alg` being the only algorithm allowed; a set with several candidate keys is tried key by key. */
async function verify(token: string, keys: KeySet, alg: string): Promise<Signed> {
  const options = { algorithms: [alg] };
  const ok = (r: CompactVerifyResult): Signed => ({ signature: TokenSignature.valid, payload: r.payload });
  try {
    return ok(await compactVerify(token, keys, options));
  } catch (e) {
    if (e instanceof errors.JWKSNoMatchingKey) return { signature: TokenSignature.no_key };
    if (e instanceof errors.JWKSMultipleMatchingKeys) {
      for await (const key of e) {
        try {
          return ok(await compactVerify(token, key, options));
        } catch {
          // the next candidate
        }
      }
    }
    return { signature: TokenSignature.invalid };
  }
}

/** The JWS header of a compact JWS (three parts, a JSON object header), or undefined when the token is not one. */
function jwsHeaderOf(token: string): Record<string, unknown> | undefined {
  if (token.split(".").length !== JWS_COMPACT_PARTS) return undefined;
  try {
    return decodeProtectedHeader(token) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function payloadOf(bytes: Uint8Array | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

export function createJwtAuthenticator(opts: JwtAuthenticatorOptions): Authenticator & { readonly keys: IssuerKeys } {
  const { auth, core } = opts;
  const now = opts.now ?? Date.now;
  const keys = new IssuerKeys({ issuer: auth.issuer, core, fetch: opts.fetch, now, log: opts.log });
  const maxBytes = core.limitDefault(Budget.bearer_token_bytes);

  const metadataUrl = () => {
    const r = new URL(opts.resource());
    return `${r.origin}${WELL_KNOWN_PRM}${r.pathname === "/" ? "" : r.pathname}`;
  };
  const document = () => ({
    resource: opts.resource(),
    authorization_servers: [auth.issuer],
    bearer_methods_supported: ["header"],
    ...(auth.requiredScopes.length > 0 ? { scopes_supported: auth.requiredScopes } : {}),
    resource_name: "atrium",
  });

  /** The facts of one request's Authorization header, observed in T's order: each check is made only when the ones before passed. */
  async function factsOf(header: string | undefined) {
    const seen = credentialsOf(header, maxBytes);
    const base = { credentials: seen.credentials as BearerCredentials, form: TokenForm.not_jws, alg: TokenAlg.refused, keys: TokenKeys.unavailable, signature: TokenSignature.invalid, ...FAILING_CLAIMS, nowS: Math.floor(now() / MS_PER_SECOND), skewS: TOKEN_CLOCK_SKEW_S };
    const token = seen.token;
    const jws = token === undefined ? undefined : jwsHeaderOf(token);
    if (token === undefined || jws === undefined) return { facts: base };
    const algName = typeof jws.alg === "string" ? jws.alg : "";
    const alg = core.tokenAlg(algName);
    if (alg !== TokenAlg.allowed) return { facts: { ...base, form: TokenForm.jws, alg } };
    const set = await keys.keys();
    if (!set) return { facts: { ...base, form: TokenForm.jws, alg } };
    let signed = await verify(token, set, algName);
    // A kid the set lacks may be a key the issuer just rotated in: fetch the set once more (at most once per cooldown).
    if (signed.signature === TokenSignature.no_key && (await keys.refetch())) {
      const again = keys.current();
      if (again) signed = await verify(token, again, algName);
    }
    const at = { ...base, form: TokenForm.jws, alg, keys: TokenKeys.known, signature: signed.signature };
    if (signed.signature !== TokenSignature.valid) return { facts: at };
    const claims = claimFactsOf(payloadOf(signed.payload), auth);
    return { facts: { ...at, claims: claims.claims, issuer: claims.issuer, audience: claims.audience, scopes: claims.scopes, expS: claims.expS, nbfS: claims.nbfS }, claims };
  }

  return {
    keys,
    async authenticate(header): Promise<Authentication> {
      const { facts, claims } = await factsOf(header);
      const d = core.inboundToken(facts);
      if (d.answer === InboundToken.accept && claims) return { ok: true, principal: tokenPrincipal(auth.issuer, claims.subject, claims.groups, claims.tokenScopes) };
      const answer = d.answer === InboundToken.accept ? InboundToken.invalid_token : d.answer;
      const error = ERROR[answer];
      const description = describeTokenReason(d.reason);
      const params = [`resource_metadata=${quoted(metadataUrl())}`];
      if (error) params.push(`error=${quoted(error)}`, `error_description=${quoted(description)}`);
      if (answer === InboundToken.insufficient_scope) params.push(`scope=${quoted(auth.requiredScopes.join(" "))}`);
      const headers: Record<string, string> = { "www-authenticate": `Bearer ${params.join(", ")}` };
      if (answer === InboundToken.unavailable) headers["retry-after"] = String(Math.ceil(JWKS_REFETCH_COOLDOWN_MS / MS_PER_SECOND));
      return { ok: false, status: STATUS[answer], headers, body: { error: error ?? (answer === InboundToken.unavailable ? "unavailable" : "unauthorized"), message: description, retryable: answer === InboundToken.unavailable } };
    },
    documentAt(path) {
      const own = new URL(opts.resource()).pathname;
      return path === WELL_KNOWN_PRM || path === `${WELL_KNOWN_PRM}${own}` ? document() : undefined;
    },
    ready: () => keys.current() !== undefined,
  };
}
