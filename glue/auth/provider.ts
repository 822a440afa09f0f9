// atrium's OAuthClientProvider for one remote connector: what the SDK's auth() and the Streamable
// HTTP transport ask of a client, backed by the token store (store.ts).
//   - background (a connector's start and calls): sends the stored access token, refreshes it
//     first when the core says so (spec/oauth.md O9: it expires within OAUTH_REFRESH_LEAD_MS; and
//     on a 401, through the SDK), and never starts a login or registers a client by itself: where
//     the SDK would, it asks the core what the refusal means (O5) and throws NeedsLogin (the
//     connector turns it into "needs authorization") or RefusedWithoutLogin.
//   - login (flow.ts): the redirect URI is the loopback receiver's, `state` is this login's own
//     (the receiver checks it; the SDK does not), the authorization URL is recorded for the person.
// Client registration in the order the MCP authorization specification prefers, as the SDK
// applies it: a pre-registered client (config `oauth.clientId`), then a Client ID Metadata
// Document (`oauth.clientMetadataUrl`, when the AS supports it), then dynamic registration. A
// registration whose redirect URIs are not loopback is refused (O1–O3). Discovered metadata is
// judged by the core before anything uses it (saveDiscoveryState): the protected resource must be
// this server (O7) and the authorization server's issuer the server it came from (O8); every
// auth() call here and in flow.ts turns the SDK's own issuer check off (AUTH_OPTIONS), so the
// core's is the one that refuses. Tokens are bound to the issuer that issued them (O8): the
// issuer and its revocation endpoint are recorded with the tokens, in the same write, never by
// discovery alone; a background discovery naming another issuer is NeedsLogin (for a machine
// client, O15, a refusal the operator resolves: no person's login helps). The resource
// metadata URL a 401 names is used only at the server's own origin (O12, metadataUrlToUse); in
// the background without stored tokens, discovery stops at the resource metadata (no
// authorization server is asked, no client registered), and a background failure reaches the
// model in atrium's words only (background-failure.ts). The authorization endpoint and URL, and
// the token endpoint, must be https: or http: on loopback (O11).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { auth, createPrivateKeyJwtAuth, discoverOAuthProtectedResourceMetadata, type AddClientAuthentication, extractWWWAuthenticateParams, type AuthProvider, type FetchLike, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens } from "@modelcontextprotocol/client";
import type { HttpConnectorConfig } from "../config/schema.js";
import type { LoginRecords } from "./store.js";
import { NeedsLogin, RefusedWithoutLogin, needsLogin, refusedWithoutLogin } from "./needs-login.js";
import { notLoopback } from "../config/loopback.js";
import type { Receiver } from "./receiver.js";
import { AuthChallenge, OAuthGrant, OAUTH_SCOPE_CHARS_MAX, OAuthForbidden, OAUTH_REFRESH_LEAD_MS, OAUTH_STATE_BYTES, OAuthAuthorizationUrl, OAuthIssuer, OAuthMetadataLocation, OAuthRefresh, OAuthResource, OAuthTokenIssuer, OAuthUnauthorized } from "../decisions/generated/spec.js";
import { core } from "../decisions/core.js";
import { codeName } from "../decisions/code-names.js";
import { authorizationUrlFacts, challengeOf, connectorFacts, forbiddenFacts, grantFacts, issuerMatchOf, metadataOriginOf, prmOf, refreshFacts, resourceFacts, tokenIssuerMatchOf } from "../decisions/facts/oauth.js";
import { oauthForbiddenText, oauthAuthorizationUrlText, oauthIssuerText, oauthMachineTokenIssuerText, oauthResourceText, oauthTokenEndpointText, oauthTokenIssuerText } from "../decisions/messages.js";
import { JudgedRefusal, backgroundFailure, ownJudgement } from "./background-failure.js";
import { HTTP_STATUS } from "../support/wire.js";
import { clampEcho } from "../support/errors.js";
import { escapeShown } from "../support/text/escape.js";

/** The JWS algorithm of a private_key_jwt assertion when the config names none. */
const DEFAULT_SIGNING_ALGORITHM = "RS256";

/** What every auth() call passes: the issuer of discovered metadata is judged by the core (O8, saveDiscoveryState), not twice. */
export const AUTH_OPTIONS = { skipIssuerMetadataValidation: true } as const;

