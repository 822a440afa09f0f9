// The MCP SDK's own warnings about an OAuth exchange (a token request refused with invalid_client
// or invalid_grant, a refresh that failed) end in "Cause: <the error's message>", which is the
// authorization server's error_description or raw body: a foreign answer's text, which may echo
// what it was sent, a client secret included (spec/oauth.md O12: never on stderr). Installed once
// by the command line; each such warning keeps its first part and loses the foreign text, every
// other line passes as it is.
const SDK_PREFIX = "[mcp-sdk] ";
const CAUSE = " Cause: ";

/** An SDK warning without the foreign text after its "Cause:"; any other text unchanged. */
function withoutForeignCause(text: string): string {
  if (!text.startsWith(SDK_PREFIX)) return text;
  const at = text.indexOf(CAUSE);
  return at === -1 ? text : `${text.slice(0, at)}${CAUSE}not shown (the authorization server's own text).`;
}

/** Routes `target.warn` (the console) through withoutForeignCause for its first argument. */
export function quietSdkAuthWarnings(target: Pick<Console, "warn"> = console): void {
  const warn = target.warn.bind(target);
  target.warn = (first?: unknown, ...rest: unknown[]) => warn(typeof first === "string" ? withoutForeignCause(first) : first, ...rest);
}
