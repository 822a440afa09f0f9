// The key set of the issuer named by atrium.http.auth: found from its metadata (RFC 8414's
// /.well-known/oauth-authorization-server, then OpenID discovery), the metadata judged to be this
// issuer's by the core (spec/oauth.md O8) and its jwks_uri judged as a web address (O11); then
// the JWKS itself. Every answer is read under OAUTH_DOCUMENT_BYTES_MAX and OAUTH_HTTP_MS before it
// is parsed. The set is kept: fetched again in the background past JWKS_REFRESH_MS, again at once
// (at most once per JWKS_REFETCH_COOLDOWN_MS) when a token names a key it does not hold, and
// dropped when it could not be fetched again for JWKS_STALE_MAX_MS (fail closed in time).
import { createLocalJWKSet, type JSONWebKeySet } from "jose";
import type { Core } from "../decisions/core.js";
import { authorizationUrlFacts, issuerMatchOf } from "../decisions/facts/oauth.js";
import { JWKS_KEYS_MAX, JWKS_REFETCH_COOLDOWN_MS, JWKS_REFRESH_MS, JWKS_STALE_MAX_MS, OAuthAuthorizationUrl, OAuthIssuer, OAUTH_DOCUMENT_BYTES_MAX } from "../decisions/generated/spec.js";
import { readBodyCapped } from "../support/read-body-capped.js";
import { withinDeadline } from "../support/within-deadline.js";
import { HTTP_STATUS } from "../support/wire.js";

/** What jose verifies a compact JWS against: the set's keys, chosen by the JWS header. */
export type KeySet = ReturnType<typeof createLocalJWKSet>;

export interface IssuerKeysOptions {
  issuer: string;
  core: Core;
  fetch?: typeof fetch;
  /** The clock, in ms (a fake one in tests). */
  now?: () => number;
  log?: (line: string) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** RFC 8414 §3.1 (the well-known segment before the issuer's path), then OpenID Connect Discovery §4 (after it). */
function metadataUrlsOf(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === "/" ? "" : u.pathname.replace(/\/$/, "");
  return [`${u.origin}/.well-known/oauth-authorization-server${path}`, `${u.origin}${path}/.well-known/openid-configuration`];
}

export class IssuerKeys {
  private held: { keys: KeySet; fetchedAt: number } | undefined;
  private lastTry = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: IssuerKeysOptions) {
    this.fetchFn = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => {});
  }

  /** The set tokens are verified against now, or undefined (never fetched, or stale past JWKS_STALE_MAX_MS). Starts a background refresh when one is due. */
  current(): KeySet | undefined {
    const age = this.held === undefined ? Number.POSITIVE_INFINITY : this.now() - this.held.fetchedAt;
    if (age > JWKS_STALE_MAX_MS) this.held = undefined;
    if (age > JWKS_REFRESH_MS) void this.refresh();
    return this.held?.keys;
  }

  /** A set to verify with: the held one, else one fetched now (unless a fetch failed within the cooldown). */
  async keys(): Promise<KeySet | undefined> {
    const held = this.current();
    if (held) return held;
    await this.refresh();
    return this.held?.keys;
  }

  /** Fetches the set again for a token whose key it lacks; false when the cooldown holds it back (the answer then stands). */
  async refetch(): Promise<boolean> {
    if (!this.inFlight && this.now() - this.lastTry < JWKS_REFETCH_COOLDOWN_MS) return false;
    await this.refresh();
    return true;
  }

  /** One fetch at a time, and none within JWKS_REFETCH_COOLDOWN_MS of the last try. */
  private refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.now() - this.lastTry < JWKS_REFETCH_COOLDOWN_MS) return Promise.resolve();
    this.lastTry = this.now();
    this.inFlight = this.fetchSet()
      .then((set) => {
        this.held = { keys: createLocalJWKSet(set), fetchedAt: this.now() };
      })
      .catch((e: unknown) => this.log(`atrium: the key set of ${this.opts.issuer} could not be fetched: ${(e as Error).message}${this.held ? " (the set held is kept)" : "; tokens get 503 until it can"}`))
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async fetchSet(): Promise<JSONWebKeySet> {
    const jwksUri = await this.jwksUri();
    const set = await this.document(jwksUri);
    if (!Array.isArray(set?.keys)) throw new Error(`${jwksUri} is not a JWK set (no "keys" list)`);
    if (set.keys.length > JWKS_KEYS_MAX) throw new Error(`${jwksUri} holds ${set.keys.length} keys, more than JWKS_KEYS_MAX (${JWKS_KEYS_MAX})`);
    return { keys: set.keys.filter(isObject) } as JSONWebKeySet;
  }

  /** The metadata's jwks_uri, from the first location that answers with this issuer's metadata. */
  private async jwksUri(): Promise<string> {
    const why: string[] = [];
    for (const url of metadataUrlsOf(this.opts.issuer)) {
      let meta: Record<string, unknown> | undefined;
      try {
        meta = await this.document(url);
      } catch (e) {
        why.push((e as Error).message);
        continue;
      }
      if (meta === undefined) {
        why.push(`${url} has no metadata`);
        continue;
      }
      if (this.opts.core.oauthIssuer(issuerMatchOf(this.opts.issuer, meta)) !== OAuthIssuer.accepted) {
        why.push(`${url} names another issuer`);
        continue;
      }
      const { scheme, host } = authorizationUrlFacts(meta.jwks_uri);
      if (this.opts.core.oauthAuthorizationUrl(scheme, host) !== OAuthAuthorizationUrl.accepted) throw new Error(`the metadata at ${url} names no jwks_uri atrium fetches (https:, or http: on this machine)`);
      return meta.jwks_uri as string;
    }
    throw new Error(why.join("; "));
  }

  /** A JSON object document at `url`, read under its cap and deadline; undefined on 404. */
  private async document(url: string): Promise<Record<string, unknown> | undefined> {
    const { res, body } = await withinDeadline(url, undefined, async (signal) => {
      const res = await this.fetchFn(url, { headers: { accept: "application/json" }, redirect: "error", signal });
      return { res, body: await readBodyCapped(res, OAUTH_DOCUMENT_BYTES_MAX, url) };
    });
    if (res.status === HTTP_STATUS.notFound) return undefined;
    if (res.status !== HTTP_STATUS.ok) throw new Error(`${url} answered HTTP ${res.status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      throw new Error(`${url} did not answer JSON`);
    }
    if (!isObject(parsed)) throw new Error(`${url} did not answer a JSON object`);
    return parsed;
  }
}
