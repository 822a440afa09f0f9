// Logins of remote connectors (spec/oauth.md, O1–O13). Fails closed: facts out of range answer
// invalid_facts, which the glue treats as the answer that grants nothing.
import { AuthChallenge, CallbackPlace, ClientAuth, OAuthGrant, OAuthGrantType, ForbiddenError, OAuthForbidden, ScopeGrowth, OAuthTeamRedirect, ConnectorCredentials, ConnectorTransport, ElicitationSupport, IssuerMatch, OAuthAuthorizationUrl, OAuthChannel, OAuthIssuer, OAuthMetadataLocation, OAuthTokenIssuer, OAuthOffer, OAuthRedirect, OAuthRefresh, OAuthResource, OAuthUnauthorized, OriginMatch, PathMatch, RedirectHost, RedirectScheme, ResourceMetadata, Revision, TokenExpiry, TokenIssuerMatch, UrlPart } from "./generated/spec";

function isPart(v: i32): bool {
  return v >= UrlPart.absent && v <= UrlPart.present;
}

/** O1–O3: whether a login may send its code to a redirect URI with these facts. */
export function oauthRedirect(scheme: i32, host: i32, userinfo: i32, fragment: i32): i32 {
  if (scheme < RedirectScheme.http || scheme > RedirectScheme.unparsable || host < RedirectHost.ipv4_loopback || host > RedirectHost.other || !isPart(userinfo) || !isPart(fragment)) return OAuthRedirect.invalid_facts; // O3
  if (scheme == RedirectScheme.unparsable) return OAuthRedirect.not_url; // O2
  if (scheme != RedirectScheme.http) return OAuthRedirect.not_http; // O2
  if (host == RedirectHost.other) return OAuthRedirect.not_loopback; // O2
  if (userinfo == UrlPart.present || fragment == UrlPart.present) return OAuthRedirect.credentials_or_fragment; // O2
  return OAuthRedirect.accepted; // O1
}

/** O13: whether a team-mode login may send its code to a redirect URI with these facts (atrium's own callback, over TLS or on loopback). */
export function oauthTeamRedirect(scheme: i32, host: i32, userinfo: i32, fragment: i32, place: i32): i32 {
  if (scheme < RedirectScheme.http || scheme > RedirectScheme.unparsable || host < RedirectHost.ipv4_loopback || host > RedirectHost.other || !isPart(userinfo) || !isPart(fragment) || place < CallbackPlace.own_callback || place > CallbackPlace.other) return OAuthTeamRedirect.invalid_facts;
  if (scheme == RedirectScheme.unparsable) return OAuthTeamRedirect.not_url;
  if (place != CallbackPlace.own_callback) return OAuthTeamRedirect.not_own_callback;
  if (userinfo == UrlPart.present || fragment == UrlPart.present) return OAuthTeamRedirect.credentials_or_fragment;
  if (scheme == RedirectScheme.https) return OAuthTeamRedirect.accepted;
  if (scheme == RedirectScheme.http && host != RedirectHost.other) return OAuthTeamRedirect.accepted;
  return OAuthTeamRedirect.not_https;
}

/** O4: whether atrium logs in to a connector of this transport and these credentials. */
export function oauthOffer(transport: i32, credentials: i32): i32 {
  if (transport < ConnectorTransport.stdio || transport > ConnectorTransport.http || credentials < ConnectorCredentials.none || credentials > ConnectorCredentials.static_header) return OAuthOffer.invalid_facts; // O10
  if (transport != ConnectorTransport.http) return OAuthOffer.not_remote;
  if (credentials == ConnectorCredentials.static_header) return OAuthOffer.static_credentials;
  return OAuthOffer.offered;
}

/** O5: what an HTTP 401 of a connector means. */
export function oauthUnauthorized(credentials: i32, prm: i32, challenge: i32): i32 {
  if (credentials < ConnectorCredentials.none || credentials > ConnectorCredentials.static_header || prm < ResourceMetadata.not_found || prm > ResourceMetadata.found || challenge < AuthChallenge.other || challenge > AuthChallenge.bearer) return OAuthUnauthorized.invalid_facts; // O10
  if (credentials == ConnectorCredentials.static_header) return OAuthUnauthorized.credentials_refused;
  if (prm == ResourceMetadata.found) return OAuthUnauthorized.needs_login;
  if (challenge == AuthChallenge.bearer) return OAuthUnauthorized.needs_login; // a 2025-03-26 server: its login is at the server's own origin
  return OAuthUnauthorized.no_login_offered;
}

/** O6: how authorize_connector reaches the person. */
export function oauthChannel(revision: i32, elicitation: i32): i32 {
  if (revision < Revision.r2025_11_25 || revision > Revision.r2026_07_28 || elicitation < ElicitationSupport.none || elicitation > ElicitationSupport.form_and_url) return OAuthChannel.invalid_facts; // O10
  if (revision == Revision.r2025_11_25 && (elicitation == ElicitationSupport.url_only || elicitation == ElicitationSupport.form_and_url)) return OAuthChannel.url_elicitation;
  return OAuthChannel.answer_url;
}

