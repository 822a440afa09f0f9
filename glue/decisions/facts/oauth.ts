// Reduces what a remote connector's login looks like to the facts of spec/oauth.md: a redirect
// URI's parts (O1–O3), the connector's transport and credentials (O4–O5), whether protected
// resource metadata was found (O5, O7), the metadata's `resource` against the server URL (O7),
// the authorization server metadata's `issuer` against the URL it came from (O8), a stored
// token's expiry (O9), the issuer stamped on stored tokens (O8), an authorization URL (O11), the
// origin of a named resource metadata URL (O12). The host's elicitation fact (O6) is approvals' `elicitationOf`. Shapes
// only; the core decides what they mean.
import { AuthChallenge, CallbackPlace, ClientAuth, OAuthGrantType, ForbiddenError, ScopeGrowth, ConnectorCredentials, ConnectorTransport, IssuerMatch, OriginMatch, TokenIssuerMatch, PathMatch, RedirectHost, RedirectScheme, ResourceMetadata, TokenExpiry, UrlPart } from "../generated/spec.js";

const LOOPBACK: Readonly<Record<string, RedirectHost>> = { "127.0.0.1": RedirectHost.ipv4_loopback, "[::1]": RedirectHost.ipv6_loopback, localhost: RedirectHost.localhost };

const parse = (text: unknown): URL | undefined => {
  if (typeof text !== "string") return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
};
const part = (present: boolean): UrlPart => (present ? UrlPart.present : UrlPart.absent);

/** O1–O3: a redirect URI's scheme, host kind, and whether it carries userinfo or a (non-empty) fragment. */
export function redirectFacts(uri: unknown): { scheme: RedirectScheme; host: RedirectHost; userinfo: UrlPart; fragment: UrlPart } {
  const u = parse(uri);
  if (!u) return { scheme: RedirectScheme.unparsable, host: RedirectHost.other, userinfo: UrlPart.absent, fragment: UrlPart.absent };
  const scheme = u.protocol === "http:" ? RedirectScheme.http : u.protocol === "https:" ? RedirectScheme.https : RedirectScheme.other;
  const host = Object.hasOwn(LOOPBACK, u.hostname) ? LOOPBACK[u.hostname] : RedirectHost.other;
  return { scheme, host, userinfo: part(u.username !== "" || u.password !== ""), fragment: part(u.hash !== "") };
}

/** O13: a team-mode redirect URI's facts: O1's, and whether its origin and path are exactly those of atrium's own callback URL. */
export function teamRedirectFacts(uri: unknown, callbackUrl: string): { scheme: RedirectScheme; host: RedirectHost; userinfo: UrlPart; fragment: UrlPart; place: CallbackPlace } {
  const u = parse(uri);
  const own = parse(callbackUrl);
  const place = u && own && u.origin === own.origin && u.pathname === own.pathname ? CallbackPlace.own_callback : CallbackPlace.other;
  return { ...redirectFacts(uri), place };
}

/** O4–O5: a connector's transport, and whether its configured headers set `Authorization` (in any case). */
export function connectorFacts(config: { kind: string; headers?: Record<string, string> }): { transport: ConnectorTransport; credentials: ConnectorCredentials } {
  const transport = config.kind === "http" ? ConnectorTransport.http : ConnectorTransport.stdio;
  const header = Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === "authorization");
  return { transport, credentials: header ? ConnectorCredentials.static_header : ConnectorCredentials.none };
}

/**
 * O5: whether a 401's `WWW-Authenticate` holds a challenge of the Bearer scheme (RFC 6750 §3): the
 * scheme token, in any case, at the start of the header or after a comma, followed by a space, a
 * comma or the end (a quoted parameter naming "Bearer" after another scheme's `realm=` is not one).
 */
export function challengeOf(header: string | null): AuthChallenge {
  if (header === null) return AuthChallenge.other;
  return /(?:^|,)\s*bearer(?=[\s,]|$)/i.test(header) ? AuthChallenge.bearer : AuthChallenge.other;
}

/** O5, O7: whether protected resource metadata was found. */
export const prmOf = (metadata: unknown): ResourceMetadata => (metadata === undefined || metadata === null ? ResourceMetadata.not_found : ResourceMetadata.found);

/** A path compared as a directory: with one trailing `/`. */
const asDir = (path: string) => (path.endsWith("/") ? path : `${path}/`);

/**
 * O7: protected resource metadata's `resource` against the server URL (its fragment dropped):
 * whether metadata was found (its `resource` is required, so undefined means none), the origins compared, and whether the server's path lies at or under the
 * resource's (each with a trailing `/`; the resource's path no longer than the server's).
 */
export function resourceFacts(serverUrl: string | URL, resource: unknown): { prm: ResourceMetadata; origin: OriginMatch; path: PathMatch } {
  const server = new URL(serverUrl);
  server.hash = "";
  const r = parse(resource);
  const prm = prmOf(resource);
  if (!r) return { prm, origin: OriginMatch.unparsable, path: PathMatch.other };
  const covers = server.pathname.length >= r.pathname.length && asDir(server.pathname).startsWith(asDir(r.pathname));
  return { prm, origin: r.origin === server.origin ? OriginMatch.same : OriginMatch.other, path: covers ? PathMatch.covers : PathMatch.other };
}

