// Whether a host name or address (as a URL's hostname or a listen address gives it) is this
// machine only: 127.0.0.0/8, ::1 or localhost. Bracketed IPv6 literals are read without brackets.
import { isIPv4, isIPv6 } from "node:net";

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIPv4(h)) return h.startsWith("127.");
  if (isIPv6(h)) return h === "::1" || h === "0:0:0:0:0:0:0:1" || h.startsWith("::ffff:127.");
  return false;
}
