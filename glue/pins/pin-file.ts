// The pin file: `<stateDir>/pins.json`, a private file (glue/support/private-file.ts: 0600 in a
// 0700 directory, atomic writes, read under PIN_FILE_BYTES_MAX). Per connector — keyed by its id
// and a digest of its configured command and arguments (a package's version left out: `pkg@1.2.3`,
// `pkg==1.2.3`) or URL, so a re-pointed connector is a new connector while a version change is the
// same one, its new listing judged against the old pins — each tool's accepted pin and, optionally, the pending change atrium saw (and the
// digest the operator rejected). A file that cannot be read or is not atrium's (corrupt, foreign,
// too large, a link, another user's) is set aside as pins.json.bad-<time>, one warning goes to
// stderr, and atrium starts a new one marked `unreadableSince`: every tool it has no accepted pin
// for is then quarantined (spec/pins.md N8), never trusted as first seen.
import { renameSync, watchFile } from "node:fs";
import { createHash } from "node:crypto";
import { PrivateFile } from "../support/private-file.js";
import { stateDir } from "../support/state-dir.js";
import { isJsonObject } from "../support/json-object.js";
import { PIN_FILE_BYTES_MAX, PIN_WATCH_MS, type PinStateName } from "../decisions/generated/spec.js";
import type { PinStorage } from "./pin-storage.js";
import type { Pinned } from "./digest.js";
import type { Flag } from "./suspicious.js";

/** The states a pending change is recorded with. */
export type PendingState = Extract<PinStateName, "changed" | "new_tool" | "suspicious" | "store_unreadable">;

interface PendingPin extends Pinned {
  state: PendingState;
  /** What the suspicious-pattern check found in this definition. */
  flags: Flag[];
  /** When atrium first saw this definition (ISO 8601). */
  firstSeen: string;
  /** Recorded under `auto-accept` (already the accepted pin): shown until the operator acknowledges it. */
  autoAccepted?: boolean;
}

export interface ToolPins {
  name: string;
  accepted?: Pinned;
  pending?: PendingPin;
  /** The digest of a definition the operator rejected: not recorded as pending again. */
  rejected?: string;
}

export interface ConnectorPins {
  key: string;
  id: string;
  /** The command line or URL the key was made from, for people. */
  where: string;
  tools: ToolPins[];
}

export interface PinData {
  format: typeof FORMAT;
  version: typeof VERSION;
  /** Set when an earlier pin file was set aside: connectors without pins are not first seen. */
  unreadableSince?: string;
  connectors: ConnectorPins[];
}

const FORMAT = "atrium-pins";
const VERSION = 1;

/** What identifies a connector's pins: its id and where it runs. */
export interface PinnedConnector { id: string; where: string }

/** The key of a connector's pins: its id and a digest of where it runs, package versions left out. */
export function connectorKey(c: PinnedConnector): string {
  return `${c.id}:${createHash("sha256").update(withoutVersions(c.where)).digest("hex")}`;
}

