// Validates a parsed atrium.json. Hand-written (not zod) so every message and path is exact.
// Collects every error instead of stopping at the first, and never throws: the input is
// whatever a user or a host wrote. Numeric limits are judged by the core (limitAccepts);
// this file holds no ranges or defaults of budgets.
import type { Core } from "../decisions/core.js";
import { Budget, DeliveryOverride, LimitCheck, OAuthGrant, type DeliveryOverrideName } from "../decisions/generated/spec.js";
import { grantFacts } from "../decisions/facts/oauth.js";
import { isAbsolute } from "node:path";
import {
  ATRIUM_KEYS, STORE_KEYS, CONNECTOR_ID, EMBED_APIS, EMBEDDER_KEYS, SEARCH_KEYS, CONNECTOR_KEYS, CONNECTOR_LIMITS, HTTP_KEYS, LIFECYCLE_LIMITS, PROTOCOL_SETTINGS, RESULTS_LIMITS, SANDBOX_KEYS, SANDBOX_LIMITS,
  OAUTH_KEYS, OAUTH_GRANTS, SIGNING_ALGORITHMS, type OAuthGrantSetting, CONNECTOR_AUTH, STDIO_KEYS, HTTP_SERVE_KEYS, LOG_KEYS, TOP_KEYS, TYPE_KINDS, VIEWS_KEYS,
  type AtriumConfig, type ConnectorAuth, type ConnectorConfig, type LifecycleConfig, type LogConfig, type OAuthSettings, type ProtocolSetting, type EmbedApi, type ResultsConfig, type SandboxConfig, type SearchConfig, type ValidationResult, type ViewsConfig,
} from "./schema.js";
import { isJsonObject } from "../support/json-object.js";
import { at, bool, expected, fail, headerName, headerValue, httpUrl, idMessage, list, map, envName, own, section, show, text, toolList, unknownKeys, closest, type Ctx, type Obj } from "./readers.js";
import { notLoopback } from "./loopback.js";
import { PIN_POLICY_SETTINGS, type PinPolicySetting } from "../pins/facts.js";
import { hostKeyWarning } from "./host-keys.js";
import { accessOf, httpOf, storeOf } from "./validate-team.js";


export function validateConfig(raw: unknown, core: Core): ValidationResult {
  const ctx: Ctx = { core, errors: [], warnings: [], clampChars: 0 }; // clampChars is the core's, set first thing below
  try {
    ctx.clampChars = core.limitDefault(Budget.echo_clamp_chars);
    const config = root(ctx, raw);
    if (config && ctx.errors.length === 0) return { ok: true, config, warnings: ctx.warnings };
  } catch {
    // Only exotic inputs (a Proxy, a throwing getter) get here; JSON never does.
    ctx.errors.push({ path: "", message: "the config could not be read as plain data" });
  }
  if (ctx.errors.length === 0) ctx.errors.push({ path: "", message: "the config is not valid" }); // a refusal always says why
  return { ok: false, errors: ctx.errors, warnings: ctx.warnings };
}

// ---- the walk ---------------------------------------------------------------------------

