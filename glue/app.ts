// Assembles one atrium process from a validated config: connectors, catalog, result stash,
// host state, pins, meta-tools, the MCP server and the semantic search layer (started by
// `serve` once it serves and the connectors' first starts settled). Used by `serve`, `doctor` and the tests. `activity`
// is where events go (serve passes the activity log when atrium.log.enabled; others, nowhere):
// the meta-tools, invoke.ts and the approvals get it through the tool context, connector state
// changes reach it through the registry's change signal, config reloads through the watcher, and
// tools newly quarantined by the pin check (pins/service.ts) through its hook.
// The config is held by `running` (a reload replaces it): each tool call reads it when it starts.
import { MemoryProgramSlots } from "./mcp/program-slots.js";
import { ParkedRuns } from "./mcp/parked-runs.js";
import { core } from "./decisions/core.js";
import type { AtriumConfig } from "./config/schema.js";
import { RunningConfig } from "./config/running.js";
import { ConfigReloader, type ReloadOutcome, type ReloadStatusBody } from "./config/reload.js";
import { ConfigWatcher } from "./config/watch.js";
import { writeReloadStatus } from "./config/reload-status.js";
import { ConnectorRegistry } from "./connectors/registry.js";
import { Catalog } from "./catalog/catalog.js";
import { accessScope, ownedScope } from "./catalog/access-scope.js";
import { memoryStore } from "./store/memory-store.js";
import { storeLimits } from "./store/limits.js";
import type { StateStore } from "./store/state-store.js";
import { HostState } from "./decisions/host-detection.js";
import { createServer } from "./mcp/server.js";
import { searchTools } from "./mcp/tools/search-tools.js";
import { callDestructiveTool, callTool } from "./mcp/tools/call-tool.js";
import { getResult } from "./mcp/tools/get-result.js";
import { skills } from "./mcp/tools/skills.js";
import type { MetaTool } from "./mcp/tools/meta-tool.js";
import { executeCode } from "./mcp/tools/execute-code.js";
import { getView } from "./mcp/tools/get-view.js";
import { callAppTool } from "./mcp/tools/call-app-tool.js";
import { authorizeConnector } from "./mcp/tools/authorize-connector.js";
import { Authorizer, type ConnectorPort } from "./auth/authorizer.js";
import { tokenStore } from "./auth/store.js";
import type { TeamCallbacks } from "./auth/team-callbacks.js";
import { AppResources } from "./apps/resources.js";
import { DownstreamPrompts } from "./calls/prompts.js";
import { DownstreamAccess } from "./calls/invoke.js";
import { askerFor, type HostToAsk } from "./calls/downstream-questions.js";
import { STORE_OP_MS, type Revision } from "./decisions/generated/spec.js";
import type { SandboxPool } from "./sandbox/pool.js";
import { startSandboxPool } from "./sandbox/start-pool.js";
import { noActivity, type ActivitySink } from "./activity/events.js";
import { watchConnectors } from "./activity/connector-watch.js";
import { SemanticIndex } from "./embeddings/semantic-index.js";
import { toolText } from "./embeddings/tool-text.js";
import type { Principal } from "./support/principal.js";
import { noObserver, type Observer } from "./observability/observer.js";

import { PinService } from "./pins/service.js";
import { PinFile } from "./pins/pin-file.js";
import type { PinStorage } from "./pins/pin-storage.js";

/** serve's live reload: the config file it was started with, and who else hears each outcome. */
export interface LiveConfig { file: string; onReload?: (outcome: ReloadOutcome) => void; log?: (line: string) => void }