/** An npm package name (`pkg`, `@scope/pkg`) or a Python one, then `@` or `==` and a version, a range or a dist-tag. */
const VERSIONED_PACKAGE = /^((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:@|==)(?:[~^<>=v]*\d[\w.+<>=|~^ -]*|latest|next|beta|alpha|canary|rc|stable|main)$/i;

/** A stdio connector's command line (whereOf's JSON array) with each argument's package version dropped; a URL as it is. */
function withoutVersions(where: string): string {
  if (!where.startsWith("[")) return where;
  let words: unknown;
  try {
    words = JSON.parse(where);
  } catch {
    return where;
  }
  if (!Array.isArray(words) || !words.every((w) => typeof w === "string")) return where;
  return JSON.stringify(words.map((w: string) => VERSIONED_PACKAGE.exec(w)?.[1] ?? w));
}

/**
 * A connector's record: the one under its key, else one a pin file written before versions left
 * the key holds for it (same id, same command line but for versions).
 */
export function recordFor(data: PinData, c: PinnedConnector): ConnectorPins | undefined {
  const key = connectorKey(c);
  return data.connectors.find((r) => r.key === key) ?? data.connectors.find((r) => r.id === c.id && connectorKey(r) === key);
}

/** Where a configured connector runs, as it is keyed: the command and its arguments, or the URL. */
export function whereOf(config: { kind: "stdio"; command: string; args: string[] } | { kind: "http"; url: string }): string {
  return config.kind === "stdio" ? JSON.stringify([config.command, ...config.args]) : config.url;
}

/** No pins yet; `unreadableSince` when earlier pins could not be read (every tool without an accepted pin is then quarantined). */
export const emptyPins = (unreadableSince?: string): PinData => ({ format: FORMAT, version: VERSION, ...(unreadableSince && { unreadableSince }), connectors: [] });

export class PinFile implements PinStorage {
  private readonly file: PrivateFile;

  constructor(readonly dir: string = stateDir(), private readonly warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
    this.file = new PrivateFile(dir, { name: "pins.json", maxBytes: PIN_FILE_BYTES_MAX, holds: "pins", linkRemedy: "remove it; atrium pins the tools again, quarantined" }, warn);
  }

  get path(): string {
    return this.file.path;
  }

  get where(): string {
    return this.file.path;
  }

  /** Notices changes of the file (fs.watchFile every PIN_WATCH_MS). */
  watch(changed: () => void): void {
    watchFile(this.file.path, { interval: PIN_WATCH_MS, persistent: false }, changed);
  }

  /** The pins, or a new empty set when there is no file yet. A file that cannot be used is set aside (and the new set says so). */
  load(): PinData {
    let text: string | undefined;
    let why: string;
    try {
      text = this.file.read();
      if (text === undefined) return emptyPins();
      const data = parsePins(text);
      if (data) return data;
      why = "it is not an atrium pin file (corrupt or foreign)";
    } catch (e) {
      why = (e as Error).message;
    }
    return this.setAside(why);
  }

  save(data: PinData): void {
    const text = JSON.stringify(data, null, 1);
    if (Buffer.byteLength(text) > PIN_FILE_BYTES_MAX) throw new Error(`the pins would take more than ${PIN_FILE_BYTES_MAX} bytes; ${this.path} was not written`);
    this.file.write(text);
  }

  private setAside(why: string): PinData {
    const at = new Date().toISOString();
    const aside = `${this.path}.bad-${at.replace(/[:.]/g, "-")}`;
    let moved = true;
    try {
      renameSync(this.path, aside);
    } catch {
      moved = false;
    }
    this.warn(`atrium: the pin file ${this.path} could not be used (${why}); ${moved ? `it was set aside as ${aside}` : "it could not be moved aside"}. Every tool without an accepted pin is quarantined until the operator accepts it (atrium pins).`);
    const fresh = emptyPins(at);
    if (moved) {
      try {
        this.save(fresh);
      } catch { /* the marker is kept in memory; the next save writes it */ }
    }
    return fresh;
  }
}

const isText = (v: unknown): v is string => typeof v === "string";
const isPinned = (v: unknown): boolean => isJsonObject(v) && isText(v.digest) && isText(v.bodyDigest) && isJsonObject(v.definition) && isText(v.definition.description) && Array.isArray(v.definition.inputKeys) && Array.isArray(v.definition.outputKeys) && isText(v.definition.annotations);
const PENDING_STATES: readonly string[] = ["changed", "new_tool", "suspicious", "store_unreadable"] satisfies PendingState[];
const isPending = (v: unknown): boolean => isPinned(v) && isJsonObject(v) && isText(v.state) && PENDING_STATES.includes(v.state) && Array.isArray(v.flags) && isText(v.firstSeen);
const isTool = (v: unknown): boolean => isJsonObject(v) && isText(v.name) && (v.accepted === undefined || isPinned(v.accepted)) && (v.pending === undefined || isPending(v.pending)) && (v.rejected === undefined || isText(v.rejected));
const isConnector = (v: unknown): boolean => isJsonObject(v) && isText(v.key) && isText(v.id) && isText(v.where) && Array.isArray(v.tools) && v.tools.every(isTool);

/** The pin data in `text`, or undefined when it is not a pin file of this version. */
export function parsePins(text: string): PinData | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(raw) || raw.format !== FORMAT || raw.version !== VERSION || !Array.isArray(raw.connectors) || !raw.connectors.every(isConnector)) return undefined;
  if (raw.unreadableSince !== undefined && !isText(raw.unreadableSince)) return undefined;
  return raw as unknown as PinData;
}
