// Inbound tokens in team mode (spec/inbound-tokens.md): whether a JWS alg is verified (T4), and
// whether a request's bearer token is accepted or which refusal it gets (T1–T3, T5–T14), the
// first failing check deciding. Fails closed: facts out of range refuse the token.
import { BearerCredentials, ClaimMatch, InboundToken, ScopeMatch, TokenAlg, TokenClaims, TokenForm, TokenKeys, TokenReason, TokenSignature } from "./generated/spec";

/** Packs an answer: answer | reason << 4. */
function pack(answer: i32, reason: i32): i32 {
  return answer | (reason << 4);
}

/** T4: RSA, RSA-PSS, ECDSA and EdDSA as RFC 7518 and RFC 8037 spell them; nothing else. */
export function tokenAlg(alg: string): i32 {
  if (alg == "RS256" || alg == "RS384" || alg == "RS512") return TokenAlg.allowed;
  if (alg == "PS256" || alg == "PS384" || alg == "PS512") return TokenAlg.allowed;
  if (alg == "ES256" || alg == "ES384" || alg == "ES512") return TokenAlg.allowed;
  if (alg == "EdDSA") return TokenAlg.allowed;
  return TokenAlg.refused;
}

function outOfRange(credentials: i32, form: i32, alg: i32, keys: i32, signature: i32, claims: i32, issuer: i32, audience: i32, scopes: i32): bool {
  return credentials < BearerCredentials.absent || credentials > BearerCredentials.bearer
    || form < TokenForm.jws || form > TokenForm.not_jws
    || alg < TokenAlg.allowed || alg > TokenAlg.refused
    || keys < TokenKeys.known || keys > TokenKeys.unavailable
    || signature < TokenSignature.valid || signature > TokenSignature.no_key
    || claims < TokenClaims.wellformed || claims > TokenClaims.malformed
    || issuer < ClaimMatch.match || issuer > ClaimMatch.mismatch
    || audience < ClaimMatch.match || audience > ClaimMatch.mismatch
    || scopes < ScopeMatch.all || scopes > ScopeMatch.missing;
}

/** T1–T3, T5–T14: the answer and its reason, packed (see pack). */
export function inboundToken(credentials: i32, form: i32, alg: i32, keys: i32, signature: i32, claims: i32, issuer: i32, audience: i32, nowS: f64, expS: f64, nbfS: f64, skewS: f64, scopes: i32): i32 {
  if (outOfRange(credentials, form, alg, keys, signature, claims, issuer, audience, scopes) || !isFinite<f64>(nowS) || !isFinite<f64>(expS) || !isFinite<f64>(nbfS) || !isFinite<f64>(skewS) || skewS < 0) {
    return pack(InboundToken.invalid_token, TokenReason.invalid_facts); // T13
  }
  if (credentials == BearerCredentials.absent) return pack(InboundToken.no_credentials, TokenReason.no_header); // T1
  if (credentials == BearerCredentials.other_scheme) return pack(InboundToken.no_credentials, TokenReason.other_scheme); // T1
  if (credentials == BearerCredentials.malformed) return pack(InboundToken.invalid_request, TokenReason.malformed); // T2
  if (credentials == BearerCredentials.oversize) return pack(InboundToken.invalid_token, TokenReason.oversize); // T3
  if (form == TokenForm.not_jws) return pack(InboundToken.invalid_token, TokenReason.not_jws); // T5
  if (alg == TokenAlg.refused) return pack(InboundToken.invalid_token, TokenReason.alg); // T5
  if (keys == TokenKeys.unavailable) return pack(InboundToken.unavailable, TokenReason.keys_unavailable); // T6
  if (signature == TokenSignature.invalid) return pack(InboundToken.invalid_token, TokenReason.signature); // T7
  if (signature == TokenSignature.no_key) return pack(InboundToken.invalid_token, TokenReason.no_key); // T7
  if (claims == TokenClaims.malformed) return pack(InboundToken.invalid_token, TokenReason.claims); // T8
  if (issuer == ClaimMatch.mismatch) return pack(InboundToken.invalid_token, TokenReason.issuer); // T9
  if (audience == ClaimMatch.mismatch) return pack(InboundToken.invalid_token, TokenReason.audience); // T9
  if (nowS >= expS + skewS) return pack(InboundToken.invalid_token, TokenReason.expired); // T10
  if (nbfS > nowS + skewS) return pack(InboundToken.invalid_token, TokenReason.not_yet_valid); // T10
  if (scopes == ScopeMatch.missing) return pack(InboundToken.insufficient_scope, TokenReason.scope); // T11
  return pack(InboundToken.accept, TokenReason.none); // T12
}
