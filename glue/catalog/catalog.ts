// The merged catalog of every connector's tools, each classified by the core
// (spec/read-only.md) with the operator's lists; the search index is rebuilt lazily
// whenever a connector's tools or state change, or the pin file does (each tool carries its pin's
// verdict, glue/pins/service.ts). It hands out entries and read-only views of connectors, never a
// live connector: only calls/invoke.ts reaches one, through the Downstream port app.ts grants it.
import type { Core } from "../decisions/core.js";
import type { ConnectorRegistry } from "../connectors/registry.js";
import { LOCAL_PRINCIPAL } from "../support/principal.js";
import { hintOf, operatorOf } from "../decisions/facts/annotations.js";
import { appVisibilityOf, uiResourceOf } from "../decisions/facts/app-ui.js";
import { CATALOG_SCOPES_CACHED, ClassReason, Listing, ToolClass } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";
import { AtriumError, clampEcho, type NextAction } from "../support/errors.js";
import type { CatalogEntry, Safety } from "./entry.js";
import { buildSearchIndex, type SearchIndex } from "./search-index.js";
import type { PinService, PinVerdict } from "../pins/service.js";
import { whereOf } from "../pins/pin-file.js";
import { NO_PIN_FACTS } from "../pins/facts.js";
import { matchName, nearestAddresses, splitAddress, type Match } from "./resolver.js";
import { nearestNames } from "../support/text/nearest-names.js";
import { addressText } from "../decisions/messages.js";
import { stripTerminalSequences } from "../support/text/escape.js";

/** Without a pin service (a test's catalog), every tool is judged as with pins "off". */
const UNPINNED: PinVerdict = { state: "matches", facts: NO_PIN_FACTS };

export interface Resolved { entry: CatalogEntry }

/** An address as a caller wrote it, read once (split and matched, catalog/resolver.ts): the
 * connector it names, to wait for, and the tool it resolves to. */
export interface Located {
  /** A read-only view of the connector the address names (by its id or its identifier), if it names exactly one. */
  readonly view?: ConnectorView;
  /** The entry, or a typed error, on the catalog as it is when asked: read again only when the
   * catalog changed since (a wait for the connector, a reload). */
  resolve(): Resolved;
}

/** What anyone may know of a connector, and wait for: no way to call it, read it or change it. */
export interface ConnectorView {
  readonly id: string;
  readonly state: string;
  readonly toolCount: number;
  /** Its listing is changing (2026-07-28: not read-only until the new list is in). */
  readonly refreshing: boolean;
  /** Its `"data": "private"` (spec/data-flow.md): a batch holding a call to it gates its egress items as after the read. */
  readonly privateData: boolean;
  /** Waits, bounded by its start deadline or the signal, until it can be judged (never throws for its state). */
  whenSettled(signal?: AbortSignal): Promise<void>;
  /** Its typed `unavailable` for the state it is in now. */
  unavailable(): AtriumError;
  /** Its typed error for a listing still changing after the wait. */
  listingUnsettled(): AtriumError;
}

/** Which connectors one principal may use (catalog/access-scope.ts): `key` names the set, so principals who see the same connectors share one scoped catalog. */
export interface CatalogScope {
  readonly key: string;
  visible(connectorId: string): boolean;
  /** The principal whose own instances of per-user connectors this catalog shows (absent: the configured ones). */
  readonly owner?: string;
}

interface Built { entries: CatalogEntry[]; byAddress: Map<string, CatalogEntry>; index?: SearchIndex; version: number }

export class Catalog {
  private cache?: Built;
  private builds = 0;
  /** On the whole catalog: its scoped catalogs, least recently used first. */
  private readonly scopes = new Map<string, Catalog>();

  constructor(private readonly registry: ConnectorRegistry, private readonly core: Core, private readonly pins?: PinService, private readonly scoped?: { scope: CatalogScope; whole: Catalog }) {
    if (scoped) return; // a scoped catalog follows the whole one's version
    registry.onChange(() => { this.cache = undefined; });
    pins?.onChange(() => { this.cache = undefined; });
  }

  /**
   * The catalog as a principal with this scope sees it: a connector outside the scope is absent
   * from every answer (entries, search, program globals, views of connectors, resolve: its address
   * answers as one that never existed). Without a scope, or with one that admits every connector,
   * the whole catalog.
   */
  scopedTo(scope: CatalogScope | undefined): Catalog {
    if (!scope || this.scoped) return this;
    let c = this.scopes.get(scope.key);
    if (c) this.scopes.delete(scope.key);
    else c = new Catalog(this.registry, this.core, this.pins, { scope, whole: this });
    this.scopes.set(scope.key, c);
    if (this.scopes.size > CATALOG_SCOPES_CACHED) this.scopes.delete(this.scopes.keys().next().value!);
    return c;
  }

