// "A person must log in": the error the provider throws where the SDK would otherwise start a
// login nobody asked for (a background start or call without usable tokens), and how a failure
// is recognised as that (the SDK's UnauthorizedError, a 401 from a connector without static
// credentials, or this error anywhere in the cause chain, a revision recovery's last try included).
import { SdkHttpError, UnauthorizedError } from "@modelcontextprotocol/client";
import { HTTP_STATUS } from "../support/wire.js";

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
    if (cur instanceof UnauthorizedError) return new NeedsLogin("the server refused the request without a valid login");
    if (cur instanceof SdkHttpError && cur.status === HTTP_STATUS.unauthorized) return new NeedsLogin("the server answered HTTP 401");
    const next = cur as { cause?: unknown; last?: unknown };
    cur = next.cause ?? next.last; // a revision recovery keeps its last try's error as `last`
  }
  return undefined;
}