/** A login in progress: where its code comes back, its state, and which redirect URIs it accepts (O1–O3, or O13 in team mode). */
interface LoginMode { redirectUrl: string; state: string; refusal(uri: string): string | undefined; native: boolean }

/** O12: the resource metadata URL a 401 named, kept only when the core says it may be fetched (the server's own origin). */
export function metadataUrlToUse(serverUrl: string | URL, named: URL | undefined): URL | undefined {
  if (!named) return undefined;
  return core().oauthMetadataLocation(metadataOriginOf(serverUrl, named)) === OAuthMetadataLocation.fetch_named ? named : undefined;
}

/** The issuer discovery names: the metadata's `issuer`, else the authorization server URL (as the SDK stamps it). */
const issuerOf = (state: OAuthDiscoveryState | undefined): string | undefined => {
  const issuer = (state?.authorizationServerMetadata as { issuer?: unknown } | undefined)?.issuer;
  return typeof issuer === "string" ? issuer : state?.authorizationServerUrl;
};

/** O11: throws unless the core accepts this authorization URL (or endpoint). */
function judgeAuthorizationUrl(url: string): void {
  const f = authorizationUrlFacts(url);
  const a = core().oauthAuthorizationUrl(f.scheme, f.host);
  if (a !== OAuthAuthorizationUrl.accepted) throw new JudgedRefusal(oauthAuthorizationUrlText[codeName(OAuthAuthorizationUrl, a) ?? "invalid_facts"](url));
}

/** O11: throws unless the core accepts the metadata's token endpoint as it would an authorization URL. */
function judgeTokenEndpoint(url: string): void {
  const f = authorizationUrlFacts(url);
  const a = core().oauthAuthorizationUrl(f.scheme, f.host);
  if (a !== OAuthAuthorizationUrl.accepted) throw new JudgedRefusal(oauthTokenEndpointText[codeName(OAuthAuthorizationUrl, a) ?? "invalid_facts"](url));
}

export class ConnectorOAuth implements OAuthClientProvider {
  /** The URL the person must open, once a login asked for one. */
  authorizationUrl?: URL;
  private verifier = "";
  private discovery?: OAuthDiscoveryState;
  private refreshing?: Promise<void>;
  private login?: LoginMode;
  /** Protected resource metadata a background discovery found (it stops there without stored tokens, O12). */
  private foundResourceMetadata?: unknown;
  /** The scope the login's authorization request asked for (what the tokens cover when the token answer names none, RFC 6749 §5.1). */
  private askedScope?: string;
  /** Whether the last 401 held a Bearer challenge (O5: without resource metadata, a 2025-03-26 server's login). */
  private challenge: AuthChallenge = AuthChallenge.other;

  /** O15: the core's answer on whose tokens these are: a person's login, or the operator's client credentials (`machine`). */
  readonly grant: OAuthGrant;
  /** Whether atrium gets the tokens itself with the client credentials grant (no person, no redirect, in the background too). */
  readonly machine: boolean;
  /** private_key_jwt (O15): signs the client assertion of each token request with the configured key; absent otherwise (the SDK's own client authentication). */
  addClientAuthentication?: AddClientAuthentication;

