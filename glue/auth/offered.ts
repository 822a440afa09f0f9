// Which remote connectors atrium logs in to: every Streamable HTTP connector whose config sets
// no Authorization header itself (static credentials are the operator's; a 401 then means they
// were refused, not that a person must log in).
import type { ConnectorConfig, HttpConnectorConfig } from "../config/schema.js";

export function oauthOffered(config: ConnectorConfig): config is HttpConnectorConfig {
  return config.kind === "http" && !Object.keys(config.headers).some((h) => h.toLowerCase() === "authorization");
}
