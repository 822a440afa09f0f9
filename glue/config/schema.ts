// The shape of a validated atrium.json (docs/reference.md "Config") and the key tables the validator
// walks. Every number in a validated config is an effective value (the operator's, or the
// core's default), so no other file repeats a default. Numeric ranges live in spec/budgets.md
// and are checked by the core; this file only says which key maps to which budget.
import type { PinPolicySetting } from "../pins/facts.js";
import type { AccessRuleConfig } from "../decisions/facts/access.js";
import { Budget, CONNECTOR_ID_CHARS_MAX, STATELESS_REVISION, type DeliveryOverrideName } from "../decisions/generated/spec.js";

export interface ConfigError {
  /** Dotted path into the file (`mcpServers.github.args[2]`); "" for the file as a whole. */
  path: string;
  message: string;
}

interface ConnectorCommon {
  id: string;
  readOnlyTools: string[];
  approvalTools: string[];
  /** Tools the operator keeps approval-only-outside-programs: a program never asks the person about them (spec/approvals.md P3). */
  keepOutsidePrograms: string[];
  timeoutMs: number;
  /** This connector's start deadline (defaults to atrium.connectors.startTimeoutMs). */
  startTimeoutMs: number;
  maxResultBytes: number;
  disabled: boolean;
  /** Whether this connector's app (a downstream MCP Apps UI) may run its tools that may write (spec/app-calls.md A2). */
  appWrites: boolean;
  /** Which protocol revision atrium reaches this server with (connectors/revision.ts). */
  protocol: ProtocolSetting;
  /** Pinned tool definitions (spec/pins.md): quarantine changes (pin), record them (auto-accept), or neither (off). */
  pins: PinPolicySetting;
  /** `"data": "private"`: its results are private (files, mail, a database); a run that read them asks before sending to an egress connector (spec/data-flow.md). */
  privateData: boolean;
  /** `"egress": true`: a call to it can carry data out (fetch, search, chat, mail) (spec/data-flow.md). */
  egress: boolean;
  /** Whether credentials in this connector's results are replaced by `[redacted:<kind>]` before anyone sees them (glue/results/secrets/); on unless false. */
  redactSecrets: boolean;
}
interface StdioConnectorConfig extends ConnectorCommon {
  kind: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  /** Whether the child also gets atrium's proxy, CA certificate, npm, locale and temp-dir variables (connectors/child-env.ts); false: only the bare set and `env`. */
  inheritEnv: boolean;
}
/** A remote connector's login settings (`oauth`); every key optional (glue/auth/). */
export interface OAuthSettings {
  /** `authorization_code` (a person logs in) or `client_credentials` (atrium uses the client credentials below itself, O15). */
  grant: OAuthGrantSetting;
  /** A client registered with the authorization server beforehand (else a metadata document or dynamic registration). */
  clientId: string | null;
  clientSecret: string | null;
  /** client_credentials only: an absolute path to the client's private key (PKCS #8 PEM) that signs its JWT assertion (private_key_jwt), read when a token is fetched. */
  privateKeyFile: string | null;
  /** The JWS algorithm of that assertion (RS256 when unset). */
  signingAlgorithm: string | null;
  /** A Client ID Metadata Document URL (https) the AS may fetch instead of a registration. */
  clientMetadataUrl: string | null;
  /** The scope to ask for (else the server's scopes_supported). */
  scope: string | null;
  /** A fixed loopback redirect URI (a pre-registered client may need one); else an ephemeral port. */
  redirectUri: string | null;
}
export interface HttpConnectorConfig extends ConnectorCommon {
  kind: "http";
  url: string;
  headers: Record<string, string>;
  /** Login settings; null: defaults (a login is offered when the server asks for one and no Authorization header is set). */
  oauth: OAuthSettings | null;
  /** Whose login the connector's calls carry: one for everyone (`shared`, the operator's), or each principal's own (`per-user`, team mode). */
  auth: ConnectorAuth;
}
/** A remote connector's "auth": one login for everyone, or one per principal (docs/reference.md, "Per-user logins"). */
export const CONNECTOR_AUTH = ["shared", "per-user"] as const;
export type ConnectorAuth = (typeof CONNECTOR_AUTH)[number];
export type ConnectorConfig = StdioConnectorConfig | HttpConnectorConfig;

