// atrium's OAuthClientProvider for one remote connector: what the SDK's auth() and the Streamable
// HTTP transport ask of a client, backed by the token store (store.ts).
//   - background (a connector's start and calls): sends the stored access token, refreshes it
//     first when it expires within OAUTH_REFRESH_LEAD_MS (and on a 401, through the SDK), and
//     never starts a login or registers a client by itself: where the SDK would, it throws
//     NeedsLogin, which the connector turns into "needs authorization".
//   - login (flow.ts): the redirect URI is the loopback receiver's, `state` is this login's own
//     (the receiver checks it; the SDK does not), the authorization URL is recorded for the person.
// Client registration in the order the MCP authorization specification prefers, as the SDK
// applies it: a pre-registered client (config `oauth.clientId`), then a Client ID Metadata
// Document (`oauth.clientMetadataUrl`, when the AS supports it), then dynamic registration. A
// registration whose redirect URIs are not loopback is refused.
import { randomBytes } from "node:crypto";
import { auth, extractWWWAuthenticateParams, type AuthProvider, type FetchLike, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens } from "@modelcontextprotocol/client";
import type { HttpConnectorConfig } from "../config/schema.js";
import type { TokenStore } from "./store.js";
import { NeedsLogin, RefusedWithoutLogin, needsLogin, refusedWithoutLogin } from "./needs-login.js";
import { notLoopback } from "./loopback.js";
import { OAUTH_REFRESH_LEAD_MS, OAUTH_STATE_BYTES } from "../decisions/generated/spec.js";

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

  /** In the background, a login is needed only from a server that advertises one (its protected resource metadata was found). */
  private needLogin(why: string): Error {
    return this.discovery?.resourceMetadata ? new NeedsLogin(why) : new RefusedWithoutLogin();
  }

  /**
   * What the transport uses: the stored (or refreshed) access token per request, and on a 401 the
   * SDK's auth() (refresh, or the refusal above). A failure of a server that advertises no login
   * is RefusedWithoutLogin, whatever discovery threw on the way.
   */
  forTransport(): AuthProvider {
    return {
      token: async () => (await this.tokens())?.access_token,
      onUnauthorized: async (ctx) => {
        const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(ctx.response);
        let result: string;
        try {
          result = await auth(this, { serverUrl: ctx.serverUrl, resourceMetadataUrl, scope: scope ?? this.config.oauth?.scope ?? undefined, fetchFn: ctx.fetchFn });
        } catch (e) {
          if (needsLogin(e) || refusedWithoutLogin(e)) throw e;
          throw this.discovery?.resourceMetadata ? e : new RefusedWithoutLogin();
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
    // The transport's per-request read (no ctx): refresh first when the token is about to expire.
    if (ctx === undefined && !this.login && r?.tokens?.refresh_token && r.expiresAt !== undefined && r.expiresAt - Date.now() < OAUTH_REFRESH_LEAD_MS) {
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

  saveDiscoveryState(state: OAuthDiscoveryState): void {
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
      await auth(this, { serverUrl: this.config.url, fetchFn: this.fetchFn, ...(this.config.oauth?.scope && { scope: this.config.oauth.scope }) });
    } catch {
      // NeedsLogin or an AS failure: the request goes out with what is stored and is judged by its answer.
    }
  }
}
