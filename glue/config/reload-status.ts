// The last reload outcome of a serving atrium, kept in `<stateDir>/reload-status.json` (0600 in
// the private state directory, written atomically through support/private-file.ts) so that
// `atrium doctor` can say what the serving process did with an edit of its config file: applied
// it, or refused it (with each error's config path). Written only when an edit is judged, so
// starting atrium writes nothing and never hides another config's outcome. doctor reads it
// size-capped and shape-checked; a file it cannot use is ignored.
import { readFileCapped } from "../support/read-capped.js";
import { join } from "node:path";
import { stateDir } from "../support/state-dir.js";
import { PrivateFile, PrivateFileRefused } from "../support/private-file.js";
import { isJsonObject } from "../support/json-object.js";
import { RELOAD_STATUS_BYTES_MAX, RELOAD_STATUS_ERRORS_MAX } from "../decisions/generated/spec.js";
import type { ConfigError } from "./schema.js";

/** What one serving process last did with its config file. */
export type ReloadStatus = { config: string; pid: number; at: string } & (
  | { event: "applied"; added: string[]; removed: string[]; restarted: string[]; restartNeeded: string[] }
  | { event: "refused"; errors: ConfigError[]; moreErrors: number }
);

const FILE = "reload-status.json";

/** Writes the status; a state directory that cannot be used is reported once by the caller (`warn`), never thrown. */
export function writeReloadStatus(status: ReloadStatus, dir = stateDir()): string | undefined {
  const body = status.event === "refused" ? { ...status, errors: status.errors.slice(0, RELOAD_STATUS_ERRORS_MAX), moreErrors: status.moreErrors + Math.max(0, status.errors.length - RELOAD_STATUS_ERRORS_MAX) } : status;
  try {
    new PrivateFile(dir, { name: FILE, maxBytes: RELOAD_STATUS_BYTES_MAX, holds: "the reload status", linkRemedy: "remove it" }).write(JSON.stringify(body));
    return undefined;
  } catch (e) {
    return e instanceof PrivateFileRefused ? e.message : `${join(dir, FILE)} cannot be written: ${(e as Error).message}`;
  }
}

/** The status of a process serving `configPath`, or undefined (none, another file's, unreadable, too large, malformed). */
export function readReloadStatus(configPath: string, dir = stateDir()): ReloadStatus | undefined {
  const read = readFileCapped(join(dir, FILE), RELOAD_STATUS_BYTES_MAX, { followLinks: false });
  if (!read.ok) return undefined;
  let raw: unknown;
  try { raw = JSON.parse(read.text); } catch { return undefined; }
  const s = shaped(raw);
  return s && s.config === configPath ? s : undefined;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const count = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

function shaped(raw: unknown): ReloadStatus | undefined {
  if (!isJsonObject(raw)) return undefined;
  const { config, pid, at, event } = raw as Record<string, unknown>;
  if (typeof config !== "string" || !count(pid) || typeof at !== "string") return undefined;
  const head = { config, pid, at };
  const r = raw as Record<string, unknown>;
  if (event === "applied" && strings(r.added) && strings(r.removed) && strings(r.restarted) && strings(r.restartNeeded)) {
    return { ...head, event, added: r.added, removed: r.removed, restarted: r.restarted, restartNeeded: r.restartNeeded };
  }
  if (event === "refused" && Array.isArray(r.errors) && count(r.moreErrors)) {
    const errors = r.errors.slice(0, RELOAD_STATUS_ERRORS_MAX).filter((e): e is ConfigError => isJsonObject(e) && typeof e.path === "string" && typeof e.message === "string");
    return { ...head, event, errors: errors.map((e) => ({ path: e.path, message: e.message })), moreErrors: r.moreErrors };
  }
  return undefined;
}