/** O8: authorization server metadata's `issuer` against the URL it was fetched for (no metadata: `no_metadata`). */
export function issuerMatchOf(fetchedFor: string, metadata: { issuer?: unknown } | undefined): IssuerMatch {
  if (metadata === undefined) return IssuerMatch.no_metadata;
  const issuer = metadata.issuer;
  if (issuer === fetchedFor) return IssuerMatch.exact;
  if (fetchedFor.endsWith("/") && issuer === fetchedFor.slice(0, -1)) return IssuerMatch.slash_trimmed;
  return IssuerMatch.other;
}

/** O8: the issuer stamped on stored tokens against the issuer they are judged for (the same up to one trailing `/`). */
export function tokenIssuerMatchOf(tokens: { issuer?: unknown } | undefined, issuer: string): TokenIssuerMatch {
  if (!tokens) return TokenIssuerMatch.no_tokens;
  const stamped = tokens.issuer;
  if (typeof stamped !== "string") return TokenIssuerMatch.unrecorded;
  const trim = (s: string) => (s.endsWith("/") ? s.slice(0, -1) : s);
  return trim(stamped) === trim(issuer) ? TokenIssuerMatch.same : TokenIssuerMatch.other;
}

/** O11: an authorization URL's scheme and host, read as a redirect URI's are. */
export function authorizationUrlFacts(url: unknown): { scheme: RedirectScheme; host: RedirectHost } {
  const { scheme, host } = redirectFacts(url);
  return { scheme, host };
}

/** O12: the origin of the resource metadata URL a 401 names against the server URL's. */
export function metadataOriginOf(serverUrl: string | URL, named: unknown): OriginMatch {
  const u = named instanceof URL ? named : parse(named);
  if (!u) return OriginMatch.unparsable;
  return u.origin === new URL(serverUrl).origin ? OriginMatch.same : OriginMatch.other;
}

/** O9: a stored token's facts at `now`: a refresh token held, its expiry known, the time left (0 when unknown). */
export function refreshFacts(record: { tokens?: { refresh_token?: string }; expiresAt?: number } | undefined, now: number, leadMs: number): { refreshToken: UrlPart; expiry: TokenExpiry; remainingMs: number; leadMs: number } {
  const expiresAt = record?.expiresAt;
  const known = typeof expiresAt === "number";
  return { refreshToken: part(Boolean(record?.tokens?.refresh_token)), expiry: known ? TokenExpiry.known : TokenExpiry.unknown, remainingMs: known ? expiresAt - now : 0, leadMs };
}

/** One auth-param of a WWW-Authenticate header (RFC 7235 §2.1): a quoted string (its escapes undone) or a token; undefined when absent. */
function authParam(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  const m = new RegExp(`(?:^|[\\s,])${name}\\s*=\\s*(?:"(?<quoted>(?:[^"\\\\]|\\\\.)*)"|(?<token>[^\\s,]+))`, "i").exec(header);
  if (!m?.groups) return undefined;
  return m.groups.quoted !== undefined ? m.groups.quoted.replace(/\\(.)/g, "$1") : m.groups.token;
}

const scopeSet = (scope: string | undefined): string[] => [...new Set((scope ?? "").split(/\s+/).filter(Boolean))];

/**
 * O14: a 403's WWW-Authenticate against the stored tokens' scope: whether it says
 * insufficient_scope, whether the scopes it names add one the tokens lack, and the scope a
 * step-up login would ask for (the tokens' scopes, then the named ones, each once) and its length.
 */
export function forbiddenFacts(header: string | null, granted: string | undefined): { forbidden: ForbiddenError; growth: ScopeGrowth; scope: string; scopeChars: number } {
  const forbidden = authParam(header, "error") === "insufficient_scope" ? ForbiddenError.insufficient_scope : ForbiddenError.other;
  const have = scopeSet(granted);
  const named = scopeSet(authParam(header, "scope"));
  const added = named.filter((s) => !have.includes(s));
  const growth = named.length === 0 ? ScopeGrowth.none : added.length === 0 ? ScopeGrowth.covered : ScopeGrowth.wider;
  const scope = [...have, ...added].join(" ");
  return { forbidden, growth, scope, scopeChars: scope.length };
}

/** O15: a connector's `oauth` block as the grant it names and how its client authenticates (a private key file first, then a secret). */
export function grantFacts(oauth: { grant?: unknown; clientSecret?: unknown; privateKeyFile?: unknown } | null | undefined): { grant: OAuthGrantType; clientAuth: ClientAuth } {
  const grant = oauth?.grant === "client_credentials" ? OAuthGrantType.client_credentials : OAuthGrantType.authorization_code;
  const set = (v: unknown) => typeof v === "string" && v !== "";
  const clientAuth = set(oauth?.privateKeyFile) ? ClientAuth.private_key_jwt : set(oauth?.clientSecret) ? ClientAuth.secret : ClientAuth.none;
  return { grant, clientAuth };
}
