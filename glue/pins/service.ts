// The pin service of one atrium process: judges each connector's listing against its pins (when
// the catalog is built from a new listing: at start, after tools/list_changed, after a refresh),
// records first-seen and auto-accepted pins and the pending changes it quarantines (read, change,
// write: the operator's `atrium pins accept` between two writes is kept), and watches where they are
// kept (pin-storage.ts: the pin file, or the shared store replicas use) so an accept or reject from
// the terminal is judged again. Until the pins are read again, a quarantined tool stays quarantined (fail closed). Whether a tool
// may run is the core's pinGate; this service only gathers its facts and does what it answers.
import type { Core, PinFacts } from "../decisions/core.js";
import { PinAnswer, PinReason, type PinReasonName, type PinStateName } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";
import { pinOf, type Pinned, type PinnableTool } from "./digest.js";
import { flagsOf, type Flag } from "./suspicious.js";
import { pinFactsOf, type PinPolicySetting } from "./facts.js";
import { connectorKey, PinFile, recordFor, type ConnectorPins, type PendingState, type PinData, type ToolPins } from "./pin-file.js";
import { changeSummary } from "./diff.js";
import type { PinStorage } from "./pin-storage.js";

/** A connector's listing, as the pins judge it. */
export interface PinListing { id: string; where: string; policy: PinPolicySetting; tools: readonly PinnableTool[] }

/** One tool's pin verdict: the facts the core judges on every call, and what search shows. */
export interface PinVerdict {
  state: PinStateName;
  facts: PinFacts;
  /** Set when the core quarantines the tool: why, and which parts changed (atrium's words only, never the new text). */
  quarantined?: { reason: PinReasonName; change: string; flags: Flag[] };
}

export interface PinHooks {
  /** A tool was newly quarantined (the activity log connects here). */
  onQuarantine?: (connector: string, tool: string, reason: string) => void;
  /** A warning for the operator (stderr by default). */
  warn?: (line: string) => void;
}

interface Judged { tools: readonly PinnableTool[]; policy: PinPolicySetting; generation: number; verdicts: Map<string, PinVerdict> }
interface Change { name: string; accept?: Pinned; clearPending?: boolean; pending?: Omit<PinVerdict, "facts"> & { pinned: Pinned; flags: Flag[]; autoAccepted: boolean } }

const PENDING: readonly PinStateName[] = ["changed", "new_tool", "suspicious", "store_unreadable"];

/** A listing's tools, each with its digest and (once needed) its pattern flags. */
type Measured = Map<PinnableTool, { now: Pinned; flags?: Flag[] }>;

export class PinService {
  private data: PinData;
  private text: string;
  private generation = 0;
  private readonly judged = new Map<string, Judged>();
  private readonly listeners: (() => void)[] = [];
  private watching = false;
  private warnedWrite = false;

  constructor(private readonly core: Core, private readonly file: PinStorage = new PinFile(), private readonly hooks: PinHooks = {}) {
    this.data = file.load();
    this.text = JSON.stringify(this.data);
  }

  /** Each tool's verdict for this listing; judged once per listing and pin-file version. */
  verdicts(listing: PinListing): Map<string, PinVerdict> {
    const key = connectorKey(listing);
    const seen = this.judged.get(key);
    if (seen && seen.tools === listing.tools && seen.policy === listing.policy && seen.generation === this.generation) return seen.verdicts;
    // Digests and pattern checks of this listing's tools, kept for the second judging after a record.
    const measured: Measured = new Map();
    let { verdicts, changes } = this.judge(listing, measured);
    if (changes.length) {
      this.record(listing, key, changes);
      ({ verdicts } = this.judge(listing, measured));
    }
    this.judged.set(key, { tools: listing.tools, policy: listing.policy, generation: this.generation, verdicts });
    return verdicts;
  }

  /** The names of a connector's tools with a pending change (doctor's line). */
  pending(c: { id: string; where: string }): string[] {
    return recordFor(this.data, c)?.tools.filter((t) => t.pending).map((t) => t.name) ?? [];
  }

