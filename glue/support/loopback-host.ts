// Whether a host name or address (as a URL's hostname or a listen address gives it) is this
// machine only: 127.0.0.0/8, ::1 or localhost. Bracketed IPv6 literals are read without brackets.
import { isIP } from "node:net";

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.split(".")[0] === "127";
  if (isIP(h) === 6) return h === "::1" || h === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(h);
  return false;
}
