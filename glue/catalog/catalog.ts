// The merged catalog of every connector's tools, each classified by the core
// (spec/read-only.md) with the operator's lists; the search index is rebuilt lazily
// whenever a connector's tools or state change, or the pin file does (each tool carries its pin's
// verdict, glue/pins/service.ts).
import type { Core } from "../decisions/core.js";
import type { ConnectorRegistry } from "../connectors/registry.js";
import type { Connector } from "../connectors/connector.js";
import { hintOf, operatorOf } from "../decisions/facts/annotations.js";
import { appVisibilityOf, uiResourceOf } from "../decisions/facts/app-ui.js";
import { ClassReason, Listing, ToolClass } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";
import { AtriumError, clampEcho, type NextAction } from "../support/errors.js";
import type { CatalogEntry, Safety } from "./entry.js";
import { buildSearchIndex, type SearchIndex } from "./search-index.js";
import type { PinService, PinVerdict } from "../pins/service.js";
import { whereOf } from "../pins/pin-file.js";
import { NO_PIN_FACTS } from "../pins/facts.js";

/** Without a pin service (a test's catalog), every tool is judged as with pins "off". */
const UNPINNED: PinVerdict = { state: "matches", facts: NO_PIN_FACTS };

export interface Resolved { entry: CatalogEntry; connector: Connector }

export class Catalog {
  private cache?: { entries: CatalogEntry[]; byAddress: Map<string, CatalogEntry>; index?: SearchIndex; version: number };
  private builds = 0;

  constructor(private readonly registry: ConnectorRegistry, private readonly core: Core, private readonly pins?: PinService) {
    registry.onChange(() => { this.cache = undefined; });
    pins?.onChange(() => { this.cache = undefined; });
  }

  entries(): CatalogEntry[] {
    return this.build().entries;
  }

  /** Bumps whenever the catalog is rebuilt (a connector's tools or state changed). */
  get version(): number {
    return this.build().version;
  }

  /** An address's class as of now, or "unknown": what a view's manifest is judged on. */
  classOf(address: string): Safety | "unknown" {
    return this.build().byAddress.get(address)?.safety ?? "unknown";
  }

  index(): SearchIndex {
    const c = this.build();
    return (c.index ??= buildSearchIndex(c.entries));
  }

  /** Connectors whose tools are missing from the catalog, and why (search explains them). */
  missing(): { connector: string; state: string; problem: string; nextAction?: NextAction }[] {
    return this.registry.connectors
      .filter((c) => c.state !== "ready" && !(c.state === "restarting" && c.tools.length > 0))
      .map((c) => {
        const why = c.unavailable();
        return { connector: c.id, state: c.state, problem: why.message, ...(why.nextAction && { nextAction: why.nextAction }) };
      });
  }

  /** Ids of the connectors that are not disabled (each gets a program global). */
  connectorIds(): string[] {
    return this.registry.connectors.filter((c) => c.state !== "disabled").map((c) => c.id);
  }

  /** Ids of every configured connector, disabled ones too (what a connector filter may name). */
  connectorNames(): string[] {
    return this.registry.connectors.map((c) => c.id);
  }

  /** The connector an address names, if any (so a caller can wait for that one alone). */
  connectorOf(address: unknown): Connector | undefined {
    if (typeof address !== "string") return undefined;
    const dot = address.indexOf(".");
    return dot > 0 ? this.registry.get(address.slice(0, dot)) : undefined;
  }

  /** `<connectorId>.<toolName>` → the entry and its connector, or a typed error. */
  resolve(address: unknown): Resolved {
    if (typeof address !== "string" || !address.includes(".")) {
      throw new AtriumError("unknown_address", `address must be "<connectorId>.<toolName>", got ${clampEcho(address)}`, { nextAction: searchAction(undefined) });
    }
    const dot = address.indexOf(".");
    const connectorId = address.slice(0, dot);
    const connector = this.registry.get(connectorId);
    if (!connector) {
      const gone = this.registry.wasRemoved(connectorId) ? " (a config reload removed it)" : "";
      throw new AtriumError("unknown_address", `no connector named ${clampEcho(connectorId)}${gone}; connectors: ${this.registry.connectors.map((c) => c.id).join(", ") || "none"}`, { nextAction: searchAction(undefined) });
    }
    const entry = this.build().byAddress.get(address);
    if (!entry) {
      if (connector.state !== "ready" && connector.tools.length === 0) throw connector.unavailable();
      throw new AtriumError("unknown_tool", `connector ${connectorId} has no tool ${clampEcho(address.slice(dot + 1))}`, { nextAction: searchAction(connectorId) });
    }
    return { entry, connector };
  }

  private build() {
    if (this.cache) return this.cache;
    const entries: CatalogEntry[] = [];
    for (const connector of this.registry.connectors) {
      if (connector.state === "disabled") continue;
      const { readOnlyTools, approvalTools } = connector.config;
      const pins = this.pins?.verdicts({ id: connector.id, where: whereOf(connector.config), policy: connector.config.pins, tools: connector.tools });
      for (const tool of connector.tools) {
        const op = operatorOf(readOnlyTools.includes(tool.name), approvalTools.includes(tool.name));
        const listing = connector.refreshing ? Listing.refreshing : connector.duplicates.has(tool.name) ? Listing.duplicate : Listing.settled;
        const d = this.core.classifyTool(hintOf(tool.annotations, "readOnlyHint"), hintOf(tool.annotations, "destructiveHint"), op, listing);
        entries.push({
          address: `${connector.id}.${tool.name}`,
          connectorId: connector.id,
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          safety: d.class === ToolClass.read_only ? "read_only" : "approval",
          reason: codeName(ClassReason, d.reason) ?? "invalid_facts",
          maxResultBytes: connector.config.maxResultBytes,
          ui: uiResourceOf(tool.meta),
          appVisibility: appVisibilityOf(tool.meta),
          appWrites: connector.config.appWrites,
          pin: pins?.get(tool.name) ?? UNPINNED,
        });
      }
    }
    this.cache = { entries, byAddress: new Map(entries.map((e) => [e.address, e])), version: ++this.builds };
    return this.cache;
  }
}

function searchAction(connector: string | undefined) {
  return { tool: "search_tools", arguments: connector ? { query: "", connector } : { query: "" }, purpose: "list the addresses that exist" };
}
