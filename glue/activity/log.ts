// The activity log's writer: one JSON line per event in <stateDir>/activity/activity.log (directory
// 0700, files 0600), rotated by size (ACTIVITY_FILE_BYTES_MAX) into activity.log.1 … .N-1 with
// ACTIVITY_FILES_KEPT files at most. A line is built field by field from the event's own listed
// fields — ids clamped to their bounds, codes to a code's shape, numbers made whole — so nothing
// else a caller hands in (an argument, a result, a message) can reach the file. A directory or file
// that cannot be written costs one warning on stderr, then the log falls silent; serving goes on.
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ACTIVITY_CODE_CHARS_MAX, ACTIVITY_CONFIG_PATH_CHARS_MAX, ACTIVITY_FILE_BYTES_MAX, ACTIVITY_FILES_KEPT, ACTIVITY_RELOAD_IDS_MAX, ACTIVITY_SESSION_BYTES, APP_TOOL_NAME_CHARS_MAX, CONNECTOR_ID_CHARS_MAX } from "../decisions/generated/spec.js";
import { DIR_MODE_PRIVATE, FILE_MODE_PRIVATE } from "../support/wire.js";
import { sinkOf, type ActivityEvent, type ActivitySink } from "./events.js";

export const ACTIVITY_DIR = "activity";
export const ACTIVITY_FILE = "activity.log";

/** The files of the log in `dir`, oldest first: activity.log.N-1 … activity.log.1, activity.log. */
export function activityFiles(dir: string): string[] {
  const rotated = Array.from({ length: ACTIVITY_FILES_KEPT - 1 }, (_, i) => join(dir, `${ACTIVITY_FILE}.${ACTIVITY_FILES_KEPT - 1 - i}`));
  return [...rotated, join(dir, ACTIVITY_FILE)];
}

export interface ActivityLogOptions {
  /** Where a failure is reported, once (stderr by default). */
  warn?: (message: string) => void;
  /** For tests: bytes per file (defaults to ACTIVITY_FILE_BYTES_MAX). */
  fileBytes?: number;
}

/** A sink that writes to <stateDir>/activity; `session` tells this process's lines apart. */
export function openActivityLog(stateDir: string, opts: ActivityLogOptions = {}): ActivitySink & { session: string; dir: string } {
  const writer = new Writer(join(stateDir, ACTIVITY_DIR), opts);
  return Object.assign(sinkOf((e) => writer.write(e)), { session: writer.session, dir: writer.dir });
}

class Writer {
  readonly session = randomBytes(ACTIVITY_SESSION_BYTES).toString("hex");
  private fd?: number;
  private size = 0;
  private broken = false;
  private readonly fileBytes: number;
  private readonly warn: (message: string) => void;

  constructor(readonly dir: string, opts: ActivityLogOptions) {
    this.fileBytes = opts.fileBytes ?? ACTIVITY_FILE_BYTES_MAX;
    this.warn = opts.warn ?? ((m) => process.stderr.write(`${m}\n`));
  }

  write(e: ActivityEvent): void {
    if (this.broken) return;
    try {
      const line = `${JSON.stringify({ ts: new Date().toISOString(), session: this.session, ...fieldsOf(e) })}\n`;
      const bytes = Buffer.byteLength(line);
      if (this.fd === undefined) this.open();
      else if (this.size > 0 && this.size + bytes > this.fileBytes) this.rotate();
      this.size += writeSync(this.fd!, line);
    } catch (err) {
      this.broken = true;
      this.close();
      this.warn(`atrium: the activity log in ${this.dir} cannot be written (${(err as NodeJS.ErrnoException).code ?? "error"}); atrium goes on serving without it`);
    }
  }

  private open(): void {
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE_PRIVATE });
    this.fd = openSync(join(this.dir, ACTIVITY_FILE), "a", FILE_MODE_PRIVATE);
    this.size = fstatSync(this.fd).size;
  }

  /** activity.log → .1 → .2 …; the oldest kept file is deleted. */
  private rotate(): void {
    this.close();
    const files = activityFiles(this.dir);
    rmSync(files[0], { force: true });
    for (let i = 1; i < files.length; i++) {
      try { renameSync(files[i], files[i - 1]); } catch (err) { if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; }
    }
    this.open();
  }

  private close(): void {
    if (this.fd !== undefined) try { closeSync(this.fd); } catch { /* already gone */ }
    this.fd = undefined;
  }
}

/** The listed fields of an event and nothing else, each bounded. */
function fieldsOf(e: ActivityEvent): Record<string, unknown> {
  switch (e.event) {
    case "meta_tool":
      return { event: e.event, tool: id(e.tool, APP_TOOL_NAME_CHARS_MAX), outcome: code(e.outcome), durationMs: whole(e.durationMs) };
    case "call":
      return { event: e.event, connector: id(e.connector, CONNECTOR_ID_CHARS_MAX), tool: id(e.tool, APP_TOOL_NAME_CHARS_MAX), path: code(e.path), outcome: code(e.outcome), durationMs: whole(e.durationMs), resultBytes: whole(e.resultBytes) };
    case "approval_asked":
    case "approval_given":
    case "approval_declined":
      return { event: e.event, connector: id(e.connector, CONNECTOR_ID_CHARS_MAX), tool: id(e.tool, APP_TOOL_NAME_CHARS_MAX), ...(e.reason !== undefined && { reason: code(e.reason) }) };
    case "quarantine":
      return { event: e.event, connector: id(e.connector, CONNECTOR_ID_CHARS_MAX), tool: id(e.tool, APP_TOOL_NAME_CHARS_MAX), reason: code(e.reason) };
    case "config_reload":
      return { event: e.event, outcome: e.outcome === "ok" ? "ok" : "error", added: ids(e.added), removed: ids(e.removed), restarted: ids(e.restarted), ...(e.errorPath !== undefined && { errorPath: id(e.errorPath, ACTIVITY_CONFIG_PATH_CHARS_MAX) }) };
    default: // connector_*
      return { event: code(e.event), connector: id(e.connector, CONNECTOR_ID_CHARS_MAX), state: code(e.state), attempt: whole(e.attempt) };
  }
}

/** A name as a string of printable characters, at most `max` of them. */
function id(value: unknown, max: number): string {
  return String(value).replace(/[\p{Cc}\p{Cf}]/gu, "?").slice(0, max);
}

/** A code (snake_case, dotted or dashed words); anything else is not a code atrium writes. */
function code(value: unknown): string {
  return typeof value === "string" && value.length <= ACTIVITY_CODE_CHARS_MAX && /^[A-Za-z0-9_.-]+$/.test(value) ? value : "other";
}

function whole(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}

/** Connector ids of a reload: at most ACTIVITY_RELOAD_IDS_MAX, the rest counted in a last "+N more". */
function ids(list: unknown): string[] {
  const all = Array.isArray(list) ? list : [];
  const kept = all.slice(0, ACTIVITY_RELOAD_IDS_MAX).map((x) => id(x, CONNECTOR_ID_CHARS_MAX));
  return all.length > kept.length ? [...kept, `+${all.length - kept.length} more`] : kept;
}
