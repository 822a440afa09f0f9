// `atrium auth login|logout|status`: a remote connector's login from a terminal. login prints the
// URL to open on stderr and waits (OAUTH_LOGIN_WAIT_MS) on the loopback receiver; logout revokes
// at the authorization server, then deletes the local copy; status says, per remote connector,
// whether it is logged in and where tokens are kept. No token value is ever printed, and no
// server's words reach the terminal raw: every printed line goes through the one escaper
// (support/text/escape.ts), so an error_description or a revocation_endpoint cannot repaint a line.
import type { AtriumConfig, ConnectorConfig, HttpConnectorConfig } from "../config/schema.js";
import { tokenStore } from "../auth/store.js";
import { oauthOffered } from "../auth/offered.js";
import { startLogin } from "../auth/flow.js";
import { logout } from "../auth/revocation.js";
import { OAUTH_LOGIN_WAIT_MS } from "../decisions/generated/spec.js";
import { MS_PER_SECOND } from "../support/format.js";
import { escapeShown } from "../support/text/escape.js";

/** A line for stderr; atrium's own line breaks (the URL block) are kept, every other control, bidi or zero-width character is escaped. */
const say = (line: string) => process.stderr.write(`${escapeShown(line, { keepLines: true })}\n`);
/** One line for stdout, escaped whole: a server's words in it stay on it. */
const print = (line: string) => process.stdout.write(`${escapeShown(line)}\n`);

function remote(config: AtriumConfig, id: string): HttpConnectorConfig | string {
  const c = config.connectors.find((x) => x.id === id);
  const remotes = config.connectors.filter(oauthOffered).map((x) => x.id);
  const known = remotes.length ? `remote connectors with a login: ${remotes.join(", ")}` : "the config has no remote connector without an Authorization header";
  if (!c) return `atrium auth: no connector named ${JSON.stringify(id)}; ${known}`;
  if (c.kind !== "http") return `atrium auth: ${id} is a stdio connector; only remote (Streamable HTTP) connectors log in; ${known}`;
  if (!oauthOffered(c)) return `atrium auth: ${id} sends its own Authorization header (static credentials in "headers"); remove it to log in instead`;
  return c;
}

export async function authCommand(config: AtriumConfig, words: string[]): Promise<number> {
  const [action, id] = words;
  if (action === "status") return status(config.connectors);
  const c = remote(config, id);
  if (typeof c === "string") {
    say(c);
    return 1;
  }
  if (action === "logout") {
    const out = await logout(c, tokenStore());
    for (const l of out.lines) print(l);
    return out.ok ? 0 : 1;
  }
  try {
    const start = await startLogin(c, tokenStore());
    if (start.kind === "authorized") {
      say(`atrium: ${c.id}: the stored login was renewed (refreshed); tokens stored in ${tokenStore().where().words}`);
      return 0;
    }
    say(`atrium: to log in to ${c.id}, open this URL in a browser:\n\n  ${start.authorizationUrl}\n\nwaiting up to ${OAUTH_LOGIN_WAIT_MS / MS_PER_SECOND} s for the login to complete…`);
    await start.done;
    say(`atrium: logged in to ${c.id}; tokens stored in ${tokenStore().where().words}`);
    return 0;
  } catch (e) {
    // The message quotes the server (error_description): one line, escaped.
    say(`atrium: ${c.id}: ${escapeShown((e as Error).message)}`);
    return 1;
  }
}

function status(connectors: ConnectorConfig[]): number {
  const store = tokenStore();
  const remotes = connectors.filter((c): c is HttpConnectorConfig => c.kind === "http");
  if (!remotes.length) print("no remote (Streamable HTTP) connectors in the config");
  for (const c of remotes) print(`${c.id} (${c.url}): ${loginWords(c)}`);
  print(`tokens are kept in: ${store.where().words}`);
  return 0;
}

/** One connector's login in words: never a token value. */
export function loginWords(c: HttpConnectorConfig): string {
  if (!oauthOffered(c)) return "static Authorization header (no login)";
  const r = tokenStore().get(c.id, c.url);
  if (!r?.tokens) return "not logged in";
  const refresh = r.tokens.refresh_token ? "refresh token available" : "no refresh token";
  if (r.expiresAt === undefined) return `logged in; ${refresh}`;
  const left = Math.round((r.expiresAt - Date.now()) / MS_PER_SECOND);
  return `logged in; access token ${left > 0 ? `expires in ${left} s` : `expired ${-left} s ago`}; ${refresh}`;
}