export interface SandboxConfig {
  hostCalls: number;
  batchCalls: number;
  programWallMs: number;
  programCpuMs: number;
  heapBytes: number;
  stackBytes: number;
  returnChars: number;
  logChars: number;
  emitBytes: number;
  emitBlocks: number;
  callPayloadBytes: number;
  workers: number;
  queue: number;
  approvalsPerRun: number;
  approvalWaitMs: number;
  approvalGrantCalls: number;
}
export interface ViewsConfig {
  delivery: DeliveryOverrideName;
  fileFallback: boolean;
  directory: string | null;
}
export interface ResultsConfig {
  directResultBytes: number;
  stashTtlMs: number;
  stashBytes: number;
}

/** The activity log (atrium.log; glue/activity/). */
export interface LogConfig {
  /** Whether atrium appends events to <stateDir>/activity (default true). */
  enabled: boolean;
}

/** The API an embedding endpoint speaks (glue/embeddings/endpoint.ts). */
export const EMBED_APIS = ["ollama", "openai"] as const;
export type EmbedApi = (typeof EMBED_APIS)[number];
/** atrium.search.embedder: an operator's embedding endpoint, used instead of the bundled model. */
export interface EmbedderConfig {
  url: string;
  model: string;
  api: EmbedApi;
  headers: Record<string, string>;
}
/** atrium.search: whether search adds sentence embeddings to its ranking, and from which model. */
export interface SearchConfig {
  semantic: boolean;
  embedder: EmbedderConfig | null;
}

/** Atrium-wide connector lifecycle settings (atrium.connectors). */
export interface LifecycleConfig {
  startTimeoutMs: number;
  startRetries: number;
  restartMaxMs: number;
}

/** Where `atrium serve --http` listens (atrium.http.listen, "HOST:PORT"; --listen overrides it). */
export interface HttpListen { host: string; port: number }
/** atrium.http.listen when neither the config nor --listen names one: this machine only. */
export const DEFAULT_LISTEN = "127.0.0.1:8787";
/** atrium.http.auth: atrium as an OAuth 2.1 resource server (glue/http/authenticate.ts). */
export interface HttpAuthConfig {
  /** The authorization server's issuer identifier; its metadata names the JWKS. */
  issuer: string;
  /** What a token's `aud` must name: this atrium's resource identifier (RFC 8707). */
  audience: string;
  /** Scopes every token must carry (else 403 insufficient_scope). */
  requiredScopes: string[];
  /** The claim a token's groups are read from (spec/access.md). */
  groupsClaim: string;
}
/** atrium.http: Streamable HTTP inbound (`atrium serve --http`; glue/http/). */
export interface HttpConfig {
  listen: HttpListen;
  /** Origins a browser-borne request may come from; loopback origins are always allowed (DNS rebinding). */
  allowedOrigins: string[];
  /** The URL people reach this atrium at (behind a reverse proxy); else http://<listen>. */
  publicUrl: string | null;
  auth: HttpAuthConfig | null;
  /** atrium.http.metrics: where GET /metrics is served (docs/reference.md "Metrics"). */
  metrics: HttpMetrics;
}
/** On the main listener (the default without auth), nowhere (the default with auth), or on a listener of its own ("HOST:PORT"). */
export type HttpMetrics = { at: "listener" } | { at: "off" } | { at: "own"; listen: HttpListen };

/** atrium.store: where state that outlives a request lives (glue/store/). Without it, in this process's memory. */
export interface StoreConfig {
  /** redis:// or rediss:// (Redis 7 or Valkey; a password in the URL is never logged). */
  url: string;
  /** Every key atrium writes starts with this (several atriums may share one server). */
  keyPrefix: string;
}
/** atrium.store.keyPrefix when none is set. */
export const DEFAULT_STORE_PREFIX = "atrium:";

export interface AtriumConfig {
  /** In file order. */
  connectors: ConnectorConfig[];
  lifecycle: LifecycleConfig;
  sandbox: SandboxConfig;
  views: ViewsConfig;
  results: ResultsConfig;
  log: LogConfig;
  search: SearchConfig;
  http: HttpConfig;
  /** atrium.access (spec/access.md): null when absent (every principal may use every connector). */
  access: AccessRuleConfig[] | null;
  /** atrium.store: null keeps state in memory (one process). */
  store: StoreConfig | null;
  warnings: ConfigError[];
}

export type ValidationResult =
  | { ok: true; config: AtriumConfig; warnings: ConfigError[] }
  | { ok: false; errors: ConfigError[]; warnings: ConfigError[] };

// ---- key tables -------------------------------------------------------------------------