/** `pool`: serve starts the sandbox workers before it loads the rest, so they warm sooner (none handed in: started when first asked for). `live`: watch the config file. */
/** How the app is served: `shared` (team mode, many principals) never hands a downstream's question to a host connection, since it cannot yet tell whose call asked it; it is declined with the reason. */
export interface ServeMode {
  shared: boolean;
  /** Team mode with auth: atrium's own login callback, where per-user logins' browsers come back (serve-http routes it). */
  callbacks?: TeamCallbacks;
  /** Where the pins are, when not the store's or this machine's pin file (doctor with atrium.store). */
  pins?: PinStorage;
  /** Where state that outlives a request is kept (serve --http: memory or atrium.store); else this process's memory. */
  store?: StateStore;
  /** Metrics and traces (glue/observability/): each downstream call, program run and meta-tool call, and the connectors' states. */
  observer?: Observer;
}

export function createApp(config: AtriumConfig, version: string, pool?: SandboxPool, activity: ActivitySink = noActivity, live?: LiveConfig, mode: ServeMode = { shared: false }) {
  const c = core();
  // Without a pool handed in (doctor, which runs no program; tests) the workers start when the pool is first asked for.
  const sandbox = () => (pool ??= startSandboxPool(config.sandbox));
  const running = new RunningConfig(config);
  const registry = new ConnectorRegistry(config, version);
  const observer = mode.observer ?? noObserver;
  observer.connectors(() => registry.connectors);
  watchConnectors(() => registry.connectors, (listener) => registry.onChange(listener), activity);
  const pins = new PinService(c, mode.pins ?? mode.store?.pins ?? new PinFile(), { onQuarantine: (connector, tool, reason) => activity.quarantine(connector, tool, reason) });
  const catalog = new Catalog(registry, c, pins);
  // Each new listing is judged against its pins as it comes in (pending changes recorded, the
  // quarantine heard of), not only when a search or a call first builds the catalog.
  registry.onChange(() => setImmediate(() => catalog.entries()).unref());
  // Results and views: this process's memory, or the shared store serve --http hands in (atrium.store).
  const state = mode.store ?? memoryStore(c, storeLimits(c, config.results));
  const { results: stash, views: viewStore } = state;
  const host = new HostState(c, () => running.current.views);
  // authorize_connector reaches connectors only through this port (start again after a login).
  // The registry's connectors as they are now (a reload adds and removes some).
  const ports = (owner: string): ConnectorPort[] => registry.seenBy(owner).map((c) => ({
    id: c.id,
    config: c.config,
    state: () => c.state,
    toolCount: () => c.tools.length,
    settled: () => c.whenSettled(),
    authorized: () => c.authorized(),
    unavailable: () => c.unavailable(),
  }));
  const authorizer = new Authorizer(ports, tokenStore(), undefined, mode.callbacks);
  // calls/invoke.ts alone calls a connector, reads its resources or asks its prompts: through this
  // port, closed in a DownstreamAccess every other part passes along and none can open.
  const downstream = DownstreamAccess.grant({
    link: (id, owner) => {
      const connector = registry.instanceFor(id, owner);
      return connector && {
        call: (name, args, opts) => observer.downstream(id, name, () => connector.call(name, args, opts)),
        readResource: (uri, opts) => connector.readResource(uri, opts),
        prompts: (method, params, opts) => connector.prompts(method, params, opts),
        offersPrompts: () => connector.offersPrompts,
        ready: () => connector.state === "ready",
        stopped: () => connector.state === "stopped",
        redactsSecrets: () => connector.config.redactSecrets,
        unavailable: () => connector.unavailable(),
      };
    },
  });
  const tools = [executeCode(() => running.current, observer), searchTools, callTool, callDestructiveTool, getResult, skills, authorizeConnector, getView, callAppTool] as MetaTool[];
  const appResources = new AppResources({ core: c, catalog, downstream });
  // Downstream prompts, fetched through invoke.ts; each connector's prompts/list_changed reaches every host connection.
  const downstreamPrompts = new DownstreamPrompts(catalog, downstream);
  // A connector that offers prompts coming up (its first start, a restart, a reload) or going is a change of the prompt list too.
  let offeringPrompts = "";
  registry.onChange(() => {
    const now = registry.connectors.filter((k) => k.offersPrompts).map((k) => k.id).join("\n");
    if (now !== offeringPrompts) { offeringPrompts = now; registry.passthrough.promptsChanged(); }
  });
  const prompts = { list: (signal: AbortSignal, scoped: Catalog) => downstreamPrompts.list(signal, scoped), get: (name: string, args: Record<string, string> | undefined, signal: AbortSignal, scoped: Catalog) => downstreamPrompts.get(name, args, signal, scoped), onChanged: (listener: () => void) => registry.passthrough.onPromptsChanged(listener) };
  // Sentence embeddings for search: nothing loads until serve calls semantic.start().
  const semantic = new SemanticIndex(config.search, { entries: () => catalog.entries().map(toolText) });
  registry.onChange(() => semantic.catalogChanged());
  // A reload that applied may change execute_code's description: every host connection is told.
  const toolsChanged = new Set<() => void>();
  const onToolsChanged = (listener: () => void) => { toolsChanged.add(listener); return () => { toolsChanged.delete(listener); }; };
  // A downstream's question goes to the host connection that can be asked, judged by the core (P12).
  const questions = { hostConnected: (h: HostToAsk) => (mode.shared ? () => {} : registry.passthrough.askWith(askerFor(c, h))) };
  // Each request sees the catalog its principal may use under the rules in force (a reload applies to the next request).
  // A principal other than `local` sees per-user connectors as its own instances: its scope names it as the owner.
  const catalogFor = (principal: Principal) => catalog.scopedTo(ownedScope(accessScope(c, running.current.access, principal, catalog.connectorNames()), principal, registry.hasPerUser()));
  // Runs parked on a 2026-07-28 question; with replicas, a retry for another's run is carried there (a leg lasts at most a run's wall time).
  const parked = new ParkedRuns(state.bus && { bus: state.bus, waitMs: () => running.current.sandbox.programWallMs + STORE_OP_MS });
  void parked.listen();
  const deps = { version, tools, host, onToolsChanged, catalogFor, context: { core: c, catalog, downstream, semantic, stash, viewStore, parked, programSlots: new MemoryProgramSlots(c), get config() { return running.current; }, get pool() { return sandbox(); }, authorizer, activity }, appResources, prompts, questions, observer };
  /** A server instance for one connection of one revision, acting for one principal (`local` unless HTTP auth names one). */
  const serverFor = (revision: Revision, principal?: Principal) => createServer(deps, revision, principal);
  const reload = live && watchConfig({ ...live, onReload: (o) => { activity.configReload(o); if (o.ok) for (const l of toolsChanged) l(); live.onReload?.(o); } }, c, running, registry);
  return { config, running, registry, catalog, state, host, serverFor, tools, get pool() { return sandbox(); }, reload, pins, semantic, onToolsChanged, onPromptsChanged: prompts.onChanged };
}

/** Watches the config file; each settled edit is judged and applied or refused (config/reload.ts), and written where doctor reads it. */
function watchConfig(live: LiveConfig, c: ReturnType<typeof core>, running: RunningConfig, registry: ConnectorRegistry) {
  const log = live.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  let statusWarned = false;
  const status = (body: ReloadStatusBody) => {
    const failed = writeReloadStatus({ config: live.file, pid: process.pid, at: new Date().toISOString(), ...body });
    if (failed && !statusWarned) log(`atrium: ${failed}; atrium doctor will not show reload outcomes`);
    statusWarned ||= failed !== undefined;
  };
  const watcher: ConfigWatcher = new ConfigWatcher(live.file, () => reloader.check(), log);
  const reloader = new ConfigReloader({ path: live.file, core: c, running, applyConnectors: (next) => registry.apply(next), log, status, again: () => watcher.again(), onReload: live.onReload });
  watcher.start();
  return { reloader, close: () => watcher.close() };
}
