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
// core's is the one that refuses.
import { randomBytes } from "node:crypto";
import { auth, extractWWWAuthenticateParams, type AuthProvider, type FetchLike, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens } from "@modelcontextprotocol/client";
import type { HttpConnectorConfig } from "../config/schema.js";
import type { TokenStore } from "./store.js";
import { NeedsLogin, RefusedWithoutLogin, needsLogin, refusedWithoutLogin } from "./needs-login.js";
import { notLoopback } from "./loopback.js";
import { OAUTH_REFRESH_LEAD_MS, OAUTH_STATE_BYTES, OAuthIssuer, OAuthRefresh, OAuthResource, OAuthUnauthorized } from "../decisions/generated/spec.js";
import { core } from "../decisions/core.js";
import { codeName } from "../decisions/code-names.js";
import { connectorFacts, issuerMatchOf, prmOf, refreshFacts, resourceFacts } from "../decisions/facts/oauth.js";
import { oauthIssuerText, oauthResourceText } from "../decisions/messages.js";

/** What every auth() call passes: the issuer of discovered metadata is judged by the core (O8, saveDiscoveryState), not twice. */
export const AUTH_OPTIONS = { skipIssuerMetadataValidation: true } as const;

interface LoginMode { redirectUrl: string; state: string }

export class ConnectorOAuth implements OAuthClientProvider {
  /** The URL the person must open, once a login asked for one. */
  authorizationUrl?: URL;
  private verifier = "";
  private discovery?: OAuthDiscoveryState;
  private refreshing?: Promise<void>;
  private login?: LoginMode;

  constructor(readonly config: HttpConnectorConfig, private readonly store: TokenStore, readonly fetchFn: FetchLike) {}

  /** A login's state, made before its receiver starts (the receiver checks it; bindLogin hands it to the SDK). */
  static newState(): string {
    return randomBytes(OAUTH_STATE_BYTES).toString("base64url");
  }

  /** Turns this provider into a login's: the receiver's redirect URI and the state it expects. */
  bindLogin(redirectUrl: string, state: string): void {
    this.login = { redirectUrl, state };
    this.authorizationUrl = undefined;
  }

  get redirectUrl(): string {
    // Background mode never redirects (state() throws first); the SDK still reads a value.
    return this.login?.redirectUrl ?? this.config.oauth?.redirectUri ?? "http://127.0.0.1/callback";
  }

  get clientMetadataUrl(): string | undefined {
    return this.config.oauth?.clientMetadataUrl ?? undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "atrium",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
      ...(this.config.oauth?.scope && { scope: this.config.oauth.scope }),
    } as OAuthClientMetadata;
  }

  /** O5: what a refusal means now: the core's answer on the connector's credentials and whether its protected resource metadata was found. */
  private meaning(): OAuthUnauthorized {
    return core().oauthUnauthorized(connectorFacts(this.config).credentials, prmOf(this.discovery?.resourceMetadata));
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
        const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(ctx.response);
        let result: string;
        try {
          result = await auth(this, { serverUrl: ctx.serverUrl, resourceMetadataUrl, scope: scope ?? this.config.oauth?.scope ?? undefined, fetchFn: ctx.fetchFn, ...AUTH_OPTIONS });
        } catch (e) {
          if (needsLogin(e) || refusedWithoutLogin(e)) throw e;
          const meaning = this.meaning();
          throw meaning === OAuthUnauthorized.needs_login ? e : new RefusedWithoutLogin(meaning);
        }
        if (result !== "AUTHORIZED") throw this.needLogin("the server asks for a login");
      },
    };
  }

  state(): string {
    if (!this.login) throw this.needLogin("no valid token is stored and a refresh was not possible");
    return this.login.state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const o = this.config.oauth;
    if (o?.clientId) return { client_id: o.clientId, ...(o.clientSecret && { client_secret: o.clientSecret }) };
    return this.record()?.client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    if (!this.login && !this.record()?.client && !this.config.oauth?.clientId) throw this.needLogin("atrium has no client registration with this server yet");
    const uris = (info as { redirect_uris?: unknown }).redirect_uris;
    if (Array.isArray(uris)) {
      for (const u of uris) {
        const bad = notLoopback(String(u));
        if (bad) throw new Error(`the authorization server registered a redirect URI that is not loopback: ${bad}; refused`);
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

  saveTokens(tokens: StoredOAuthTokens): void {
    this.store.saveTokens(this.config.id, this.config.url, tokens);
  }

  redirectToAuthorization(url: URL): void {
    if (!this.login) throw this.needLogin("the server asks for a login");
    this.authorizationUrl = url;
  }

  saveCodeVerifier(v: string): void { this.verifier = v; }
  codeVerifier(): string { return this.verifier; }

  /** Metadata is kept only once the core accepted it (O7, O8); a refusal fails the auth() call before any registration or login. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.judgeMetadata(state);
    this.discovery = state;
    const meta = state.authorizationServerMetadata as { revocation_endpoint?: string; issuer?: string } | undefined;
    if (meta?.revocation_endpoint || meta?.issuer) {
      const existing = this.record();
      if (existing?.revocationEndpoint !== meta.revocation_endpoint || existing?.issuer !== meta.issuer) {
        this.store.update(this.config.id, this.config.url, (r) => ({ ...r, revocationEndpoint: meta.revocation_endpoint, issuer: meta.issuer }));
      }
    }
  }

  discoveryState(): OAuthDiscoveryState | undefined { return this.discovery; }

  /** O7: the protected resource must be this server; O8: the authorization server's issuer the URL its metadata came from. */
  private judgeMetadata(state: OAuthDiscoveryState): void {
    const resource = state.resourceMetadata?.resource;
    const r = core().oauthResource(resourceFacts(this.config.url, resource));
    if (r !== OAuthResource.accepted && r !== OAuthResource.no_indicator) throw new Error(oauthResourceText[codeName(OAuthResource, r) ?? "invalid_facts"](String(resource), this.config.url));
    const meta = state.authorizationServerMetadata as { issuer?: unknown } | undefined;
    const i = core().oauthIssuer(issuerMatchOf(state.authorizationServerUrl, meta));
    if (i !== OAuthIssuer.accepted) throw new Error(oauthIssuerText[codeName(OAuthIssuer, i) ?? "invalid_facts"](state.authorizationServerUrl, String(meta?.issuer)));
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
