// The activity log's writer: one JSON line per event in <stateDir>/activity/activity.log (directory
// 0700, files 0600), rotated by size (ACTIVITY_FILE_BYTES_MAX) into activity.1.log … activity.N-1.log
// with ACTIVITY_FILES_KEPT files at most; a file found readable by others is repaired to 0600 (one
// warning). A line is built field by field from the event's own listed
// fields — ids clamped to their bounds, codes to a code's shape, numbers made whole — so nothing
// else a caller hands in (an argument, a result, a message) can reach the file. Lines are queued
// (at most ACTIVITY_QUEUE_LINES_MAX) and appended asynchronously: recording returns at once and
// never throws. The first event after a quiet spell is written at once; those that come while a
// write is under way go in the next, at least ACTIVITY_APPEND_GAP_MS later. The file stays open
// while events keep coming (closed ACTIVITY_FILE_IDLE_MS after the last append); each append first
// looks at the file by name and opens it again when it is not the one open, so a rotation by
// another atrium process (two hosts, one state directory) is followed. A directory or file that cannot be written costs one warning on stderr, then the
// log falls silent; serving goes on.
import { chmod, lstat, open, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ACTIVITY_APPEND_GAP_MS, ACTIVITY_CODE_CHARS_MAX, ACTIVITY_CONFIG_PATH_CHARS_MAX, ACTIVITY_FILE_BYTES_MAX, ACTIVITY_FILE_IDLE_MS, ACTIVITY_FILES_KEPT, ACTIVITY_QUEUE_LINES_MAX, ACTIVITY_RELOAD_IDS_MAX, ACTIVITY_SESSION_BYTES, APP_TOOL_NAME_CHARS_MAX, CONNECTOR_ID_CHARS_MAX } from "../decisions/generated/spec.js";
import { FILE_MODE_PRIVATE, MODE_GROUP_OTHER } from "../support/wire.js";
import { privateDir } from "../support/private-dir.js";
import { sinkOf, type ActivityEvent, type ActivitySink } from "./events.js";

export const ACTIVITY_DIR = "activity";
const ACTIVITY_FILE = "activity.log";

/** The files of the log in `dir`, oldest first: activity.N-1.log … activity.1.log, activity.log. */
export function activityFiles(dir: string): string[] {
  const rotated = Array.from({ length: ACTIVITY_FILES_KEPT - 1 }, (_, i) => join(dir, `activity.${ACTIVITY_FILES_KEPT - 1 - i}.log`));
  return [...rotated, join(dir, ACTIVITY_FILE)];
}

export interface ActivityLogOptions {
  /** Where a failure is reported, once (stderr by default). */
  warn?: (message: string) => void;
  /** For tests: bytes per file (defaults to ACTIVITY_FILE_BYTES_MAX). */
  fileBytes?: number;
}

/** The sink of a process that writes its log: `flush()` resolves once every queued line is written (or dropped). */
export type ActivityLog = ActivitySink & { readonly session: string; readonly dir: string; flush(): Promise<void> };

/** A sink that writes to <stateDir>/activity; `session` tells this process's lines apart. */
export function openActivityLog(stateDir: string, opts: ActivityLogOptions = {}): ActivityLog {
  const writer = new Writer(join(stateDir, ACTIVITY_DIR), opts);
  return Object.assign(sinkOf((e) => writer.record(e)), { session: writer.session, dir: writer.dir, flush: () => writer.flush() });
}

class Writer {
  readonly session = randomBytes(ACTIVITY_SESSION_BYTES).toString("hex");
  private file?: FileHandle;
  /** Which file is open (its device and inode): the one by name, unless another process rotated it. */
  private opened?: { dev: number; ino: number };
  /** Closes the file once no event has come for ACTIVITY_FILE_IDLE_MS. */
  private idle?: ReturnType<typeof setTimeout>;
  /** The next drain, ACTIVITY_APPEND_GAP_MS after the last one, when lines came while it wrote. */
  private next?: ReturnType<typeof setTimeout>;
  private size = 0;
  private broken = false;
  private repaired = false;
  private queue: string[] = [];
  private draining?: Promise<void>;
  private readonly fileBytes: number;
  private readonly warn: (message: string) => void;

  constructor(readonly dir: string, opts: ActivityLogOptions) {
    this.fileBytes = opts.fileBytes ?? ACTIVITY_FILE_BYTES_MAX;
    this.warn = opts.warn ?? ((m) => { try { process.stderr.write(`${m}\n`); } catch { /* stderr gone */ } });
  }

