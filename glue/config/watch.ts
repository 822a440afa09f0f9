// When to look at the config file again: watches the folder that holds it (editors replace a
// file by writing another and renaming it over, so watching the file itself would lose it) and
// calls `settled` once the folder has been quiet for CONFIG_RELOAD_DEBOUNCE_MS after a change
// that may concern the file. A config file that is a symbolic link is watched at both ends (the
// link's folder and its target's); the link is followed again at every change, so a link swapped
// to a target in another folder has that folder watched from then on (and the old one let go).
// `again()` asks for one more look after the same quiet time (a file read mid-write). A folder
// that cannot be watched is said once; serving goes on without reloads of what it holds.
import { realpathSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { CONFIG_RELOAD_DEBOUNCE_MS } from "../decisions/generated/spec.js";

export class ConfigWatcher {
  /** Each watched folder, with the names in it that are the config file (the link, its target). */
  private folders = new Map<string, { names: Set<string>; watcher?: FSWatcher }>();
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly path: string, private readonly settled: () => void, private readonly warn: (line: string) => void) {}

  start(): void {
    this.follow();
  }

  /** Watches the folders of the file's two ends as they are now: a new one is watched, one no longer an end is let go. */
  private follow(): void {
    if (this.closed) return;
    let real = this.path;
    try { real = realpathSync(this.path); } catch { /* missing now: watch where it is named */ }
    const ends = new Map<string, Set<string>>();
    for (const p of new Set([this.path, real])) ends.set(dirname(p), (ends.get(dirname(p)) ?? new Set()).add(basename(p)));
    for (const [dir, folder] of this.folders) {
      if (ends.has(dir)) continue;
      folder.watcher?.close();
      this.folders.delete(dir);
    }
    for (const [dir, names] of ends) {
      const folder = this.folders.get(dir);
      if (folder) folder.names = names;
      else this.watchFolder(dir, names);
    }
  }

  private watchFolder(dir: string, names: Set<string>): void {
    const folder: { names: Set<string>; watcher?: FSWatcher } = { names };
    this.folders.set(dir, folder);
    const cannot = (e: unknown) => this.warn(`atrium: cannot watch ${dir} for edits of ${[...folder.names].join(", ")} (${(e as Error).message}); edits apply after a restart`);
    try {
      // Not persistent: the watch alone never keeps atrium running.
      const w = watch(dir, { persistent: false }, (_event, file) => {
        // Some platforms do not say which file changed: any change may be this one.
        if (file !== null && !folder.names.has(String(file))) return;
        this.follow();
        this.again();
      });
      w.on("error", (e) => { cannot(e); w.close(); });
      folder.watcher = w;
    } catch (e) {
      cannot(e);
    }
  }

  /** Looks again once the folder has been quiet for the debounce time. */
  again(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.settled, CONFIG_RELOAD_DEBOUNCE_MS);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const folder of this.folders.values()) folder.watcher?.close();
    this.folders.clear();
  }
}
