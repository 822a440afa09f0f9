// `atrium log [--follow] [--connector ID] [--lines N]`: prints the activity log of this user's
// state directory (glue/activity/log.ts writes it), oldest kept file first, one readable line per
// event: time, event, connector.tool, then its path, outcome, duration and size. Reading is
// bounded: each file is read at most ACTIVITY_FILE_BYTES_MAX from its end, a line longer than
// ACTIVITY_LINE_BYTES_MAX or not a JSON object with an event is skipped, and every printed field
// loses its control characters (a file someone else edited cannot drive the terminal).
// --follow then polls the current file every ACTIVITY_FOLLOW_POLL_MS and prints what is added,
// starting over when the file is rotated.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { ACTIVITY_FILE_BYTES_MAX, ACTIVITY_FOLLOW_POLL_MS, ACTIVITY_LINE_BYTES_MAX, ACTIVITY_LINES_DEFAULT } from "../decisions/generated/spec.js";
import { ACTIVITY_DIR, activityFiles } from "../activity/log.js";
import { stateDir } from "../support/state-dir.js";
import type { Flags } from "./args.js";

type Line = Record<string, unknown> & { event: string; ts: string };

export function logCommand(flags: Flags): number | undefined {
  const dir = join(stateDir(), ACTIVITY_DIR);
  const connector = typeof flags.connector === "string" ? flags.connector : undefined;
  const count = typeof flags.lines === "string" ? Number(flags.lines) : ACTIVITY_LINES_DEFAULT;
  const keep = (l: Line) => connector === undefined || l.connector === connector;
  const shown: string[] = [];
  let last = { text: "", size: 0, ino: -1 };
  for (const file of activityFiles(dir)) {
    last = tail(file);
    for (const l of parsed(last.text)) {
      if (!keep(l)) continue;
      shown.push(readable(l));
      if (shown.length > count) shown.shift();
    }
  }
  if (shown.length) process.stdout.write(`${shown.join("\n")}\n`);
  else if (!flags.follow) process.stderr.write(`atrium log: no events${connector === undefined ? "" : ` of connector ${connector}`} in ${dir}\n`);
  if (!flags.follow) return 0;
  // Following goes on from where the read of the current file ended, so no line falls between.
  follow(activityFiles(dir).at(-1)!, keep, { ino: last.ino, offset: last.size });
  return undefined; // runs until interrupted
}

/** The last ACTIVITY_FILE_BYTES_MAX bytes of a file (none when it is missing or unreadable), from a whole line on, up to its last whole line; and where that ends. */
function tail(file: string): { text: string; size: number; ino: number } {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const st = fstatSync(fd);
    const from = Math.max(0, st.size - ACTIVITY_FILE_BYTES_MAX);
    let text = read(fd, from, st.size - from);
    if (from > 0) text = text.slice(text.indexOf("\n") + 1);
    // A line still being written is left to --follow.
    const end = text.lastIndexOf("\n") + 1;
    return { text: text.slice(0, end), size: st.size - Buffer.byteLength(text.slice(end)), ino: st.ino };
  } catch {
    return { text: "", size: 0, ino: -1 };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function read(fd: number, from: number, bytes: number): string {
  const buf = Buffer.alloc(bytes);
  const got = readSync(fd, buf, 0, bytes, from);
  return buf.subarray(0, got).toString("utf8");
}

/** The events among `text`'s whole lines: overlong, garbled and foreign lines are skipped. */
function parsed(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split("\n")) {
    if (!raw || Buffer.byteLength(raw) > ACTIVITY_LINE_BYTES_MAX) continue;
    try {
      const v = JSON.parse(raw) as unknown;
      if (typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as Line).event === "string" && typeof (v as Line).ts === "string") out.push(v as Line);
    } catch { /* not a line atrium wrote */ }
  }
  return out;
}

/** A field as printable text. */
const shown = (v: unknown) => String(v).replace(/[\p{Cc}\p{Cf}]/gu, "?");

/** One event as a terminal line: time, event, connector.tool (or the meta-tool), then what it has of path, outcome, duration, size, reason, state, attempt. */
export function readable(l: Line): string {
  const who = typeof l.connector === "string" ? (typeof l.tool === "string" ? `${l.connector}.${l.tool}` : l.connector) : typeof l.tool === "string" ? l.tool : "";
  const parts = [l.ts, l.event, who];
  if (l.path !== undefined) parts.push(`via ${l.path}`);
  if (l.outcome !== undefined) parts.push(String(l.outcome));
  if (l.reason !== undefined) parts.push(String(l.reason));
  if (l.state !== undefined) parts.push(`state ${l.state}`);
  if (l.attempt !== undefined) parts.push(`attempt ${l.attempt}`);
  if (l.durationMs !== undefined) parts.push(`${l.durationMs} ms`);
  if (l.resultBytes !== undefined) parts.push(`${l.resultBytes} B`);
  if (Array.isArray(l.added) && l.added.length) parts.push(`added ${l.added.join(",")}`);
  if (Array.isArray(l.removed) && l.removed.length) parts.push(`removed ${l.removed.join(",")}`);
  if (Array.isArray(l.restarted) && l.restarted.length) parts.push(`restarted ${l.restarted.join(",")}`);
  if (l.errorPath !== undefined) parts.push(`at ${l.errorPath || "(file)"}`);
  return parts.filter((p) => p !== "").map(shown).join("  ");
}

/** Prints the lines added to `file` from its current end on; a file that shrank or was replaced (rotation) is read from its start. */
function follow(file: string, keep: (l: Line) => boolean, at: { ino: number; offset: number }): void {
  let partial = "";
  setInterval(() => {
    let fd: number | undefined;
    try {
      fd = openSync(file, "r");
      const st = fstatSync(fd);
      if (st.ino !== at.ino || st.size < at.offset) { at.ino = st.ino; at.offset = 0; partial = ""; }
      if (st.size === at.offset) return;
      const bytes = Math.min(st.size - at.offset, ACTIVITY_FILE_BYTES_MAX);
      const text = partial + read(fd, at.offset, bytes);
      at.offset += bytes;
      const cut = text.lastIndexOf("\n");
      // An unfinished line waits for its end, unless it is already longer than any line atrium writes.
      partial = text.slice(cut + 1);
      if (Buffer.byteLength(partial) > ACTIVITY_LINE_BYTES_MAX) partial = "";
      const lines = parsed(text.slice(0, cut + 1)).filter(keep).map(readable);
      if (lines.length) process.stdout.write(`${lines.join("\n")}\n`);
    } catch { /* not there yet, or rotated under us: the next poll looks again */ } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }, ACTIVITY_FOLLOW_POLL_MS);
}