  /** Queues one event's line; returns at once. A full queue (the disk is slower than the events) drops the line. */
  record(e: ActivityEvent): void {
    if (this.broken || this.queue.length >= ACTIVITY_QUEUE_LINES_MAX) return;
    let line: string;
    try {
      line = `${JSON.stringify({ ts: new Date().toISOString(), session: this.session, ...fieldsOf(e) })}\n`;
    } catch {
      return; // an event that cannot be written as JSON is not one atrium makes
    }
    this.queue.push(line);
    this.kick();
  }

  /** Starts draining unless a drain is under way or due (either takes every line queued before it). */
  private kick(): void {
    if (this.draining || this.next) return;
    clearTimeout(this.idle);
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // Lines that came while it wrote go together in the next write.
      if (this.queue.length) {
        this.next = setTimeout(() => { this.next = undefined; this.kick(); }, ACTIVITY_APPEND_GAP_MS);
        return;
      }
      this.idle = setTimeout(() => void this.close(), ACTIVITY_FILE_IDLE_MS);
      this.idle.unref();
    });
  }

  /** Resolves once every line queued is written (or dropped): a drain that is due starts now. */
  async flush(): Promise<void> {
    while (this.draining || this.next) {
      if (this.next && !this.draining) {
        clearTimeout(this.next);
        this.next = undefined;
        this.kick();
      }
      await this.draining;
    }
  }

  /** Writes every line queued, in one append. */
  private async drain(): Promise<void> {
    try {
      if (this.queue.length === 0 || this.broken) return;
      const lines = this.queue;
      this.queue = [];
      await this.append(lines);
    } catch (err) {
      this.broken = true;
      this.queue = [];
      this.warn(`atrium: the activity log in ${this.dir} cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); atrium goes on serving without it`);
    }
  }

  /** Writes `lines` in order, starting a new file before a line that would take the current one past its size. */
  private async append(lines: string[]): Promise<void> {
    await this.current();
    try {
      await this.appendOpen(lines);
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** The file by name, open: the one already open when it still is that file (its size read again:
   * another process may append too), else opened again (another process rotated or removed it). */
  private async current(): Promise<void> {
    if (this.file) {
      const byName = await stat(join(this.dir, ACTIVITY_FILE)).catch(() => undefined);
      if (byName && byName.dev === this.opened?.dev && byName.ino === this.opened.ino) {
        this.size = byName.size;
        return;
      }
      await this.close();
    }
    await this.open();
  }

  private async appendOpen(lines: string[]): Promise<void> {
    let chunk = "";
    let chunkBytes = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line);
      if (this.size + chunkBytes > 0 && this.size + chunkBytes + bytes > this.fileBytes) {
        if (chunk) await this.file!.appendFile(chunk);
        await this.rotate();
        chunk = "";
        chunkBytes = 0;
      }
      chunk += line;
      chunkBytes += bytes;
    }
    if (chunk) await this.file!.appendFile(chunk);
    this.size += chunkBytes;
  }

  private async open(): Promise<void> {
    const check = privateDir(this.dir, true);
    if (!check.ok) throw new Error(check.reason);
    if (!this.repaired) await this.repairModes();
    this.file = await open(join(this.dir, ACTIVITY_FILE), "a", FILE_MODE_PRIVATE);
    const st = await this.file.stat();
    this.size = st.size;
    this.opened = { dev: st.dev, ino: st.ino };
  }

  /** Once per process: a log file left readable by others (an older atrium, a copy, a umask) is made 0600, with one warning. */
  private async repairModes(): Promise<void> {
    this.repaired = true;
    let repaired = false;
    for (const f of activityFiles(this.dir)) {
      const st = await lstat(f).catch(() => undefined);
      if (!st?.isFile() || (st.mode & MODE_GROUP_OTHER) === 0) continue;
      await chmod(f, FILE_MODE_PRIVATE);
      repaired = true;
    }
    if (repaired) this.warn(`atrium: the activity log in ${this.dir} could be read by other users; its files' mode is now 0600`);
  }

  /** activity.log → activity.1.log → activity.2.log …; the oldest kept file is deleted. */
  private async rotate(): Promise<void> {
    await this.close();
    const files = activityFiles(this.dir);
    await rm(files[0], { force: true });
    for (let i = 1; i < files.length; i++) {
      try { await rename(files[i], files[i - 1]); } catch (err) { if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err; }
    }
    await this.open();
  }

  private async close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (file) try { await file.close(); } catch { /* already gone */ }
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
  return String(value).slice(0, max).replace(/[\p{Cc}\p{Cf}]/gu, "?");
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