export const TOP_KEYS = ["mcpServers", "atrium"] as const;
export const ATRIUM_KEYS = ["sandbox", "views", "results", "connectors", "log", "search", "http", "access", "store"] as const;
export const STORE_KEYS = ["url", "keyPrefix"] as const;
export const HTTP_SERVE_KEYS = ["listen", "allowedOrigins", "publicUrl", "auth", "metrics"] as const;
export const HTTP_AUTH_KEYS = ["issuer", "audience", "requiredScopes", "groupsClaim"] as const;
export const ACCESS_RULE_KEYS = ["groups", "connectors"] as const;

/** Lowercase so an id reads the same in every address "<id>.<tool>". */
export const CONNECTOR_ID = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${CONNECTOR_ID_CHARS_MAX - 1}}$`);

export const STDIO_KEYS = ["command", "args", "env", "cwd", "inheritEnv"] as const;
export const HTTP_KEYS = ["url", "headers", "oauth", "auth"] as const;
export const OAUTH_KEYS = ["grant", "clientId", "clientSecret", "privateKeyFile", "signingAlgorithm", "clientMetadataUrl", "scope", "redirectUri"] as const;
/** How a connector gets its tokens: a person's login (the default), or the operator's client credentials (spec/oauth.md O15). */
export const OAUTH_GRANTS = ["authorization_code", "client_credentials"] as const;
export type OAuthGrantSetting = (typeof OAUTH_GRANTS)[number];
/** The JWS algorithms a `privateKeyFile` (PKCS #8 PEM) may sign a client assertion with. */
export const SIGNING_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"] as const;
const SETTING_KEYS = ["readOnlyTools", "approvalTools", "keepOutsidePrograms", "timeoutMs", "startTimeoutMs", "maxResultBytes", "disabled", "appWrites", "protocol", "pins", "data", "egress", "redactSecrets"] as const;

/** A connector's "protocol": probe and fall back (auto), or one revision only (2025-11-25 is the initialize handshake). */
export const PROTOCOL_SETTINGS = ["auto", "2025-11-25", STATELESS_REVISION] as const;
export type ProtocolSetting = (typeof PROTOCOL_SETTINGS)[number];
export const CONNECTOR_KEYS = ["type", ...STDIO_KEYS, ...HTTP_KEYS, ...SETTING_KEYS] as const;

/** Host configs' "type" (Cline writes "streamableHttp", Roo Code "streamable-http"); "sse" is recognised only to refuse it clearly. */
export const TYPE_KINDS: Readonly<Record<string, ConnectorConfig["kind"]>> = { stdio: "stdio", http: "http", "streamable-http": "http", streamableHttp: "http" };

export const CONNECTOR_LIMITS = {
  timeoutMs: Budget.host_call_deadline_ms,
  startTimeoutMs: Budget.connector_start_ms,
  maxResultBytes: Budget.direct_result_bytes,
} as const;

export const LIFECYCLE_LIMITS = {
  startTimeoutMs: Budget.connector_start_ms,
  startRetries: Budget.connector_start_retries,
  restartMaxMs: Budget.connector_restart_max_ms,
} as const satisfies Record<keyof LifecycleConfig, Budget>;

export const SANDBOX_LIMITS = {
  hostCalls: Budget.host_calls,
  batchCalls: Budget.batch_calls,
  programWallMs: Budget.program_wall_ms,
  programCpuMs: Budget.program_cpu_ms,
  heapBytes: Budget.sandbox_heap_bytes,
  stackBytes: Budget.sandbox_stack_bytes,
  returnChars: Budget.return_chars,
  logChars: Budget.log_chars,
  emitBytes: Budget.emit_bytes,
  emitBlocks: Budget.emit_blocks,
  callPayloadBytes: Budget.call_payload_bytes,
  queue: Budget.executor_queue,
  workers: Budget.sandbox_workers,
  approvalsPerRun: Budget.approvals_per_run,
  approvalWaitMs: Budget.approval_wait_ms,
  approvalGrantCalls: Budget.approval_grant_calls,
} as const satisfies Record<keyof SandboxConfig, Budget>;

export const SANDBOX_KEYS = Object.keys(SANDBOX_LIMITS);

export const VIEWS_KEYS = ["delivery", "fileFallback", "directory"] as const;
export const SEARCH_KEYS = ["semantic", "embedder"] as const;
export const EMBEDDER_KEYS = ["url", "model", "api", "headers"] as const;

export const LOG_KEYS = ["enabled"] as const;

export const RESULTS_LIMITS = {
  directResultBytes: Budget.direct_result_bytes,
  stashTtlMs: Budget.result_stash_ttl_ms,
  stashBytes: Budget.result_stash_bytes,
} as const satisfies Record<keyof ResultsConfig, Budget>;