  /** The principal whose per-user connections this catalog shows and calls (`local`: the configured ones). */
  get owner(): string {
    return this.scoped?.scope.owner ?? LOCAL_PRINCIPAL.id;
  }

  /** The connectors this catalog shows (all of them, or its scope's, per-user ones as its owner's instances). */
  private connectors() {
    if (!this.scoped) return this.registry.connectors;
    const { scope } = this.scoped;
    return this.seen().filter((c) => scope.visible(c.id));
  }

  /** Every connector as this catalog's owner sees it. */
  private seen() {
    const owner = this.scoped?.scope.owner;
    return owner === undefined ? this.registry.connectors : this.registry.seenBy(owner);
  }

  /** The connector with this id as this catalog's owner sees it. */
  private connector(id: string) {
    const owner = this.scoped?.scope.owner;
    return owner === undefined ? this.registry.get(id) : this.registry.instanceFor(id, owner);
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
    return this.connectors()
      .filter((c) => c.state !== "ready" && !(c.state === "restarting" && c.tools.length > 0))
      .map((c) => {
        const why = c.unavailable();
        return { connector: c.id, state: c.state, problem: why.message, ...(why.nextAction && { nextAction: why.nextAction }) };
      });
  }

  /** Connectors whose start is not done yet (an attempt in progress, or the next one scheduled):
   * search says so first, since their tools are not in its answer. */
  starting(): { connector: string; startMs: number; nextAttemptAt?: number }[] {
    return this.connectors()
      .filter((c) => c.state === "starting" || c.state === "retrying")
      .map((c) => ({ connector: c.id, startMs: c.config.startTimeoutMs, ...(c.nextAttemptAt !== undefined && { nextAttemptAt: c.nextAttemptAt }) }));
  }

  /** Ids of the connectors that are not disabled (each gets a program global). */
  connectorIds(): string[] {
    return this.connectors().filter((c) => c.state !== "disabled").map((c) => c.id);
  }

  /** Ids of every configured connector, disabled ones too (what a connector filter may name). */
  connectorNames(): string[] {
    return this.connectors().map((c) => c.id);
  }

  /** A read-only view of the connector an address names, by its id or its identifier (catalog/resolver.ts), if it names
   * exactly one: so a caller can wait for that one alone. */
  viewOf(address: unknown): ConnectorView | undefined {
    return this.locate(address).view;
  }

  /** `<connectorId>.<toolName>` (or its identifier form) → the entry, or a typed
   * error: ambiguous_tool_alias, or unknown_address / unknown_tool naming the nearest real addresses. */
  resolve(address: unknown): Resolved {
    return this.locate(address).resolve();
  }

  /** The address read once: the connector it names (a view to wait for) and its resolution (resolve's
   * answer). An exact address is its entry's connector and name, with nothing to split or match. */
  locate(address: unknown): Located {
    let version = this.version;
    const exact = typeof address === "string" ? this.build().byAddress.get(address) : undefined;
    const written = exact ? { connector: exact.connectorId, tool: exact.name } : typeof address === "string" ? splitAddress(address) : undefined;
    let named: Match | undefined = exact ? { name: exact.connectorId } : written && this.named(address as string, written.connector);
    const c = named && "name" in named ? this.connector(named.name) : undefined;
    const view = c && {
      id: c.id,
      get state() { return c.state; },
      get toolCount() { return c.tools.length; },
      get refreshing() { return c.refreshing; },
      privateData: c.config.privateData,
      whenSettled: (signal?: AbortSignal) => c.whenSettled(signal),
      unavailable: () => c.unavailable(),
      listingUnsettled: () => c.listingUnsettled(),
    };
    return {
      view,
      resolve: () => {
        if (version !== this.version) {
          version = this.version;
          named = written && this.named(address as string, written.connector);
        }
        return this.resolveWritten(address, written, named);
      },
    };
  }

  /** The connector a written address names: the exact address's own, else by matching its id or identifier. */
  private named(address: string, connector: string): Match {
    const exact = this.build().byAddress.get(address);
    return exact ? { name: exact.connectorId } : matchName(connector, this.connectorNames());
  }