function root(ctx: Ctx, raw: unknown): AtriumConfig | undefined {
  if (!isJsonObject(raw)) return fail(ctx, "", expected("an object", raw));
  for (const key of Object.keys(raw)) {
    if ((TOP_KEYS as readonly string[]).includes(key)) continue;
    const near = closest(key, TOP_KEYS);
    // A host config (claude_desktop_config.json) carries its own top-level keys; only a near miss is a typo.
    if (near) fail(ctx, at("", key, ctx), `unknown key; did you mean "${near}"?`);
    else ctx.warnings.push({ path: at("", key, ctx), message: `unknown key, ignored (atrium reads only "mcpServers" and "atrium")` });
  }

  const servers = own(raw, "mcpServers");
  let connectors: Partial<ConnectorConfig>[] = [];
  if (servers === undefined) {
    const hint = own(raw, "servers") !== undefined ? ` (VS Code's "servers" block is not read; rename it to "mcpServers")` : "";
    fail(ctx, "", `missing "mcpServers"${hint}`);
  } else if (!isJsonObject(servers)) {
    fail(ctx, "mcpServers", expected("an object", servers));
  } else {
    connectors = Object.keys(servers).map((id) => connector(ctx, id, own(servers, id)));
    if (connectors.length === 0) ctx.warnings.push({ path: "mcpServers", message: "no connectors; atrium will serve no tools" });
  }

  const atrium = section(ctx, "atrium", own(raw, "atrium"), ATRIUM_KEYS);
  const sandbox = sandboxOf(ctx, section(ctx, "atrium.sandbox", own(atrium, "sandbox"), SANDBOX_KEYS));
  const views = viewsOf(ctx, section(ctx, "atrium.views", own(atrium, "views"), VIEWS_KEYS));
  const results: ResultsConfig = limits(ctx, "atrium.results", section(ctx, "atrium.results", own(atrium, "results"), Object.keys(RESULTS_LIMITS)), RESULTS_LIMITS);
  const log: LogConfig = { enabled: bool(ctx, "atrium.log.enabled", own(section(ctx, "atrium.log", own(atrium, "log"), LOG_KEYS), "enabled"), true) };
  const lifecycle: LifecycleConfig = limits(ctx, "atrium.connectors", section(ctx, "atrium.connectors", own(atrium, "connectors"), Object.keys(LIFECYCLE_LIMITS)), LIFECYCLE_LIMITS);
  const search = searchOf(ctx, section(ctx, "atrium.search", own(atrium, "search"), SEARCH_KEYS));
  const http = httpOf(ctx, section(ctx, "atrium.http", own(atrium, "http"), HTTP_SERVE_KEYS));
  const access = accessOf(ctx, own(atrium, "access"), new Set(connectors.flatMap((c) => (c.id === undefined ? [] : [c.id]))));
  const storeBlock = own(atrium, "store");
  const store = storeBlock === undefined || storeBlock === null ? null : storeOf(ctx, section(ctx, "atrium.store", storeBlock, STORE_KEYS));

  // A connector without its own cap or start deadline inherits the atrium-wide one.
  for (const c of connectors) {
    c.maxResultBytes ??= results.directResultBytes;
    c.startTimeoutMs ??= lifecycle.startTimeoutMs;
  }
  return { connectors: connectors as ConnectorConfig[], lifecycle, sandbox, views, results, log, search, http, access, store, warnings: ctx.warnings };
}

