// What a refusal of a remote connector meant, as the core decided it (spec/oauth.md O5): "a
// person must log in" (NeedsLogin, thrown where the SDK would otherwise start a login nobody asked
// for: a background start or call without usable tokens, on a server whose protected resource
// metadata advertises a login), or "the operator must fix the credentials" (RefusedWithoutLogin,
// carrying the core's answer); and how a failure is recognised as either: the error anywhere in
// the cause chain, a revision recovery's last try included.
import type { OAuthUnauthorized } from "../decisions/generated/spec.js";

export class NeedsLogin extends Error {
  constructor(readonly why: string) {
    super(`needs login: ${why}`);
    this.name = "NeedsLogin";
  }
}

/** Whether `e` (or what caused it) says the connector needs a person to log in. */
export function needsLogin(e: unknown): NeedsLogin | undefined {
  const seen = new Set<unknown>();
  for (let cur = e; cur && !seen.has(cur); ) {
    seen.add(cur);
    if (cur instanceof NeedsLogin) return cur;
    const next = cur as { cause?: unknown; last?: unknown };
    cur = next.cause ?? next.last; // a revision recovery keeps its last try's error as `last`
  }
  return undefined;
}

/** A 401 the core did not answer `needs_login` (O5): its credentials are the operator's to fix; `meaning` is the core's answer. */
export class RefusedWithoutLogin extends Error {
  constructor(readonly meaning: OAuthUnauthorized) {
    super("the server refused the request (HTTP 401) and advertises no login (no OAuth protected resource metadata)");
    this.name = "RefusedWithoutLogin";
  }
}

/** The 401 without a login on offer in `e` (or what caused it), if it is one. */
export function refusedWithoutLogin(e: unknown): RefusedWithoutLogin | undefined {
  const seen = new Set<unknown>();
  for (let cur = e; cur && !seen.has(cur); ) {
    seen.add(cur);
    if (cur instanceof RefusedWithoutLogin) return cur;
    const next = cur as { cause?: unknown; last?: unknown };
    cur = next.cause ?? next.last;
  }
  return undefined;
}
