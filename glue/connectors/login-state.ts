// A remote connector's login, as its errors say it: the error of a connector that waits for a
// person to log in (not retryable; authorize_connector is the next action), whether a failure
// means that (a login is on offer and the provider found no usable token), and what a plain 401
// means for its credentials (the core's O5, or O15 for a machine client). The state change itself
// (needs_auth, the tools out of the catalog) is the lifecycle's: connector.ts.
import type { ConnectorConfig } from "../config/schema.js";
import { AtriumError } from "../support/errors.js";
import { needsLogin, type NeedsLogin } from "../auth/needs-login.js";
import { machineGrant, oauthOffered } from "../auth/offered.js";
import { core } from "../decisions/core.js";
import { codeName } from "../decisions/code-names.js";
import { connectorFacts } from "../decisions/facts/oauth.js";
import { oauthMachineRefusedText, oauthUnauthorizedText } from "../decisions/messages.js";
import { AuthChallenge, OAuthUnauthorized, ResourceMetadata } from "../decisions/generated/spec.js";

/** The login `e` says a person must complete, when this connector is one atrium logs in to. */
export function loginNeeded(config: ConnectorConfig, e: unknown): NeedsLogin | undefined {
  return oauthOffered(config) ? needsLogin(e) : undefined;
}

/** The error for a connector that needs a login: not retryable; the next action is authorize_connector. */
export function loginRequired(id: string, state: string, problem: string | undefined): AtriumError {
  return new AtriumError("auth_required", `connector ${id} needs a person to log in before its tools can be used (${problem ?? "the server asks for a login"}); call authorize_connector and show the person the URL it gives, or run \`atrium auth login ${id}\` in a terminal`, {
    details: { connector: id, state },
    nextAction: { tool: "authorize_connector", arguments: { connector: id }, purpose: "start the login a person must complete" },
    recovering: false,
  });
}

/**
 * A plain 401 (no login provider judged it): what the core says it means (O5) for this
 * connector's credentials, with no protected resource metadata sought nor challenge read. Never a login here: a
 * connector atrium logs in to hears of one through its provider (NeedsLogin). A machine client's
 * (O15) is a 401 to the new token its provider just got: the operator's to resolve.
 */
export function unauthorized(config: ConnectorConfig, details: Record<string, unknown>): AtriumError {
  // O15: the provider already got a new token with the operator's client credentials, and the server refused it too.
  if (machineGrant(config)) return new AtriumError("auth_required", oauthMachineRefusedText(config.id), { details });
  const meaning = core().oauthUnauthorized(connectorFacts(config).credentials, ResourceMetadata.not_found, AuthChallenge.other);
  const name = codeName(OAuthUnauthorized, meaning);
  return new AtriumError("auth_required", oauthUnauthorizedText[name === undefined || name === "needs_login" ? "invalid_facts" : name](config.id), { details });
}