function connector(ctx: Ctx, id: string, entry: unknown): Partial<ConnectorConfig> {
  const path = at("mcpServers", id, ctx);
  if (!CONNECTOR_ID.test(id)) fail(ctx, path, idMessage(id, ctx));
  if (!isJsonObject(entry)) {
    fail(ctx, path, expected("an object", entry));
    return {};
  }
  unknownKeys(ctx, path, entry, CONNECTOR_KEYS, hostKeyWarning);

  const hasCommand = own(entry, "command") !== undefined;
  const hasUrl = own(entry, "url") !== undefined;
  const kind = hasCommand === hasUrl ? undefined : hasCommand ? "stdio" : "http";
  if (hasCommand && hasUrl) fail(ctx, path, `has both "command" and "url"; a connector is either a local stdio server (command) or a remote Streamable HTTP server (url)`);
  if (!hasCommand && !hasUrl) fail(ctx, path, `missing "command" (or "url" for a remote server)`);
  typeField(ctx, path, own(entry, "type"), kind);
  if (kind === "stdio") for (const k of HTTP_KEYS) if (own(entry, k) !== undefined) fail(ctx, `${path}.${k}`, `applies only to a remote server (one with "url")`);
  if (kind === "http") for (const k of STDIO_KEYS) if (own(entry, k) !== undefined) fail(ctx, `${path}.${k}`, `applies only to a stdio server (one with "command")`);

  // Every present field is checked whatever the kind, so one run reports every mistake.
  const command = text(ctx, `${path}.command`, own(entry, "command"));
  const args = list(ctx, `${path}.args`, own(entry, "args"), (p, v) => text(ctx, p, v, true));
  const env = map(ctx, `${path}.env`, own(entry, "env"), envName, (p, v) => text(ctx, p, v, true));
  const cwd = text(ctx, `${path}.cwd`, own(entry, "cwd"));
  const inheritEnv = bool(ctx, `${path}.inheritEnv`, own(entry, "inheritEnv"), true);
  const url = httpUrl(ctx, `${path}.url`, own(entry, "url"));
  const headers = map(ctx, `${path}.headers`, own(entry, "headers"), headerName, (p, v) => headerValue(ctx, p, v));
  const oauth = oauthOf(ctx, `${path}.oauth`, own(entry, "oauth"));
  const auth = connectorAuth(ctx, `${path}.auth`, own(entry, "auth"), headers);
  const readOnly = toolList(ctx, `${path}.readOnlyTools`, own(entry, "readOnlyTools"));
  const approval = toolList(ctx, `${path}.approvalTools`, own(entry, "approvalTools"));
  for (const [name, i] of approval) {
    const j = readOnly.get(name);
    if (j !== undefined) fail(ctx, `${path}.approvalTools[${i}]`, `${show(name, ctx)} is also in ${path}.readOnlyTools[${j}]; a tool is either read-only or behind approval, not both`);
  }
  const keptOutside = toolList(ctx, `${path}.keepOutsidePrograms`, own(entry, "keepOutsidePrograms"));
  const settings = {
    id,
    readOnlyTools: [...readOnly.keys()],
    approvalTools: [...approval.keys()],
    keepOutsidePrograms: [...keptOutside.keys()],
    timeoutMs: limit(ctx, `${path}.timeoutMs`, own(entry, "timeoutMs"), CONNECTOR_LIMITS.timeoutMs),
    startTimeoutMs: own(entry, "startTimeoutMs") === undefined ? undefined : limit(ctx, `${path}.startTimeoutMs`, own(entry, "startTimeoutMs"), CONNECTOR_LIMITS.startTimeoutMs),
    maxResultBytes: own(entry, "maxResultBytes") === undefined ? undefined : limit(ctx, `${path}.maxResultBytes`, own(entry, "maxResultBytes"), CONNECTOR_LIMITS.maxResultBytes),
    disabled: bool(ctx, `${path}.disabled`, own(entry, "disabled"), false),
    appWrites: bool(ctx, `${path}.appWrites`, own(entry, "appWrites"), false),
    protocol: protocol(ctx, `${path}.protocol`, own(entry, "protocol")),
    pins: pinPolicy(ctx, `${path}.pins`, own(entry, "pins")),
    privateData: dataSetting(ctx, `${path}.data`, own(entry, "data")),
    egress: bool(ctx, `${path}.egress`, own(entry, "egress"), false),
    redactSecrets: bool(ctx, `${path}.redactSecrets`, own(entry, "redactSecrets"), true),
  };
  return kind === "http"
    ? { ...settings, kind, url: url ?? "", headers, oauth, auth }
    : { ...settings, kind: "stdio", command: command ?? "", args, env, cwd: cwd ?? null, inheritEnv };
}

/**
 * A remote connector's `oauth` block: strings only; a redirect URI must be loopback (a code goes
 * only to this machine). `grant` names whose tokens these are (the core's O15): with
 * `client_credentials` a client ID and exactly one way to authenticate, and nothing of a
 * person's login; the private key's keys only with it.
 */