  /** Called when the pin file changed on disk (another process: `atrium pins accept`). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Starts noticing changes of the pins made elsewhere; never keeps the process alive. */
  watch(): void {
    if (this.watching) return;
    this.watching = true;
    this.file.watch(() => this.reload());
  }

  /** Reads the pins again; when they changed, every connector is judged again. */
  reload(): void {
    const data = this.file.load();
    const text = JSON.stringify(data);
    if (text === this.text) return;
    this.data = data;
    this.text = text;
    this.generation++;
    for (const l of this.listeners) l();
  }

  private judge(listing: PinListing, measured: Measured): { verdicts: Map<string, PinVerdict>; changes: Change[] } {
    const record = recordFor(this.data, listing);
    const unreadable = this.data.unreadableSince !== undefined;
    const verdicts = new Map<string, PinVerdict>();
    const changes: Change[] = [];
    for (const tool of listing.tools) {
      if (verdicts.has(tool.name)) continue; // a duplicate name: the catalog keeps the first (R11)
      const m = measured.get(tool) ?? { now: pinOf(tool) };
      measured.set(tool, m);
      const now = m.now;
      const mine = record?.tools.find((t) => t.name === tool.name);
      // An accepted definition is not judged again (the patterns cost more than the digest).
      const flags = listing.policy === "off" || mine?.accepted?.digest === now.digest ? [] : (m.flags ??= flagsOf(tool));
      const { state, facts } = pinFactsOf(now, record, mine, flags.length > 0, unreadable, listing.policy);
      const d = this.core.pinGate(facts);
      const reason = codeName(PinReason, d.reason) ?? "invalid_facts";
      const quarantined = d.answer === PinAnswer.quarantined ? { reason, change: changeSummary(mine?.accepted?.definition, now.definition, flags), flags } : undefined;
      verdicts.set(tool.name, { state, facts, ...(quarantined && { quarantined }) });
      if (listing.policy === "off") continue;
      const change: Change = { name: tool.name };
      if (d.answer === PinAnswer.record_and_allow) change.accept = now;
      const shown = PENDING.includes(state) && mine?.pending?.digest !== now.digest && mine?.rejected !== now.digest;
      if (shown) change.pending = { state, pinned: now, flags, autoAccepted: d.answer === PinAnswer.record_and_allow, ...(quarantined && { quarantined }) };
      // The server lists the accepted definition again: the change it had shown is gone.
      if (state === "matches" && mine?.pending && !mine.pending.autoAccepted) change.clearPending = true;
      if (change.accept || change.pending || change.clearPending) changes.push(change);
    }
    return { verdicts, changes };
  }

  /** Applies the changes to the file as it is now (read, change, write), then keeps what was written. */
  private record(listing: PinListing, key: string, changes: Change[]): void {
    const data = this.file.load();
    let record: ConnectorPins | undefined = recordFor(data, listing);
    if (!record) {
      record = { key, id: listing.id, where: listing.where, tools: [] };
      data.connectors.push(record);
    }
    // The same connector at another package version (or a record keyed before versions left the key): it now runs here.
    record.key = key;
    record.where = listing.where;
    const at = new Date().toISOString();
    for (const c of changes) {
      let tool: ToolPins | undefined = record.tools.find((t) => t.name === c.name);
      if (!tool) {
        tool = { name: c.name };
        record.tools.push(tool);
      }
      if (c.accept) tool.accepted = c.accept;
      if (c.clearPending) delete tool.pending;
      if (c.pending) tool.pending = { ...c.pending.pinned, state: c.pending.state as PendingState, flags: c.pending.flags, firstSeen: at, ...(c.pending.autoAccepted && { autoAccepted: true }) };
      if (c.pending?.quarantined) this.hooks.onQuarantine?.(listing.id, c.name, c.pending.quarantined.reason);
    }
    try {
      this.file.save(data);
    } catch (e) {
      if (!this.warnedWrite) (this.hooks.warn ?? ((l: string) => process.stderr.write(`${l}\n`)))(`atrium: the pins could not be written (${(e as Error).message}); they are kept for this process only`);
      this.warnedWrite = true;
    }
    this.data = data;
    this.text = JSON.stringify(data);
  }
}