  private resolveWritten(address: unknown, written: { connector: string; tool: string } | undefined, named: Match | undefined): Resolved {
    const { entries, byAddress } = this.build();
    if (!written || !named) {
      const nearest = typeof address === "string" ? nearestAddresses(address, entries) : [];
      throw new AtriumError("unknown_address", addressText.malformed(clampEcho(address), nearest), { nextAction: searchAction(undefined), ...(nearest.length && { details: { nearest } }) });
    }
    const exact = byAddress.get(address as string);
    if (exact) return { entry: exact };
    const c = named;
    if ("ambiguous" in c) throw new AtriumError("ambiguous_tool_alias", addressText.ambiguousConnector(clampEcho(written.connector), c.ambiguous), { details: { connectors: c.ambiguous } });
    if ("none" in c) {
      const ids = this.connectorNames();
      const nearest = nearestNames(written.connector, ids);
      // A connector outside the scope is one that never existed here: not "removed".
      const removed = this.registry.wasRemoved(written.connector) && (!this.scoped || this.scoped.scope.visible(written.connector));
      throw new AtriumError("unknown_address", addressText.noConnector(clampEcho(written.connector), removed, ids, nearest), { nextAction: searchAction(undefined), ...(nearest.length && { details: { nearest } }) });
    }
    const connector = this.connector(c.name)!;
    const own = entries.filter((e) => e.connectorId === connector.id);
    const t = matchName(written.tool, own.map((e) => e.name));
    if ("name" in t) return { entry: byAddress.get(`${connector.id}.${t.name}`)! };
    if ("ambiguous" in t) {
      const addresses = t.ambiguous.map((n) => `${connector.id}.${n}`);
      throw new AtriumError("ambiguous_tool_alias", addressText.ambiguousTool(clampEcho(`${connector.id}.${written.tool}`), addresses), { details: { candidates: addresses } });
    }
    if (connector.state !== "ready" && connector.tools.length === 0) throw connector.unavailable();
    const nearest = nearestAddresses(written.tool, own);
    throw new AtriumError("unknown_tool", addressText.noTool(connector.id, clampEcho(written.tool), nearest), { nextAction: searchAction(connector.id), ...(nearest.length && { details: { nearest } }) });
  }

  private build(): Built {
    if (this.scoped) {
      const whole = this.scoped.whole.build();
      if (this.cache?.version === whole.version) return this.cache;
      const { scope } = this.scoped;
      // A per-user connector's tools are its owner's instance's listing; every other connector's are the whole catalog's.
      const owned = scope.owner === undefined ? [] : this.seen().filter((c) => c.owner === scope.owner && scope.visible(c.id));
      const ownIds = new Set(owned.map((c) => c.id));
      const entries = [...whole.entries.filter((e) => scope.visible(e.connectorId) && !ownIds.has(e.connectorId)), ...owned.flatMap((c) => this.entriesOf(c))];
      this.cache = { entries, byAddress: new Map(entries.map((e) => [e.address, e])), version: whole.version };
      return this.cache;
    }
    if (this.cache) return this.cache;
    const entries = this.registry.connectors.flatMap((c) => this.entriesOf(c));
    this.cache = { entries, byAddress: new Map(entries.map((e) => [e.address, e])), version: ++this.builds };
    return this.cache;
  }

  /** One connector's tools as catalog entries, each classified by the core with the operator's lists and judged against its pin. */
  private entriesOf(connector: ConnectorRegistry["connectors"][number]): CatalogEntry[] {
    const entries: CatalogEntry[] = [];
    if (connector.state === "disabled") return entries;
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
        // Escape sequences and control characters never reach search rows or describe (the pins read the listing as is).
        title: tool.title === undefined ? undefined : stripTerminalSequences(tool.title),
        description: stripTerminalSequences(tool.description),
        inputSchema: tool.inputSchema,
        safety: d.class === ToolClass.read_only ? "read_only" : "approval",
        reason: codeName(ClassReason, d.reason) ?? "invalid_facts",
        maxResultBytes: connector.config.maxResultBytes,
        ui: uiResourceOf(tool.meta),
        appVisibility: appVisibilityOf(tool.meta),
        appWrites: connector.config.appWrites,
        privateData: connector.config.privateData,
        egress: connector.config.egress,
        pin: pins?.get(tool.name) ?? UNPINNED,
      });
    }
    return entries;
  }
}

function searchAction(connector: string | undefined) {
  return { tool: "search_tools", arguments: connector ? { query: "", connector } : { query: "" }, purpose: "list the addresses that exist" };
}