function oauthOf(ctx: Ctx, path: string, value: unknown): OAuthSettings | null {
  if (value === undefined) return null;
  const o = section(ctx, path, value, OAUTH_KEYS);
  const read = (k: (typeof OAUTH_KEYS)[number]) => text(ctx, `${path}.${k}`, own(o, k)) ?? null;
  const settings: OAuthSettings = { grant: grantOf(ctx, `${path}.grant`, own(o, "grant")), clientId: read("clientId"), clientSecret: read("clientSecret"), privateKeyFile: read("privateKeyFile"), signingAlgorithm: read("signingAlgorithm"), clientMetadataUrl: read("clientMetadataUrl"), scope: read("scope"), redirectUri: read("redirectUri") };
  const f = grantFacts(settings);
  const grant = ctx.core.oauthGrant(f.grant, f.clientAuth);
  if (settings.grant === "client_credentials") {
    if (settings.clientId === null) fail(ctx, `${path}.clientId`, `is required with "grant": "client_credentials" (the client registered with the authorization server beforehand)`);
    if (grant === OAuthGrant.no_client_auth) fail(ctx, `${path}.grant`, `"client_credentials" needs a way to authenticate the client: set "clientSecret" or "privateKeyFile"`);
    if (settings.clientSecret !== null && settings.privateKeyFile !== null) fail(ctx, `${path}.privateKeyFile`, `and "clientSecret" are two ways to authenticate the same client; keep one`);
    for (const k of ["redirectUri", "clientMetadataUrl"] as const) if (settings[k] !== null) fail(ctx, `${path}.${k}`, `applies only to a person's login ("grant": "authorization_code"), not to "client_credentials"`);
  } else {
    for (const k of ["privateKeyFile", "signingAlgorithm"] as const) if (settings[k] !== null) fail(ctx, `${path}.${k}`, `applies only with "grant": "client_credentials"`);
  }
  if (settings.privateKeyFile !== null && !isAbsolute(settings.privateKeyFile)) fail(ctx, `${path}.privateKeyFile`, `must be an absolute path to the client's private key (PKCS #8 PEM)`);
  if (settings.signingAlgorithm !== null && !(SIGNING_ALGORITHMS as readonly string[]).includes(settings.signingAlgorithm)) fail(ctx, `${path}.signingAlgorithm`, `must be one of ${SIGNING_ALGORITHMS.join(", ")}, got ${show(settings.signingAlgorithm, ctx)}`);
  if (settings.signingAlgorithm !== null && settings.privateKeyFile === null) fail(ctx, `${path}.signingAlgorithm`, `applies only with "privateKeyFile"`);
  if (settings.redirectUri !== null) {
    const bad = notLoopback(settings.redirectUri);
    if (bad) fail(ctx, `${path}.redirectUri`, bad);
  }
  if (settings.clientSecret !== null && settings.clientId === null) fail(ctx, `${path}.clientSecret`, `applies only with "clientId"`);
  if (settings.clientMetadataUrl !== null && !/^https:\/\/[^/]+\/./.test(settings.clientMetadataUrl)) fail(ctx, `${path}.clientMetadataUrl`, `must be an https:// URL with a path (a Client ID Metadata Document)`);
  return settings;
}

/** `oauth.grant`: "authorization_code" (the default) or "client_credentials". */
function grantOf(ctx: Ctx, path: string, value: unknown): OAuthGrantSetting {
  if (value === undefined) return "authorization_code";
  if (typeof value !== "string" || !(OAUTH_GRANTS as readonly string[]).includes(value)) {
    fail(ctx, path, `must be one of ${OAUTH_GRANTS.map((g) => `"${g}"`).join(", ")}, got ${show(String(value), ctx)}`);
    return "authorization_code";
  }
  return value as OAuthGrantSetting;
}

