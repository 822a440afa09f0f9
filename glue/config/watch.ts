// When to look at the config file again: watches the folder that holds it (editors replace a
// file by writing another and renaming it over, so watching the file itself would lose it) and
// calls `settled` once the folder has been quiet for CONFIG_RELOAD_DEBOUNCE_MS after a change
// that may concern the file. A config file that is a symbolic link is watched at both ends (the
// link's folder and its target's). `again()` asks for one more look after the same quiet time (a
// file read mid-write). A folder that cannot be watched is said once; serving goes on without reloads.
import { realpathSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { CONFIG_RELOAD_DEBOUNCE_MS } from "../decisions/generated/spec.js";

export class ConfigWatcher {
  private watchers: FSWatcher[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly path: string, private readonly settled: () => void, private readonly warn: (line: string) => void) {}

  start(): void {
    let real = this.path;
    try { real = realpathSync(this.path); } catch { /* missing now: watch where it is named */ }
    const ends = new Map<string, Set<string>>();
    for (const p of new Set([this.path, real])) ends.set(dirname(p), (ends.get(dirname(p)) ?? new Set()).add(basename(p)));
    for (const [dir, names] of ends) this.watchFolder(dir, names);
  }

  private watchFolder(dir: string, names: Set<string>): void {
    const cannot = (e: unknown) => this.warn(`atrium: cannot watch ${dir} for edits of ${[...names].join(", ")} (${(e as Error).message}); edits apply after a restart`);
    try {
      // Not persistent: the watch alone never keeps atrium running.
      const w = watch(dir, { persistent: false }, (_event, file) => {
        // Some platforms do not say which file changed: any change may be this one.
        if (file === null || names.has(String(file))) this.again();
      });
      w.on("error", (e) => { cannot(e); w.close(); });
      this.watchers.push(w);
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
    clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }
}
