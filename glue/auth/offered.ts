// Which remote connectors atrium logs in to: the core decides (spec/oauth.md O4): a Streamable
// HTTP connector whose config sets no Authorization header itself (static credentials are the
// operator's; a 401 then means they were refused, not that a person must log in, O5).
import type { ConnectorConfig, HttpConnectorConfig } from "../config/schema.js";
import { core } from "../decisions/core.js";
import { connectorFacts } from "../decisions/facts/oauth.js";
import { OAuthOffer } from "../decisions/generated/spec.js";

export function oauthOffered(config: ConnectorConfig): config is HttpConnectorConfig {
  const f = connectorFacts(config);
  return core().oauthOffer(f.transport, f.credentials) === OAuthOffer.offered;
}