/** A remote connector's "auth": "shared" (the default) or "per-user"; a per-user login cannot sit beside an Authorization header the operator set for everyone. */
function connectorAuth(ctx: Ctx, path: string, value: unknown, headers: Record<string, string>): ConnectorAuth {
  if (value === undefined) return "shared";
  if (typeof value !== "string" || !(CONNECTOR_AUTH as readonly string[]).includes(value)) {
    fail(ctx, path, `must be one of ${CONNECTOR_AUTH.map((a) => `"${a}"`).join(", ")}, got ${show(String(value), ctx)}`);
    return "shared";
  }
  if (value === "per-user" && Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) fail(ctx, path, `"per-user" logs each person in with OAuth, but this entry's headers set an Authorization for everyone; remove one of the two`);
  return value as ConnectorAuth;
}

function typeField(ctx: Ctx, path: string, type: unknown, kind: ConnectorConfig["kind"] | undefined): void {
  if (type === undefined) return;
  const p = `${path}.type`;
  if (typeof type !== "string") return fail(ctx, p, expected("a string", type));
  if (type === "sse") return fail(ctx, p, `"sse" is not supported: atrium reaches remote servers over Streamable HTTP only; point "url" at the server's Streamable HTTP endpoint and use "type": "http"`);
  const declared = Object.hasOwn(TYPE_KINDS, type) ? TYPE_KINDS[type] : undefined;
  if (!declared) return fail(ctx, p, `must be one of ${Object.keys(TYPE_KINDS).map((t) => `"${t}"`).join(", ")}, got ${show(type, ctx)}`);
  if (kind && declared !== kind) fail(ctx, p, `"${type}" does not match an entry with "${kind === "stdio" ? "command" : "url"}"`);
}

function protocol(ctx: Ctx, path: string, value: unknown): ProtocolSetting {
  if (value === undefined) return "auto";
  if (typeof value !== "string") return fail(ctx, path, expected("a string", value)) ?? "auto";
  if ((PROTOCOL_SETTINGS as readonly string[]).includes(value)) return value as ProtocolSetting;
  return fail(ctx, path, `must be one of ${PROTOCOL_SETTINGS.map((p) => `"${p}"`).join(", ")}, got ${show(value, ctx)} ("auto" probes with server/discover and falls back to initialize)`) ?? "auto";
}

/** A connector's "pins": pin (default), auto-accept or off (spec/pins.md). */
function pinPolicy(ctx: Ctx, path: string, value: unknown): PinPolicySetting {
  if (value === undefined) return "pin";
  if (typeof value !== "string") return fail(ctx, path, expected("a string", value)) ?? "pin";
  if ((PIN_POLICY_SETTINGS as readonly string[]).includes(value)) return value as PinPolicySetting;
  return fail(ctx, path, `must be one of ${PIN_POLICY_SETTINGS.map((p) => `"${p}"`).join(", ")}, got ${show(value, ctx)} ("pin" quarantines a changed or new tool until \`atrium pins accept\`; "auto-accept" records changes without quarantine; "off" pins nothing)`) ?? "pin";
}

/** A connector's "data": "private" marks its results private (spec/data-flow.md); left out, they are not. */
function dataSetting(ctx: Ctx, path: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (value === "private") return true;
  if (typeof value !== "string") return fail(ctx, path, expected("a string", value)) ?? false;
  return fail(ctx, path, `must be "private" (its results are private: files, mail, a database) or left out, got ${show(value, ctx)}`) ?? false;
}

function sandboxOf(ctx: Ctx, block: Obj): SandboxConfig {
  return limits(ctx, "atrium.sandbox", block, SANDBOX_LIMITS);
}

