// Assembles one atrium process from a validated config: connectors, catalog, result stash,
// host state, meta-tools, the MCP server and the semantic search layer (started by `serve` once it
// serves). Used by `serve`, `doctor` and the tests.
import { core } from "./decisions/core.js";
import type { AtriumConfig } from "./config/schema.js";
import { ConnectorRegistry } from "./connectors/registry.js";
import { Catalog } from "./catalog/catalog.js";
import { ResultStash } from "./results/stash.js";
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
import { AppResources } from "./apps/resources.js";
import { Budget, type Revision } from "./decisions/generated/spec.js";
import type { SandboxPool } from "./sandbox/pool.js";
import { startSandboxPool } from "./sandbox/start-pool.js";
import { SemanticIndex } from "./embeddings/semantic-index.js";
import { toolText } from "./embeddings/tool-text.js";

/** `pool`: serve starts the sandbox workers before it loads the rest, so they warm sooner. */
export function createApp(config: AtriumConfig, version: string, pool: SandboxPool = startSandboxPool(config.sandbox)) {
  const c = core();
  const registry = new ConnectorRegistry(config, version);
  const catalog = new Catalog(registry, c);
  const stash = new ResultStash({ ttlMs: config.results.stashTtlMs, maxBytes: config.results.stashBytes });
  const host = new HostState(c, config.views);
  const viewStore = new ResultStash({ ttlMs: c.limitDefault(Budget.view_store_ttl_ms), maxBytes: c.limitDefault(Budget.view_store_bytes) });
  // authorize_connector reaches connectors only through this port (start again after a login).
  const ports: ConnectorPort[] = registry.connectors.map((c) => ({
    id: c.id,
    config: c.config,
    state: () => c.state,
    toolCount: () => c.tools.length,
    settled: () => c.whenSettled(),
    authorized: () => c.authorized(),
    unavailable: () => c.unavailable(),
  }));
  const authorizer = new Authorizer(() => ports, tokenStore());
  const tools = [executeCode(config), searchTools, callTool, callDestructiveTool, getResult, skills, authorizeConnector, getView, callAppTool] as MetaTool[];
  const appResources = new AppResources({ core: c, catalog });
  // Sentence embeddings for search: nothing loads until serve calls semantic.start(), after it serves.
  const semantic = new SemanticIndex(config.search, { entries: () => catalog.entries().map(toolText) });
  registry.onChange(() => semantic.catalogChanged());
  const deps = { version, tools, host, context: { core: c, catalog, semantic, stash, viewStore, config, pool, authorizer }, appResources };
  /** A server instance for one connection of one revision (serve hands this to the SDK's stdio entry). */
  const serverFor = (revision: Revision) => createServer(deps, revision);
  return { config, registry, catalog, stash, host, serverFor, tools, pool, semantic };
}
