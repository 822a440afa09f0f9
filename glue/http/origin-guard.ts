// DNS rebinding and cross-site requests: a request that carries an Origin (browsers do; other MCP
// clients do not) is served only from a loopback origin or one listed in atrium.http.allowedOrigins
// (exact scheme, host and port). On a loopback listener the Host header must name this machine too,
// so a web page whose name was rebound to 127.0.0.1 is refused even when it sends no Origin; the
// one other name it answers to is atrium.http.publicUrl's (a reverse proxy on this machine that
// passes the public Host on). The SDK's own validators do the parsing (deny on failure: `null`
// and malformed origins are refused).
import { localhostAllowedHostnames, localhostAllowedOrigins, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";

export interface OriginPolicy {
  allowedOrigins: readonly string[];
  /** The listener is loopback-only: check Host as well. */
  loopback: boolean;
  /** atrium.http.publicUrl's host name, when one is configured. */
  publicHost?: string;
}

/** Undefined when the request may proceed; else why it is refused (answered 403). */
export function refusedOrigin(policy: OriginPolicy, origin: string | undefined, host: string | undefined): string | undefined {
  if (policy.loopback) {
    const h = validateHostHeader(host, policy.publicHost ? [...localhostAllowedHostnames(), policy.publicHost] : localhostAllowedHostnames());
    if (!h.ok) return `the Host header does not name this machine (${h.errorCode}); atrium listens on loopback only`;
  }
  if (origin === undefined || origin === "" || policy.allowedOrigins.includes(origin)) return undefined;
  const o = validateOriginHeader(origin, localhostAllowedOrigins());
  return o.ok ? undefined : `origin not allowed: add it to atrium.http.allowedOrigins to serve pages from it (${o.errorCode})`;
}
