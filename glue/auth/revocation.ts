// Logout: each stored token (refresh first, then access) revoked at the authorization server's
// revocation_endpoint (RFC 7009) when it advertises one, as the registered client, every answer
// read under the cap; then the local copy deleted whatever the server said. Answers what it did,
// in words that never carry a token. Tokens go only to the revocation endpoint recorded with
// them, of the issuer that issued them (spec/oauth.md O8): a record whose issuer is not the
// tokens' own sends nothing anywhere.
import { discoverAuthorizationServerMetadata } from "@modelcontextprotocol/client";
import type { HttpConnectorConfig } from "../config/schema.js";
import type { TokenStore } from "./store.js";
import { boundedAuthFetch } from "./bounded-fetch.js";
import { HTTP_STATUS } from "../support/wire.js";
import { MS_PER_SECOND } from "../support/format.js";
import { core } from "../decisions/core.js";
import { codeName } from "../decisions/code-names.js";
import { OAuthTokenIssuer } from "../decisions/generated/spec.js";
import { tokenIssuerMatchOf } from "../decisions/facts/oauth.js";
import { oauthTokenIssuerText } from "../decisions/messages.js";

export interface Logout { lines: string[]; ok: boolean }

export async function logout(config: HttpConnectorConfig, store: TokenStore): Promise<Logout> {
  const record = store.get(config.id, config.url);
  if (!record?.tokens) return { lines: [`${config.id}: not logged in; nothing to revoke or delete`], ok: true };
  const fetchFn = boundedAuthFetch(config.url);
  const lines: string[] = [];
  let ok = true;
  // O8: the tokens' own issuer stamp against the issuer recorded with the revocation endpoint.
  const stamped = typeof record.tokens.issuer === "string" ? record.tokens.issuer : record.issuer;
  const recorded = record.issuer ?? stamped;
  const binding = core().oauthTokenIssuer(tokenIssuerMatchOf({ issuer: stamped }, recorded ?? ""));
  let endpoint = binding === OAuthTokenIssuer.bound ? record.revocationEndpoint : undefined;
  if (!endpoint && binding === OAuthTokenIssuer.bound && recorded) {
    const meta = await discoverAuthorizationServerMetadata(recorded, { fetchFn }).catch(() => undefined);
    endpoint = (meta as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
  }
  const clientId = config.oauth?.clientId ?? record.client?.client_id;
  const secret = config.oauth?.clientSecret ?? record.client?.client_secret;
  if (binding !== OAuthTokenIssuer.bound) {
    lines.push(`${config.id}: not revoked: ${oauthTokenIssuerText[codeName(OAuthTokenIssuer, binding) ?? "invalid_facts"](String(stamped), String(recorded))}; the tokens stay valid at their issuer until they expire`);
  } else if (!endpoint || !clientId) {
    lines.push(`${config.id}: the authorization server advertises no revocation endpoint; the tokens stay valid there until they expire`);
  } else {
    for (const [hint, token] of [["refresh_token", record.tokens.refresh_token], ["access_token", record.tokens.access_token]] as const) {
      if (!token) continue;
      const body = new URLSearchParams({ token, token_type_hint: hint });
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      if (secret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`;
      else body.set("client_id", clientId);
      const what = hint === "refresh_token" ? "refresh token" : "access token";
      try {
        // Capped (OAUTH_TOKEN_RESPONSE_BYTES_MAX) and within OAUTH_HTTP_MS, like every auth answer.
        const res = await fetchFn(endpoint, { method: "POST", headers, body });
        const answer = await res.text();
        let error: unknown;
        try { error = (JSON.parse(answer) as { error?: unknown }).error; } catch { error = undefined; }
        if (res.status === HTTP_STATUS.ok) lines.push(`${config.id}: revoked the ${what} at ${endpoint}`);
        // RFC 7009 §2.2.1: the server does not revoke this kind of token (a self-contained JWT access token, say).
        else if (error === "unsupported_token_type") lines.push(`${config.id}: ${endpoint} does not revoke ${what}s of this kind; it stays valid at the server until it expires${record.expiresAt ? ` (in ${Math.max(0, Math.round((record.expiresAt - Date.now()) / MS_PER_SECOND))} s)` : ""}`);
        else {
          ok = false;
          lines.push(`${config.id}: ${endpoint} refused to revoke the ${what} (HTTP ${res.status})`);
        }
      } catch (e) {
        ok = false;
        lines.push(`${config.id}: could not revoke the ${what} at ${endpoint}: ${(e as Error).message}`);
      }
    }
  }
  store.update(config.id, config.url, (r) => ({ ...r, tokens: undefined, expiresAt: undefined }));
  lines.push(`${config.id}: deleted the local tokens from ${store.where().words}`);
  return { lines, ok };
}
