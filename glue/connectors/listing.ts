// A connector's tool listing: every page of tools/list (at most CONNECTOR_LIST_PAGES_MAX, the
// shortest ttlMs a page carried kept for freshness.ts); the first definition of each name kept
// and the names listed more than once remembered (spec R11: never read-only); a name with a
// control, bidi or zero-width character refused (N10), said once on stderr; and the refresh after
// a list change: fail closed at once (R10: not read-only until the new list is in), then read
// again, retried with the connector's backoff.
import type { Client } from "@modelcontextprotocol/client";
import { AtriumError } from "../support/errors.js";
import { escapeShown } from "../support/text/escape.js";
import { toolNameTextOf } from "../decisions/facts/pins.js";
import { core } from "../decisions/core.js";
import { CONNECTOR_LIST_PAGES_MAX, ToolNameAnswer } from "../decisions/generated/spec.js";
import { LooseResult, readToolsPage, type DownstreamTool } from "./downstream-shapes.js";

/** What the listing needs of its connector. */
export interface ListingHost {
  readonly id: string;
  /** The connection the connector holds now: a listing read on another one is dropped. */
  current(): Client | undefined;
  /** A new list is in, read on `client` (its ttlMs for the freshness timer). */
  listed(client: Client, ttlMs: number | undefined): void;
  /** The listing changed state (refreshing or settled): the connector's change signal. */
  changed(): void;
  /** A refresh failed: `cause` is what started it. */
  refreshFailed(e: unknown, cause: string): void;
  /** The connector's backoff for a step, and how many re-reads it makes before giving up (connector_start_retries). */
  backoff(step: number): number;
  readonly retries: number;
  /** Each read's deadline (startTimeoutMs). */
  readonly timeoutMs: number;
}

/** Every page of tools/list, and the shortest ttlMs a page carried (2026-07-28). */
export async function readAllTools(client: Client, timeoutMs: number): Promise<{ tools: DownstreamTool[]; ttlMs?: number }> {
  const tools: DownstreamTool[] = [];
  let ttlMs: number | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < CONNECTOR_LIST_PAGES_MAX; page++) {
    const raw = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, LooseResult, { timeout: timeoutMs });
    const read = readToolsPage(raw);
    tools.push(...read.tools);
    if (read.ttlMs !== undefined) ttlMs = Math.min(ttlMs ?? read.ttlMs, read.ttlMs);
    if (!read.nextCursor || read.nextCursor === cursor) break;
    cursor = read.nextCursor;
  }
  return { tools, ttlMs };
}

export class ToolListing {
  tools: DownstreamTool[] = [];
  /** Names the listing carried more than once (spec R11: never read-only). */
  duplicates = new Set<string>();
  /** Tool names refused at listing for a control, bidi or zero-width character (not listed, not callable); each is said once on stderr. */
  readonly refusedNames = new Set<string>();
  /** From a list change until the new list is in (spec R10: never read-only). */
  refreshing = false;
  /** The re-read in progress, while there is one (a call waits for it: whenSettled). */
  rereading?: Promise<void>;
  /** The re-read after a list change used up its retries: no longer recovering by itself. */
  private gaveUp = false;
  /** What started the refresh in progress, for its words. */
  private cause = "announced that its tools changed";

  constructor(private readonly host: ListingHost) {}

  /**
   * Keeps the first definition of each name and remembers the names listed more than once. A name
   * with a control, bidi or zero-width character (a line break, an ESC) could lay out or repaint
   * the lines it is shown on, or read as another name: refused, said once on stderr, escaped.
   */
  set(listed: DownstreamTool[]): void {
    const seen = new Set<string>();
    const duplicates = new Set<string>();
    const tools: DownstreamTool[] = [];
    for (const t of listed) {
      if (core().toolName(toolNameTextOf(t.name)) === ToolNameAnswer.refused) this.refuseName(t.name); // N10
      else if (seen.has(t.name)) duplicates.add(t.name);
      else { seen.add(t.name); tools.push(t); }
    }
    this.tools = tools;
    this.duplicates = duplicates;
  }

  /** The connection is gone (lost, or its login ended): no tools until a new listing. */
  clear(): void {
    this.tools = [];
    this.duplicates = new Set();
    this.refreshing = false;
  }

  /** tools/list_changed (or a listing past its ttlMs) on `client`: fail closed at once, then fetch the new list (retried with backoff). */
  changed(client: Client, cause: string): void {
    if (client !== this.host.current()) return;
    this.refreshing = true;
    this.cause = cause;
    this.gaveUp = false;
    this.host.changed();
    this.rereading ??= this.reread(client).finally(() => { this.rereading = undefined; });
  }

  /** A listing that is still changing after the wait: the call cannot be judged yet. `connected`: the connector holds a connection. */
  unsettled(connected: boolean, problem: string | undefined, state: string): AtriumError {
    const recovering = connected && !this.gaveUp;
    const why = recovering ? "the new list is not in yet; retry shortly" : `no new list could be read (${problem ?? "it failed"}); its tools stay behind approval until it announces another change or restarts`;
    return new AtriumError("unavailable", `connector ${this.host.id} ${this.cause} and ${why}`, { details: { connector: this.host.id, state }, recovering });
  }

  private async reread(client: Client): Promise<void> {
    for (let i = 0; client === this.host.current(); i++) {
      try {
        const listed = await readAllTools(client, this.host.timeoutMs);
        if (client !== this.host.current()) return;
        this.set(listed.tools);
        this.host.listed(client, listed.ttlMs);
        this.refreshing = false;
        this.host.changed();
        return;
      } catch (e) {
        this.host.refreshFailed(e, this.cause);
        if (i >= this.host.retries) { this.gaveUp = true; return; }
        await new Promise((r) => setTimeout(r, this.host.backoff(i)).unref());
      }
    }
  }

  private refuseName(name: string): void {
    if (this.refusedNames.has(name)) return;
    this.refusedNames.add(name);
    process.stderr.write(`atrium: connector ${this.host.id} refused the tool name "${escapeShown(name)}": it carries a control, bidi or zero-width character, so it is not listed and cannot be called\n`);
  }
}
