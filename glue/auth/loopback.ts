// Where an authorization code may be sent: only back to this machine (RFC 8252 §7.3), as
// http://127.0.0.1:<port>/callback (or [::1], or localhost). A config or a client registration
// that names any other redirect URI is refused before a login starts.
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Undefined when `uri` is a loopback redirect; otherwise why it is not. */
export function notLoopback(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not a URL`;
  }
  if (u.protocol !== "http:") return `${JSON.stringify(uri)} is not http://127.0.0.1:<port>/…: a login's code goes only to this machine's loopback address`;
  if (!LOOPBACK_HOSTS.has(u.hostname)) return `${JSON.stringify(uri)} does not point at this machine (127.0.0.1): a login's code goes only to a loopback address`;
  if (u.username || u.password || u.hash) return `${JSON.stringify(uri)} carries credentials or a fragment`;
  return undefined;
}
