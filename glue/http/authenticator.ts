// The seam between the HTTP server (glue/http/) and whoever says who is asking: a request's
// Authorization header in, a principal or the HTTP answer that refuses it out. Without
// atrium.http.auth the server uses `localOnly` (loopback, the `local` principal); with it, the
// resource-server verifier (jwt-authenticator.ts), whose acceptance the core decides.
import { LOCAL_PRINCIPAL, type Principal } from "../support/principal.js";

/** A refusal as it goes on the wire: status, headers (WWW-Authenticate) and a JSON body. */
export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export type Authentication = { ok: true; principal: Principal } | ({ ok: false } & Refusal);

export interface Authenticator {
  /** `authorization`: the request's Authorization header as received (undefined when absent). */
  authenticate(authorization: string | undefined): Promise<Authentication>;
  /** The document served as it is at a request path (RFC 9728 protected resource metadata), or undefined. */
  documentAt(path: string): Record<string, unknown> | undefined;
  /** Whether new tokens can be judged now (a key set is known or fetchable); /readyz reads it. */
  ready(): boolean;
}

/** No auth configured: every request is the `local` principal (serve refuses this on a non-loopback address). */
export const localOnly: Authenticator = {
  authenticate: async () => ({ ok: true, principal: LOCAL_PRINCIPAL }),
  documentAt: () => undefined,
  ready: () => true,
};