  constructor(readonly config: HttpConnectorConfig, private readonly store: LoginRecords, readonly fetchFn: FetchLike) {
    const f = grantFacts(config.oauth);
    this.grant = core().oauthGrant(f.grant, f.clientAuth);
    this.machine = this.grant === OAuthGrant.client_secret || this.grant === OAuthGrant.private_key_jwt;
    const o = config.oauth;
    if (this.grant === OAuthGrant.private_key_jwt && o?.clientId && o.privateKeyFile) {
      const [clientId, keyFile, alg] = [o.clientId, o.privateKeyFile, o.signingAlgorithm ?? DEFAULT_SIGNING_ALGORITHM];
      this.addClientAuthentication = async (headers, params, url, metadata) => {
        let privateKey: string;
        try { privateKey = readFileSync(keyFile, "utf8"); } catch (e) { throw new JudgedRefusal(`could not read oauth.privateKeyFile ${JSON.stringify(keyFile)}: ${(e as NodeJS.ErrnoException).code ?? "unreadable"}`); }
        await createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey, alg })(headers, params, url, metadata);
      };
    }
  }

  /** O15: the client credentials grant's token request (the SDK asks it when there is no redirect URL); undefined for a person's login (the code exchange). */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machine) return undefined;
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) params.set("scope", scope);
    return params;
  }

  /** A login's state, made before its receiver starts (the receiver checks it; bindLogin hands it to the SDK). */
  static newState(): string {
    return randomBytes(OAUTH_STATE_BYTES).toString("base64url");
  }

  /** Turns this provider into a login's: the receiver's redirect URI, the state it expects, and its judge of redirect URIs. */
  bindLogin(receiver: Pick<Receiver, "redirectUrl" | "refusal" | "native">, state: string): void {
    this.login = { redirectUrl: receiver.redirectUrl, state, refusal: (uri) => receiver.refusal(uri), native: receiver.native };
    this.authorizationUrl = undefined;
  }

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined; // O15: no person, no redirect: the SDK's non-interactive flow
    // Background mode never redirects (state() throws first); the SDK still reads a value.
    return this.login?.redirectUrl ?? this.config.oauth?.redirectUri ?? "http://127.0.0.1/callback";
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.oauth?.clientMetadataUrl ?? undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    if (this.machine) return { client_name: "atrium", redirect_uris: [], grant_types: ["client_credentials"], token_endpoint_auth_method: this.grant === OAuthGrant.private_key_jwt ? "private_key_jwt" : "client_secret_basic", ...(this.config.oauth?.scope && { scope: this.config.oauth.scope }) } as OAuthClientMetadata;
    return {
      client_name: "atrium",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      // A loopback receiver is a native app's (RFC 8252); atrium's own team callback is a web server's.
      application_type: this.login?.native === false ? "web" : "native",
      ...(this.config.oauth?.scope && { scope: this.config.oauth.scope }),
    } as OAuthClientMetadata;
  }

  /** O5: what a refusal means now: the core's answer on the connector's credentials, whether its protected resource metadata was found, and whether the 401 held a Bearer challenge. */
  private meaning(): OAuthUnauthorized {
    return core().oauthUnauthorized(connectorFacts(this.config).credentials, prmOf(this.discovery?.resourceMetadata ?? this.foundResourceMetadata), this.challenge);
  }

  /** In the background, a login is needed only where the core says so (O5: a server that advertises one). */
  private needLogin(why: string): Error {
    const meaning = this.meaning();
    return meaning === OAuthUnauthorized.needs_login ? new NeedsLogin(why) : new RefusedWithoutLogin(meaning);
  }

  /**
   * What the transport uses: the stored (or refreshed) access token per request, and on a 401 the
   * SDK's auth() (refresh, or the refusal above). A failure where the core does not say a login
   * is needed (O5) is RefusedWithoutLogin, whatever discovery threw on the way.
   */
  forTransport(): AuthProvider {
    return {
      token: async () => (await this.tokens())?.access_token,
      onUnauthorized: async (ctx) => {
        const named = extractWWWAuthenticateParams(ctx.response);
        this.challenge = challengeOf(ctx.response.headers.get("www-authenticate"));
        const resourceMetadataUrl = metadataUrlToUse(this.config.url, named.resourceMetadataUrl);
        if (!this.login && !this.machine && !this.record()?.tokens) {
          // O12: nothing stored to refresh: the resource metadata says whether a login is on offer; the authorization server is not asked.
          // Metadata atrium refused (a byte cap, a deadline) is said as such; only metadata the server lacks is "no login offered".
          this.foundResourceMetadata = await discoverOAuthProtectedResourceMetadata(ctx.serverUrl, { resourceMetadataUrl }, ctx.fetchFn).catch((e: unknown) => {
            const own = ownJudgement(e);
            if (own) throw own;
            return undefined;
          });
          throw this.needLogin("the server asks for a login");
        }
        let result: string;
        try {
          result = await auth(this, { serverUrl: ctx.serverUrl, resourceMetadataUrl, scope: named.scope ?? this.config.oauth?.scope ?? undefined, fetchFn: ctx.fetchFn, ...AUTH_OPTIONS });
        } catch (e) {
          if (needsLogin(e) || refusedWithoutLogin(e)) throw e;
          // Metadata atrium refused (resource O7, issuer O8, a byte cap) was never kept: say what was refused, not "no login offered".
          const own = ownJudgement(e);
          if (own) throw own;
          const meaning = this.meaning();
          throw meaning === OAuthUnauthorized.needs_login ? backgroundFailure(e) : new RefusedWithoutLogin(meaning);
        }
        if (result !== "AUTHORIZED") throw this.needLogin("the server asks for a login");
      },
    };
  }

  /**
   * O14: the transport's fetch, watching the MCP endpoint's 403s. A step-up records the wider
   * scope the next login asks for and is NeedsLogin (the connector settles in needs_auth; no
   * login starts here); a refusal that stands is said in atrium's words; any other 403 passes on.
   */
  watchForbidden(inner: FetchLike): FetchLike {
    if (this.machine) return inner; // O15: the operator's configured scope is all a machine client asks for
    const mcp = new URL(this.config.url).href;
    return async (input, init) => {
      const res = await inner(input, init);
      if (res.status !== HTTP_STATUS.forbidden || new URL(input instanceof Request ? input.url : String(input)).href !== mcp) return res;
      const f = forbiddenFacts(res.headers.get("www-authenticate"), this.record()?.tokens?.scope);
      const answer = core().oauthForbidden({ ...f, maxChars: OAUTH_SCOPE_CHARS_MAX });
      if (answer === OAuthForbidden.not_scope) return res;
      await res.body?.cancel().catch(() => {});
      const text = oauthForbiddenText[codeName(OAuthForbidden, answer) ?? "invalid_facts"](clampEcho(escapeShown(f.scope)));
      if (answer !== OAuthForbidden.step_up) throw new JudgedRefusal(text);
      this.store.update(this.config.id, this.config.url, (r) => ({ ...r, stepUpScope: f.scope }));
      throw new NeedsLogin(text);
    };
  }

  state(): string {
    if (!this.login) throw this.needLogin("no valid token is stored and a refresh was not possible");
    return this.login.state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const o = this.config.oauth;
    if (o?.clientId) return { client_id: o.clientId, ...(o.clientSecret && { client_secret: o.clientSecret }) };
    const client = this.record()?.client;
    // O12: in the background a client is never registered; without one there is nothing to refresh.
    if (!client && !this.login) throw this.needLogin("atrium has no client registration with this server yet");
    return client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    if (!this.login && !this.record()?.client && !this.config.oauth?.clientId) throw this.needLogin("atrium has no client registration with this server yet");
    const uris = (info as { redirect_uris?: unknown }).redirect_uris;
    if (Array.isArray(uris)) {
      const refusal = this.login && !this.login.native ? this.login.refusal : notLoopback;
      for (const u of uris) {
        const bad = refusal(String(u));
        if (bad) throw new Error(`the authorization server registered a redirect URI that is not ${refusal === notLoopback ? "loopback" : "atrium's own callback"}: ${bad}; refused`);
      }
    }
    if (this.config.oauth?.clientId) return; // the config holds it; only the issuer stamp would change
    this.store.update(this.config.id, this.config.url, (r) => ({ ...r, client: info }));
  }

  async tokens(ctx?: unknown): Promise<StoredOAuthTokens | undefined> {
    const r = this.record();
    // The transport's per-request read (no ctx): refresh first when the core says so (O9).
    if (ctx === undefined && !this.login && core().oauthRefresh(refreshFacts(r, Date.now(), OAUTH_REFRESH_LEAD_MS)) === OAuthRefresh.refresh_first) {
      await (this.refreshing ??= this.refresh().finally(() => { this.refreshing = undefined; }));
      return this.record()?.tokens;
    }
    return r?.tokens;
  }

  /** O8: the tokens, the issuer that issued them and its revocation endpoint, in one write; O14: their scope, the one asked when the answer names none. */
  saveTokens(tokens: StoredOAuthTokens): void {
    if (tokens.scope === undefined && this.login && this.askedScope) tokens = { ...tokens, scope: this.askedScope };
    const issuer = typeof tokens.issuer === "string" ? tokens.issuer : issuerOf(this.discovery);
    const meta = this.discovery?.authorizationServerMetadata as { revocation_endpoint?: unknown } | undefined;
    const fromIssuer = issuer !== undefined && core().oauthTokenIssuer(tokenIssuerMatchOf({ issuer }, issuerOf(this.discovery) ?? "")) === OAuthTokenIssuer.bound;
    const revocationEndpoint = fromIssuer && typeof meta?.revocation_endpoint === "string" ? meta.revocation_endpoint : undefined;
    this.store.saveTokens(this.config.id, this.config.url, tokens, { issuer, revocationEndpoint });
  }

  redirectToAuthorization(url: URL): void {
    if (!this.login) throw this.needLogin("the server asks for a login");
    judgeAuthorizationUrl(url.href); // O11
    this.authorizationUrl = url;
    this.askedScope = url.searchParams.get("scope") ?? undefined;
  }

  saveCodeVerifier(v: string): void { this.verifier = v; }
  codeVerifier(): string { return this.verifier; }

  /** Metadata is kept only once the core accepted it (O7, O8); a refusal fails the auth() call before any registration or login. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.judgeMetadata(state);
    // O8: discovery never changes what is recorded with the tokens; in the background, one that
    // names another issuer than the stored tokens' is a new login (a person's login replaces them).
    if (!this.login) {
      const r = this.record();
      const named = issuerOf(state) ?? "";
      const issuedBy = r?.tokens ? { issuer: typeof r.tokens.issuer === "string" ? r.tokens.issuer : r.issuer } : undefined;
      const binding = core().oauthTokenIssuer(tokenIssuerMatchOf(issuedBy, named));
      const name = codeName(OAuthTokenIssuer, binding) ?? "invalid_facts";
      // O15: no person's login helps a machine client; the operator decides whether the server moved.
      if (binding !== OAuthTokenIssuer.bound && this.machine) throw new JudgedRefusal(oauthMachineTokenIssuerText[name](this.config.id, String(issuedBy?.issuer), named));
      if (binding !== OAuthTokenIssuer.bound) throw new NeedsLogin(oauthTokenIssuerText[name](String(issuedBy?.issuer), named));
    }
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined { return this.discovery; }

  /** O7: the protected resource must be this server; O8: the authorization server's issuer the URL its metadata came from. */
  private judgeMetadata(state: OAuthDiscoveryState): void {
    const resource = state.resourceMetadata?.resource;
    const r = core().oauthResource(resourceFacts(this.config.url, resource));
    if (r !== OAuthResource.accepted && r !== OAuthResource.no_indicator) throw new JudgedRefusal(oauthResourceText[codeName(OAuthResource, r) ?? "invalid_facts"](String(resource), this.config.url));
    const meta = state.authorizationServerMetadata as { issuer?: unknown } | undefined;
    const i = core().oauthIssuer(issuerMatchOf(state.authorizationServerUrl, meta));
    if (i !== OAuthIssuer.accepted) throw new JudgedRefusal(oauthIssuerText[codeName(OAuthIssuer, i) ?? "invalid_facts"](state.authorizationServerUrl, String(meta?.issuer)));
    const endpoints = meta as { authorization_endpoint?: unknown; token_endpoint?: unknown } | undefined;
    if (typeof endpoints?.authorization_endpoint === "string") judgeAuthorizationUrl(endpoints.authorization_endpoint); // O11, before a client is registered
    if (typeof endpoints?.token_endpoint === "string") judgeTokenEndpoint(endpoints.token_endpoint); // O11, before a code, a refresh token or a client's credentials go there
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier") this.verifier = "";
    if (scope === "discovery" || scope === "all") this.discovery = undefined;
    if (scope === "tokens" || scope === "all") this.store.update(this.config.id, this.config.url, (r) => ({ ...r, tokens: undefined, expiresAt: undefined }));
    if (scope === "client" || scope === "all") this.store.update(this.config.id, this.config.url, (r) => ({ ...r, client: undefined }));
  }

  private record() {
    return this.store.get(this.config.id, this.config.url);
  }

  /** A refresh before expiry; a failure leaves the stored token (the server's 401 then runs the SDK's own path). */
  private async refresh(): Promise<void> {
    try {
      await auth(this, { serverUrl: this.config.url, fetchFn: this.fetchFn, ...AUTH_OPTIONS, ...(this.config.oauth?.scope && { scope: this.config.oauth.scope }) });
    } catch {
      // NeedsLogin or an AS failure: the request goes out with what is stored and is judged by its answer.
    }
  }
}
