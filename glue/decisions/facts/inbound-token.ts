// Observations turned into the inbound-token family's facts (spec/inbound-tokens.md): what a
// request's Authorization header holds (T1–T3), judged before anything is decoded, and what a
// verified token's claims say against atrium.http.auth (T8–T11).
import { BearerCredentials, ClaimMatch, ScopeMatch, TokenClaims, TOKEN_GROUP_CHARS_MAX, TOKEN_GROUPS_MAX } from "../generated/spec.js";

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** T1–T3's fact for an Authorization header as received; `maxBytes` is bearer_token_bytes. The token, when it is one. */
export function credentialsOf(header: string | undefined, maxBytes: number): { credentials: BearerCredentials; token?: string } {
  if (header === undefined || header.trim() === "") return { credentials: BearerCredentials.absent };
  const space = header.indexOf(" ");
  const scheme = space === -1 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== "bearer") return { credentials: BearerCredentials.other_scheme };
  const rest = space === -1 ? "" : header.slice(space + 1);
  // Bounded before it is looked at: a token past bearer_token_bytes is not scanned further.
  if (Buffer.byteLength(rest, "latin1") > maxBytes) return { credentials: BearerCredentials.oversize };
  if (!B64TOKEN.test(rest)) return { credentials: BearerCredentials.malformed };
  return { credentials: BearerCredentials.bearer, token: rest };
}

/** What the token must say, from atrium.http.auth. */
export interface TokenExpectation { issuer: string; audience: string; requiredScopes: readonly string[]; groupsClaim: string }

/** T8–T11's facts of a verified token's payload, and what a principal is built from when they pass. */
export interface ClaimFacts { claims: TokenClaims; issuer: ClaimMatch; audience: ClaimMatch; scopes: ScopeMatch; expS: number; nbfS: number; subject: string; groups: string[]; tokenScopes: string[] }

/** T8–T11's facts at their failing values: a token whose claims were never reached (or are malformed), so only the first failing check decides. */
export const FAILING_CLAIMS = { claims: TokenClaims.malformed, issuer: ClaimMatch.mismatch, audience: ClaimMatch.mismatch, scopes: ScopeMatch.missing, expS: 0, nbfS: 0 } as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const optionalNumber = (v: unknown) => v === undefined || (typeof v === "number" && Number.isFinite(v));

/** A groups claim within TOKEN_GROUPS_MAX entries of at most TOKEN_GROUP_CHARS_MAX characters, or undefined when it is not one. */
function groupsOf(v: unknown): string[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > TOKEN_GROUPS_MAX) return undefined;
  return v.every((g) => typeof g === "string" && g.length <= TOKEN_GROUP_CHARS_MAX) ? (v as string[]) : undefined;
}

/** The claims of `payload` (the JWS payload parsed as JSON) against what atrium.http.auth expects. */
export function claimFactsOf(payload: unknown, want: TokenExpectation): ClaimFacts {
  const failing: ClaimFacts = { ...FAILING_CLAIMS, subject: "", groups: [], tokenScopes: [] };
  if (!isObject(payload)) return failing;
  const { sub, exp, nbf, iat, scope, iss, aud } = payload;
  const groups = groupsOf(payload[want.groupsClaim]);
  const wellformed = typeof sub === "string" && sub !== "" && typeof exp === "number" && Number.isFinite(exp) && optionalNumber(nbf) && optionalNumber(iat)
    && (scope === undefined || typeof scope === "string") && groups !== undefined;
  if (!wellformed) return failing;
  const tokenScopes = typeof scope === "string" ? scope.split(" ").filter((s) => s !== "") : [];
  const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === "string") : [];
  return {
    claims: TokenClaims.wellformed,
    issuer: iss === want.issuer ? ClaimMatch.match : ClaimMatch.mismatch,
    audience: audiences.includes(want.audience) ? ClaimMatch.match : ClaimMatch.mismatch,
    scopes: want.requiredScopes.every((s) => tokenScopes.includes(s)) ? ScopeMatch.all : ScopeMatch.missing,
    expS: exp,
    nbfS: typeof nbf === "number" ? nbf : 0,
    subject: sub,
    groups,
    tokenScopes,
  };
}
