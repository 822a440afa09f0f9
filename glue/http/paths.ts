// The paths `atrium serve --http` answers at, named once for the server, the verifier and serve.

/** The MCP endpoint (both revisions). */
export const MCP_PATH = "/mcp";
/** RFC 9728 §3: protected resource metadata, at this prefix followed by the resource's path. */
export const WELL_KNOWN_PRM = "/.well-known/oauth-protected-resource";
/** Prometheus metrics (glue/observability/metrics.ts; atrium.http.metrics says where it is served). */
export const METRICS_PATH = "/metrics";