function viewsOf(ctx: Ctx, block: Obj): ViewsConfig {
  const modes = Object.keys(DeliveryOverride) as DeliveryOverrideName[];
  const d = own(block, "delivery");
  let delivery: DeliveryOverrideName = "auto";
  if (d !== undefined) {
    if (typeof d !== "string") fail(ctx, "atrium.views.delivery", expected("a string", d));
    else if (!(modes as string[]).includes(d)) fail(ctx, "atrium.views.delivery", `must be one of ${modes.map((m) => `"${m}"`).join(", ")}, got ${show(d, ctx)}`);
    else delivery = d as DeliveryOverrideName;
  }
  const dir = own(block, "directory");
  return {
    delivery,
    fileFallback: bool(ctx, "atrium.views.fileFallback", own(block, "fileFallback"), true),
    directory: dir === null ? null : (text(ctx, "atrium.views.directory", dir) ?? null),
  };
}

/** atrium.search: semantic on by default; an embedder needs a URL and a model, its API is read from the path when not given. */
function searchOf(ctx: Ctx, block: Obj): SearchConfig {
  const semantic = bool(ctx, "atrium.search.semantic", own(block, "semantic"), true);
  const raw = own(block, "embedder");
  if (raw === undefined || raw === null) return { semantic, embedder: null };
  const path = "atrium.search.embedder";
  const e = section(ctx, path, raw, EMBEDDER_KEYS);
  if (!isJsonObject(raw)) return { semantic, embedder: null };
  const url = httpUrl(ctx, `${path}.url`, own(e, "url"));
  const model = text(ctx, `${path}.model`, own(e, "model"));
  if (own(e, "url") === undefined) fail(ctx, `${path}.url`, `missing: the endpoint atrium POSTs texts to, e.g. "http://localhost:11434/api/embed" (Ollama) or "http://localhost:8080/v1/embeddings" (OpenAI-compatible)`);
  if (own(e, "model") === undefined) fail(ctx, `${path}.model`, `missing: the model name the endpoint serves`);
  const a = own(e, "api");
  let api: EmbedApi = url ? apiOf(url) : "openai";
  if (a !== undefined) {
    if (typeof a === "string" && (EMBED_APIS as readonly string[]).includes(a)) api = a as EmbedApi;
    else fail(ctx, `${path}.api`, typeof a === "string" ? `must be one of ${EMBED_APIS.map((x) => `"${x}"`).join(", ")}, got ${show(a, ctx)}` : expected("a string", a));
  }
  const headers = map(ctx, `${path}.headers`, own(e, "headers"), headerName, (p, v) => headerValue(ctx, p, v));
  return { semantic, embedder: url && model ? { url, model, api, headers } : null };
}

/** The API an endpoint speaks when the config does not say: Ollama's path (…/api/embed), else OpenAI's shape. */
const apiOf = (url: string): EmbedApi => (new URL(url).pathname.replace(/\/+$/, "").endsWith("/api/embed") ? "ollama" : "openai");

// ---- numbers: the core judges, the message states the range it accepts ------------------

function limits<K extends string>(ctx: Ctx, path: string, block: Obj, table: Readonly<Record<K, Budget>>): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const key of Object.keys(table) as K[]) out[key] = limit(ctx, `${path}.${key}`, own(block, key), table[key]);
  return out;
}

/** The operator's value when the core accepts it, otherwise the core's default (and an error). */
function limit(ctx: Ctx, path: string, value: unknown, budget: Budget): number {
  const fallback = ctx.core.limitDefault(budget);
  if (value === undefined) return fallback;
  if (typeof value !== "number") return fail(ctx, path, expected("a whole number", value)) ?? fallback;
  const check = ctx.core.limitAccepts(budget, value);
  if (check === LimitCheck.ok) return value;
  if (check === LimitCheck.unknown_budget) return fail(ctx, path, `the decision core does not know budget ${budget}`) ?? fallback;
  const { min, max } = ctx.core.limitRange(budget);
  const accepted = `(accepted: whole numbers from ${min} to ${max}; default ${fallback})`;
  const why = check === LimitCheck.below_min ? `${value} is below the minimum` : check === LimitCheck.above_max ? `${value} is above the maximum` : `must be a whole number, got ${value}`;
  return fail(ctx, path, `${why} ${accepted}`) ?? fallback;
}

