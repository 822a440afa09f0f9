// One login for one remote connector, with the SDK's auth(): discovery from the server's 401
// challenge (RFC 9728 protected resource metadata, then the authorization server's metadata; the
// provider has the core judge both, spec/oauth.md O7–O8), client registration (provider.ts), the authorization code
// request with PKCE S256 and the RFC 8707 resource; then the code from the loopback receiver
// (receiver.ts checks state) exchanged for tokens, which the provider stores. A stored refresh
// token is tried first: a login is started only when the refresh fails.
import { auth, extractWWWAuthenticateParams, type FetchLike } from "@modelcontextprotocol/client";
import type { HttpConnectorConfig } from "../config/schema.js";
import type { LoginRecords } from "./store.js";
import { AUTH_OPTIONS, ConnectorOAuth, metadataUrlToUse } from "./provider.js";
import { startReceiver, type Receiver } from "./receiver.js";
import { boundedAuthFetch } from "./bounded-fetch.js";
import { NoAnswerInTime, withinDeadline } from "../support/within-deadline.js";
import { notLoopback } from "../config/loopback.js";
import { HTTP_STATUS } from "../support/wire.js";
import { clampEcho } from "../support/errors.js";
import { oauthErrorWords } from "./background-failure.js";

export type LoginStart =
  | { kind: "authorized" }
  | { kind: "pending"; authorizationUrl: string; done: Promise<void>; cancel(): void };

/** What a 401 from the MCP endpoint names (WWW-Authenticate): its resource metadata URL if at the server's origin (O12), and the scope it asks for. */
async function challenge(url: string, fetchFn: FetchLike): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    const res = await withinDeadline(url, undefined, (signal) => fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      signal,
    }));
    await res.body?.cancel().catch(() => {});
    // O12: a metadata URL of another origin is not fetched; discovery asks the server's well-known locations.
    if (res.status !== HTTP_STATUS.unauthorized) return {};
    const named = extractWWWAuthenticateParams(res);
    return { resourceMetadataUrl: metadataUrlToUse(url, named.resourceMetadataUrl), scope: named.scope };
  } catch (e) {
    if (e instanceof NoAnswerInTime) throw e; // a server that does not answer: the login ends here
    return {}; // discovery then tries the well-known locations
  }
}

/** Scopes joined once each (the recorded step-up's first). */
const scopeUnion = (...scopes: (string | undefined)[]): string => [...new Set(scopes.flatMap((s) => (s ?? "").split(/\s+/)).filter(Boolean))].join(" ");

/** Why a login failed, in words that never carry a token nor an OAuth error answer's text (O12: its code and status only). */
function failure(e: unknown): Error {
  const text = (oauthErrorWords(e) ?? (e instanceof Error ? e.message : String(e))).replace(/\s+/g, " ").trim();
  return new Error(`the login failed: ${clampEcho(text)}`);
}

/**
 * Starts a login: a refresh when a refresh token is stored, else the authorization URL the person
 * must open, with `done` settling when the redirect came back and the tokens are stored.
 */
/** Opens where one login's browser comes back, for the login that sends `state`. */
export type ReceiverFactory = (state: string, waitMs?: number) => Promise<Receiver>;

/** The loopback receiver on this machine (O1): the config's `oauth.redirectUri` port and path, else an ephemeral port. */
const loopbackReceiver = (config: HttpConnectorConfig): ReceiverFactory => async (state, waitMs) => {
  const fixed = config.oauth?.redirectUri ? new URL(config.oauth.redirectUri) : undefined;
  if (config.oauth?.redirectUri && notLoopback(config.oauth.redirectUri)) throw new Error(`the login failed: ${notLoopback(config.oauth.redirectUri)}`);
  return startReceiver(state, { port: fixed ? Number(fixed.port) : 0, path: fixed?.pathname, waitMs });
};

/** `receiver`: where the browser comes back (the loopback receiver unless team mode hands its own callback, team-callbacks.ts). */
export async function startLogin(config: HttpConnectorConfig, store: LoginRecords, opts: { fetchFn?: FetchLike; waitMs?: number; receiver?: ReceiverFactory } = {}): Promise<LoginStart> {
  const fetchFn = boundedAuthFetch(config.url, opts.fetchFn);
  const provider = new ConnectorOAuth(config, store, fetchFn);
  // O15: the operator's client credentials: tokens come without a person, a receiver or a URL.
  if (provider.machine) {
    try {
      const asked = await challenge(config.url, fetchFn);
      const r = await auth(provider, { serverUrl: config.url, resourceMetadataUrl: asked.resourceMetadataUrl, fetchFn, scope: config.oauth?.scope ?? asked.scope, ...AUTH_OPTIONS });
      if (r !== "AUTHORIZED") throw new Error("the client credentials grant did not end in tokens");
      return { kind: "authorized" };
    } catch (e) {
      throw failure(e);
    }
  }
  const state = ConnectorOAuth.newState();
  const receiver: Receiver = await (opts.receiver ?? loopbackReceiver(config))(state, opts.waitMs);
  provider.bindLogin(receiver, state);
  try {
    const asked = await challenge(config.url, fetchFn);
    const resourceMetadataUrl = asked.resourceMetadataUrl;
    // The scope the 401 asks for, else the config's (the same order as a 401 on the transport, provider.ts); without either the SDK uses scopes_supported.
    // A step-up a 403 recorded (O14) adds its scope, and asks anew: a refresh cannot widen a grant.
    const stepUp = store.get(config.id, config.url)?.stepUpScope;
    const scope = stepUp ? scopeUnion(stepUp, asked.scope ?? config.oauth?.scope ?? undefined) : asked.scope ?? config.oauth?.scope ?? undefined;
    const first = await auth(provider, { serverUrl: config.url, resourceMetadataUrl, fetchFn, scope, forceReauthorization: stepUp !== undefined, ...AUTH_OPTIONS });
    if (first === "AUTHORIZED") {
      receiver.close();
      return { kind: "authorized" };
    }
    const url = provider.authorizationUrl;
    if (!url) throw new Error("the SDK asked for a login without an authorization URL");
    const done = receiver.result.then(async (cb) => {
      const r = await auth(provider, { serverUrl: config.url, resourceMetadataUrl, fetchFn, scope, authorizationCode: cb.code, iss: cb.iss, ...AUTH_OPTIONS });
      if (r !== "AUTHORIZED") throw new Error("the code exchange did not end in tokens");
    }).catch((e: unknown) => { throw failure(e); }).finally(() => receiver.close());
    done.catch(() => {}); // observed by whoever waits; never unhandled
    return { kind: "pending", authorizationUrl: url.href, done, cancel: () => receiver.close() };
  } catch (e) {
    receiver.close();
    throw failure(e);
  }
}
