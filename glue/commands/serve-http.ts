// `atrium serve --http`: the same app as stdio, served over Streamable HTTP to many clients and
// principals (glue/http/). Refuses a non-loopback listener without atrium.http.auth. SIGTERM and
// SIGINT drain: new requests get 503, requests in flight finish within http_drain_ms, then the
// sessions and connectors end and the process exits.
import type { AtriumConfig, HttpListen } from "../config/schema.js";
import { startSandboxPool } from "../sandbox/start-pool.js";
import { stateDir } from "../support/state-dir.js";
import { isLoopbackHost } from "../support/loopback-host.js";
import { core } from "../decisions/core.js";
import { Budget, SHUTDOWN_GRACE_MS, STORE_CONNECT_BACKOFF_FIRST_MS } from "../decisions/generated/spec.js";
import { tokenStore } from "../auth/store.js";
import { localOnly, type Authenticator } from "../http/authenticator.js";
import { memoryStore } from "../store/memory-store.js";
import { storeLimits } from "../store/limits.js";
import type { StateStore } from "../store/state-store.js";
import { MCP_PATH } from "../http/paths.js";
import { teamCallbackUrl } from "../support/callback-url.js";
import { TeamCallbacks } from "../auth/team-callbacks.js";
import { startObserver } from "../observability/start.js";

/** Why atrium will not listen on `listen` with this config, or undefined when it may. */
export function listenRefusal(config: AtriumConfig, listen: HttpListen): string | undefined {
  if (config.http.auth || isLoopbackHost(listen.host)) return undefined;
  return `atrium serve --http: refusing to listen on ${listen.host}:${listen.port} without atrium.http.auth: anyone who can reach it would use your connectors. Set atrium.http.auth (an issuer and an audience) or listen on 127.0.0.1`;
}

export async function serveHttp(config: AtriumConfig, listen: HttpListen, version: string, file?: string): Promise<number | undefined> {
  const refusal = listenRefusal(config, listen);
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    return 1;
  }
  const pool = startSandboxPool(config.sandbox);
  const [{ createApp }, { revisionOf }, { openActivityLog }, { createMcpEndpoint }, { startHttpServer }] = await Promise.all([
    import("../app.js"), import("../mcp/server.js"), import("../activity/log.js"), import("../http/mcp-endpoint.js"), import("../http/server.js"),
  ]);
  const c = core();
  const log = config.log.enabled ? openActivityLog(stateDir()) : undefined;
  let http: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  let metricsListener: { url: string; close(): Promise<void> } | undefined;
  const listening = () => http?.url ?? `http://${listen.host}:${listen.port}${MCP_PATH}`;
  // With auth, per-user logins come back to atrium's own callback under its public URL (spec/oauth.md O13).
  const callbacks = config.http.auth ? new TeamCallbacks(c, () => teamCallbackUrl(config.http.publicUrl ?? listening().slice(0, -MCP_PATH.length))) : undefined;
  // Metrics (atrium.http.metrics) and traces (an OTLP endpoint in the environment): glue/observability/.
  const { observer, metrics } = await startObserver({ version, transport: "http", metrics: config.http.metrics.at !== "off" });
  const store = await stateStoreFor(config, (op) => observer.storeError(op));
  if (typeof store === "string") {
    process.stderr.write(`${store}\n`);
    return 1;
  }
  const shared = shareAcrossReplicas(store, callbacks);
  const app = createApp(config, version, pool, log, file === undefined ? undefined : { file }, { shared: true, callbacks, store, observer });
  app.pins.watch();
  const authenticator: Authenticator = await authenticatorFor(config, resourceOf(config, listening));
  const limits = { maxBytes: c.limitDefault(Budget.request_line_bytes), maxDepth: c.limitDefault(Budget.request_depth), maxIdBytes: c.limitDefault(Budget.echo_clamp_chars) };
  const endpoint = createMcpEndpoint({
    serverFor: (revision, principal) => app.serverFor(revision, principal),
    revisionOf,
    maxBodyBytes: limits.maxBytes,
    maxSessions: c.limitDefault(Budget.http_sessions),
    sessionIdleMs: c.limitDefault(Budget.http_session_idle_ms),
    records: store.sessions,
    bus: store.bus,
  });
  // 2026-07-28 hosts hear list changes on subscriptions/listen; 2025-11-25 sessions from their own instance.
  app.onToolsChanged(() => endpoint.notify.toolsChanged());
  app.onPromptsChanged(() => endpoint.notify.promptsChanged());
  try {
    http = await startHttpServer({
      host: listen.host, port: listen.port, endpoint, authenticator, limits, rates: store.rates,
      origins: { allowedOrigins: config.http.allowedOrigins, loopback: isLoopbackHost(listen.host), publicHost: config.http.publicUrl ? new URL(config.http.publicUrl).hostname : undefined },
      headerBytes: c.limitDefault(Budget.http_header_bytes),
      headersTimeoutMs: c.limitDefault(Budget.http_headers_timeout_ms),
      requestTimeoutMs: c.limitDefault(Budget.http_request_timeout_ms),
      callbacks,
      // Ready when the store answers (always, in memory).
      ready: async () => shared.loaded() && (await store.ready()),
      log: (line) => void process.stderr.write(`${line}\n`),
      observe: (method, path) => observer.request(method, path),
      metrics: metrics && config.http.metrics.at === "listener" ? () => metrics.scrape() : undefined,
    });
    if (metrics && config.http.metrics.at === "own") metricsListener = await (await import("../observability/metrics.js")).startMetricsListener(metrics, config.http.metrics.listen, { headerBytes: c.limitDefault(Budget.http_header_bytes), headersTimeoutMs: c.limitDefault(Budget.http_headers_timeout_ms), requestTimeoutMs: c.limitDefault(Budget.http_request_timeout_ms) });
  } catch (e) {
    process.stderr.write(`atrium serve --http: cannot listen on ${http && config.http.metrics.at === "own" ? `${config.http.metrics.listen.host}:${config.http.metrics.listen.port} (atrium.http.metrics)` : `${listen.host}:${listen.port}`}: ${(e as Error).message}\n`);
    await http?.close();
    app.registry.killAll();
    return 1;
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.reload?.close();
    const graceMs = c.limitDefault(Budget.http_drain_ms);
    process.stderr.write(`atrium: stopping (${signal}): new requests get 503; ${http.inFlight} in flight may finish within ${graceMs} ms\n`);
    await http.drain(graceMs);
    await Promise.all([http.close(), metricsListener?.close()]);
    await store.close();
    await Promise.race([Promise.all([app.registry.stopAll().then(() => log?.flush()), observer.shutdown().catch(() => {})]), new Promise((r) => setTimeout(r, SHUTDOWN_GRACE_MS).unref())]);
    app.registry.killAll();
    process.exit(0);
  };
  process.on("exit", () => app.registry.killAll());
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  process.stderr.on("error", () => {});
  const started = app.registry.startAll();
  void started.then(() => app.semantic.start());
  if (metricsListener) process.stderr.write(`atrium: metrics at ${metricsListener.url} (atrium.http.metrics)\n`);
  process.stderr.write(`atrium ${version} is serving MCP at ${http.url} (Streamable HTTP, both revisions${config.http.auth ? `; tokens from ${config.http.auth.issuer}` : "; this machine only, no sign-in"}).\n`);
  return undefined;
}

