// The URI atrium serves a downstream UI under: ui://atrium/c/<connector>/<the downstream URI
// without ui://> (spec/app-calls.md). The connector id never holds a slash (config/schema.ts),
// so the first segment after the prefix names it.
import { APP_URI_PREFIX } from "../decisions/generated/spec.js";
import { CONNECTOR_ID } from "../config/schema.js";

const UI_SCHEME = "ui://";
const SEPARATOR = "/";

/** atrium's URI for a connector's `ui://` resource. */
export function atriumUiUri(connector: string, downstream: string): string {
  return `${APP_URI_PREFIX}${connector}${SEPARATOR}${downstream.slice(UI_SCHEME.length)}`;
}

/** The connector and downstream URI an atrium app URI names, or undefined for any other URI. */
export function parseAtriumUiUri(uri: string): { connector: string; downstream: string } | undefined {
  if (!uri.startsWith(APP_URI_PREFIX)) return undefined;
  const rest = uri.slice(APP_URI_PREFIX.length);
  const slash = rest.indexOf(SEPARATOR);
  if (slash < 1) return undefined;
  const connector = rest.slice(0, slash);
  const path = rest.slice(slash + SEPARATOR.length);
  if (!CONNECTOR_ID.test(connector) || path === "") return undefined;
  return { connector, downstream: `${UI_SCHEME}${path}` };
}
