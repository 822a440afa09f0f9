// Who a request acts for (PRODUCT.md, team mode): on stdio, and over HTTP on loopback without
// auth, the one `local` principal; with `atrium.http.auth`, the token's issuer and subject. The id
// is what everything a person leaves in atrium is keyed by (stash, views, parked runs, grants,
// logins): for a token it is a SHA-256 of the JSON pair [`iss`, `sub`] (unambiguous whatever either holds), so it has one length, is safe inside a
// store key and a log line, and names no one (a `sub` may be personal data). groups and scopes are
// the token's, as checked by the resource server; the core's access rules read the groups.
import { createHash } from "node:crypto";

export interface Principal {
  /** `local`, or `p:` and the hex SHA-256 of JSON [`iss`, `sub`]. */
  readonly id: string;
  /** The token's `iss` and `sub` (absent for `local`). */
  readonly issuer?: string;
  readonly subject?: string;
  /** The token's groups claim (atrium.http.auth.groupsClaim) and scopes, as the verifier read them. */
  readonly groups: readonly string[];
  readonly scopes: readonly string[];
}

export const LOCAL_PRINCIPAL: Principal = Object.freeze({ id: "local", groups: Object.freeze([]), scopes: Object.freeze([]) });

/** The principal of a verified token. */
export function tokenPrincipal(issuer: string, subject: string, groups: readonly string[], scopes: readonly string[]): Principal {
  const id = `p:${createHash("sha256").update(JSON.stringify([issuer, subject])).digest("hex")}`;
  return Object.freeze({ id, issuer, subject, groups: Object.freeze([...groups]), scopes: Object.freeze([...scopes]) });
}