/** atrium.store's Redis when configured (loaded only then), else this process's memory; why not, when per-user connectors need ATRIUM_STORE_KEY and it is missing or malformed. */
async function stateStoreFor(config: AtriumConfig, failed: (op: string) => void): Promise<StateStore | string> {
  const limits = storeLimits(core(), config.results);
  if (!config.store) return memoryStore(core(), limits);
  const [{ redisStore }, { storeKeyOf }] = await Promise.all([import("../store/redis-store.js"), import("../store/login-cipher.js")]);
  const key = storeKeyOf(process.env.ATRIUM_STORE_KEY);
  const perUser = config.connectors.filter((c) => c.kind === "http" && c.auth === "per-user").map((c) => c.id);
  if (typeof key === "string" && perUser.length > 0) return `atrium serve --http: ${perUser.join(", ")} ${perUser.length === 1 ? "logs" : "log"} each person in ("auth": "per-user"), and with atrium.store those logins are kept in the store, sealed with a key: ${key}. Set it on every replica (the same key), or drop "per-user"`;
  return redisStore(core(), config.store, limits, { log: (line) => void process.stderr.write(`${line}\n`), failed }, typeof key === "string" ? undefined : key);
}

/**
 * With a shared store: pins, per-user logins and login callbacks are every replica's. The pins and
 * logins are read in once the store answers (tried again until then); until they are, this replica
 * is not ready (/readyz 503): every tool without an accepted pin stays quarantined, and no one is
 * asked to log in again only because it started.
 */
function shareAcrossReplicas(store: StateStore, callbacks: TeamCallbacks | undefined): { loaded: () => boolean } {
  if (store.bus && callbacks) void callbacks.share(store.bus).catch(() => {});
  if (store.logins) tokenStore().shareOthers(store.logins);
  const parts = [
    ...(store.pins ? [{ what: "the pins are", part: store.pins }] : []),
    ...(store.logins ? [{ what: "per-user logins are", part: store.logins }] : []),
  ];
  let left = parts.length;
  for (const { what, part } of parts) {
    let said = false;
    const load = async (): Promise<void> => {
      try {
        // A store that does not answer yet says so itself (and /readyz); only a failed read is worth a line here.
        if (await store.ready()) {
          await part.start();
          left--;
          return;
        }
      } catch (e) {
        if (!said) process.stderr.write(`atrium: ${what} not read from the shared store yet (${(e as Error).message}); trying again, not ready meanwhile\n`);
        said = true;
      }
      setTimeout(() => void load(), STORE_CONNECT_BACKOFF_FIRST_MS).unref();
    };
    void load();
  }
  return { loaded: () => left === 0 };
}

/** localOnly without atrium.http.auth; else the token verifier, its issuer's key set fetched once before the first request (a failure leaves /readyz at 503 and tokens at 503 until it answers). */
async function authenticatorFor(config: AtriumConfig, resource: () => string): Promise<Authenticator> {
  if (!config.http.auth) return localOnly;
  const { createJwtAuthenticator } = await import("../http/jwt-authenticator.js");
  const authenticator = createJwtAuthenticator({ auth: config.http.auth, resource, core: core(), log: (line) => void process.stderr.write(`${line}\n`) });
  await authenticator.keys.keys();
  return authenticator;
}

/** RFC 9728's resource: the MCP endpoint at atrium.http.publicUrl, else at the address it listens on. */
const resourceOf = (config: AtriumConfig, listening: () => string) => () => (config.http.publicUrl ? `${config.http.publicUrl.replace(/\/$/, "")}${MCP_PATH}` : listening());
