// "A person must log in": the error the provider throws where the SDK would otherwise start a
// login nobody asked for (a background start or call without usable tokens, on a server whose
// protected resource metadata advertises a login), and how a failure is recognised as that: this
// error anywhere in the cause chain, a revision recovery's last try included.

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

/** A 401 from a server that advertises no login (no protected resource metadata): its credentials are the operator's to fix. */
export class RefusedWithoutLogin extends Error {
  constructor() {
    super("the server refused the request (HTTP 401) and advertises no login (no OAuth protected resource metadata)");
    this.name = "RefusedWithoutLogin";
  }
}

/** Whether `e` (or what caused it) is a 401 without a login on offer. */
export function refusedWithoutLogin(e: unknown): boolean {
  const seen = new Set<unknown>();
  for (let cur = e; cur && !seen.has(cur); ) {
    seen.add(cur);
    if (cur instanceof RefusedWithoutLogin) return true;
    const next = cur as { cause?: unknown; last?: unknown };
    cur = next.cause ?? next.last;
  }
  return false;
}
