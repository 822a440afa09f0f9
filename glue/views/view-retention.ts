// Offline view files do not pile up: after each write, files older than view_file_age_ms go,
// then all but the newest view_files_kept. Only names atrium itself writes are ever touched
// (view-<uuid>.html and its own leftover temporary files), so an operator's directory may hold
// anything else.
import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/** A view file's name for an id. */
export const viewFileName = (id: string) => `view-${id}.html`;
/** The temporary name a view file is written under before it is renamed into place. */
export const viewTempName = (id: string, nonce: string) => `.view-${id}.html.${nonce}.tmp`;
const VIEW_FILE = new RegExp(`^view-${UUID}\\.html$`);
const TEMP_FILE = new RegExp(`^\\.view-${UUID}\\.html\\.[0-9a-f]{12}\\.tmp$`);

export interface Retention { kept: number; ageMs: number }

/** The budgets' defaults (spec/budgets.md). */
function defaultRetention(): Retention {
  return { kept: core().limitDefault(Budget.view_files_kept), ageMs: core().limitDefault(Budget.view_file_age_ms) };
}

/** Removes what retention allows in `dir`, never `keep`; returns the names removed. Errors leave files in place. */
export function pruneViewFiles(dir: string, keep: string, r: Retention = defaultRetention(), now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: { name: string; mtime: number; temp: boolean }[] = [];
  for (const name of names) {
    const temp = TEMP_FILE.test(name);
    if (name === keep || !(temp || VIEW_FILE.test(name))) continue;
    try {
      const st = lstatSync(join(dir, name));
      if (st.isFile()) files.push({ name, mtime: st.mtimeMs, temp });
    } catch {
      // gone already (another atrium pruning the same directory)
    }
  }
  const doomed = new Set(files.filter((f) => now - f.mtime > r.ageMs).map((f) => f.name));
  // The file just written counts as the newest one kept.
  const views = files.filter((f) => !f.temp && !doomed.has(f.name)).sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? -1 : 1));
  for (const f of views.slice(Math.max(0, r.kept - 1))) doomed.add(f.name);
  const removed: string[] = [];
  for (const name of doomed) {
    try {
      unlinkSync(join(dir, name));
      removed.push(name);
    } catch {
      // gone already, or not ours to remove after all
    }
  }
  return removed;
}
