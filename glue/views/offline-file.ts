// Writes an offline view file where only this user can read it: atrium's private views
// directory under the user's state directory (glue/support/state-dir.ts), or the operator's
// views.directory. The file is written 0600 under a temporary name in the same directory and
// renamed into place, then retention prunes old files (view-retention.ts). A directory that
// cannot be private means no file, and a reason for the model.
import { randomBytes } from "node:crypto";
import { renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { VIEW_TEMP_NAME_RANDOM_BYTES } from "../decisions/generated/spec.js";
import { stateDir } from "../support/state-dir.js";
import { FILE_MODE_PRIVATE } from "../support/wire.js";
import { offlineHtml } from "./offline-html.js";
import { privateDir } from "../support/private-dir.js";
import { pruneViewFiles, viewFileName, viewTempName } from "./view-retention.js";

export type OfflineWrite = { path: string } | { refused: string };

/** atrium's own views directory (when the operator names none). */
const defaultViewsDir = () => join(stateDir(), "views");

export function writeOfflineView(id: string, payload: { html: string; reads?: unknown }, directory: string | null): OfflineWrite {
  const dir = resolve(directory ?? defaultViewsDir());
  const ready = privateDir(dir, directory === null);
  if (!ready.ok) return { refused: ready.reason };
  const name = viewFileName(id);
  const path = join(dir, name);
  const temp = join(dir, viewTempName(id, randomBytes(VIEW_TEMP_NAME_RANDOM_BYTES).toString("hex")));
  try {
    writeFileSync(temp, offlineHtml(payload), { mode: FILE_MODE_PRIVATE, flag: "wx" });
    renameSync(temp, path);
  } catch (e) {
    try { unlinkSync(temp); } catch { /* never created */ }
    return { refused: `the file could not be written in ${dir}: ${(e as Error).message}` };
  }
  pruneViewFiles(dir, name);
  return { path };
}
