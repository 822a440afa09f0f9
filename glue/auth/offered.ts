// Which remote connectors atrium logs in to: the core decides (spec/oauth.md O4): a Streamable
// HTTP connector whose config sets no Authorization header itself (static credentials are the
// operator's; a 401 then means they were refused, not that a person must log in, O5); and whose
// tokens atrium gets itself with the operator's client credentials, no person involved (O15).
import type { ConnectorConfig, HttpConnectorConfig } from "../config/schema.js";
import { core } from "../decisions/core.js";
import { connectorFacts, grantFacts } from "../decisions/facts/oauth.js";
import { OAuthGrant, OAuthOffer } from "../decisions/generated/spec.js";

export function oauthOffered(config: ConnectorConfig): config is HttpConnectorConfig {
  const f = connectorFacts(config);
  return core().oauthOffer(f.transport, f.credentials) === OAuthOffer.offered;
}

/** O15: whether atrium gets this connector's tokens itself with the operator's client credentials (the core's `client_secret` or `private_key_jwt`). */
export function machineGrant(config: ConnectorConfig): boolean {
  if (!oauthOffered(config)) return false;
  const f = grantFacts(config.oauth);
  const grant = core().oauthGrant(f.grant, f.clientAuth);
  return grant === OAuthGrant.client_secret || grant === OAuthGrant.private_key_jwt;
}
