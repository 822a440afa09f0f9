// Where an authorization code may be sent: the core decides (spec/oauth.md O1–O3: only back to
// this machine, http://127.0.0.1:<port>/callback, [::1] or localhost). A config or a client
// registration that names any other redirect URI is refused before a login starts.
import { core } from "../decisions/core.js";
import { redirectFacts } from "../decisions/facts/oauth.js";
import { oauthRedirectText } from "../decisions/messages.js";
import { OAuthRedirect } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";

/** Undefined when the core accepts `uri` as a loopback redirect; otherwise why it does not. */
export function notLoopback(uri: string): string | undefined {
  const answer = core().oauthRedirect(redirectFacts(uri));
  if (answer === OAuthRedirect.accepted) return undefined;
  return oauthRedirectText[codeName(OAuthRedirect, answer) ?? "invalid_facts"](uri);
}