/** O7: whether protected resource metadata names this server. */
export function oauthResource(prm: i32, origin: i32, path: i32): i32 {
  if (prm < ResourceMetadata.not_found || prm > ResourceMetadata.found || origin < OriginMatch.same || origin > OriginMatch.unparsable || path < PathMatch.covers || path > PathMatch.other) return OAuthResource.invalid_facts; // O10
  if (prm == ResourceMetadata.not_found) return OAuthResource.no_indicator;
  if (origin == OriginMatch.unparsable) return OAuthResource.refused_unparsable;
  if (origin != OriginMatch.same) return OAuthResource.refused_origin;
  if (path != PathMatch.covers) return OAuthResource.refused_path;
  return OAuthResource.accepted;
}

/** O8: whether authorization server metadata names the server it was fetched for. */
export function oauthIssuer(match: i32): i32 {
  if (match < IssuerMatch.no_metadata || match > IssuerMatch.other) return OAuthIssuer.invalid_facts; // O10
  if (match == IssuerMatch.other) return OAuthIssuer.refused;
  return OAuthIssuer.accepted;
}

/** O8: whether the stored tokens are bound to the issuer they are judged for (discovery's now, or the one logout would revoke at). */
export function oauthTokenIssuer(match: i32): i32 {
  if (match < TokenIssuerMatch.no_tokens || match > TokenIssuerMatch.unrecorded) return OAuthTokenIssuer.invalid_facts; // O10
  if (match == TokenIssuerMatch.no_tokens || match == TokenIssuerMatch.same) return OAuthTokenIssuer.bound;
  return OAuthTokenIssuer.new_login;
}

/** O11: whether an authorization URL may be shown to the person or a host: https:, or http: on loopback. */
export function oauthAuthorizationUrl(scheme: i32, host: i32): i32 {
  if (scheme < RedirectScheme.http || scheme > RedirectScheme.unparsable || host < RedirectHost.ipv4_loopback || host > RedirectHost.other) return OAuthAuthorizationUrl.invalid_facts; // O10
  if (scheme == RedirectScheme.unparsable) return OAuthAuthorizationUrl.not_url;
  if (scheme == RedirectScheme.https) return OAuthAuthorizationUrl.accepted;
  if (scheme != RedirectScheme.http) return OAuthAuthorizationUrl.refused_scheme;
  if (host == RedirectHost.other) return OAuthAuthorizationUrl.not_loopback;
  return OAuthAuthorizationUrl.accepted;
}

/** O12: whether the protected resource metadata URL a 401 names is fetched (only at the server's own origin). */
export function oauthMetadataLocation(origin: i32): i32 {
  if (origin < OriginMatch.same || origin > OriginMatch.unparsable) return OAuthMetadataLocation.invalid_facts; // O10
  if (origin == OriginMatch.same) return OAuthMetadataLocation.fetch_named;
  return OAuthMetadataLocation.well_known_only;
}

/** O9: whether a stored access token is refreshed before it is sent. */
export function oauthRefresh(refreshToken: i32, expiry: i32, remainingMs: f64, leadMs: f64): i32 {
  if (!isPart(refreshToken) || expiry < TokenExpiry.unknown || expiry > TokenExpiry.known || !isFinite<f64>(remainingMs) || !isFinite<f64>(leadMs) || Math.floor(leadMs) != leadMs || leadMs < 0) return OAuthRefresh.invalid_facts; // O10
  if (refreshToken == UrlPart.present && expiry == TokenExpiry.known && remainingMs < leadMs) return OAuthRefresh.refresh_first;
  return OAuthRefresh.send_stored;
}

function isCount(v: f64): bool {
  return isFinite<f64>(v) && Math.floor(v) == v && v >= 0;
}

/** O14: what an HTTP 403 of a connector atrium logs in to means: a step-up login for a wider scope, or the refusal stands. */
export function oauthForbidden(forbidden: i32, growth: i32, scopeChars: f64, maxChars: f64): i32 {
  if (forbidden < ForbiddenError.other || forbidden > ForbiddenError.insufficient_scope || growth < ScopeGrowth.none || growth > ScopeGrowth.wider || !isCount(scopeChars) || !isCount(maxChars)) return OAuthForbidden.invalid_facts;
  if (forbidden != ForbiddenError.insufficient_scope) return OAuthForbidden.not_scope;
  if (growth != ScopeGrowth.wider) return OAuthForbidden.no_wider_scope;
  if (scopeChars > maxChars) return OAuthForbidden.scope_too_long;
  return OAuthForbidden.step_up;
}

/** O15: whether a person logs in, or atrium gets tokens itself with the operator's client credentials (and how the client authenticates). */
export function oauthGrant(grant: i32, clientAuth: i32): i32 {
  if (grant < OAuthGrantType.authorization_code || grant > OAuthGrantType.client_credentials || clientAuth < ClientAuth.none || clientAuth > ClientAuth.private_key_jwt) return OAuthGrant.invalid_facts;
  if (grant == OAuthGrantType.authorization_code) return OAuthGrant.person_login;
  if (clientAuth == ClientAuth.secret) return OAuthGrant.client_secret;
  if (clientAuth == ClientAuth.private_key_jwt) return OAuthGrant.private_key_jwt;
  return OAuthGrant.no_client_auth;
}
