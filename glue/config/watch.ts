// When to look at the config file again: watches the folder that holds it (editors replace a
// file by writing another and renaming it over, so watching the file itself would lose it) and
// calls `settled` once the folder has been quiet for CONFIG_RELOAD_DEBOUNCE_MS after a change
// that may concern the file. `again()` asks for one more look after the same quiet time (a file
// read mid-write). A folder that cannot be watched is said once; serving goes on without reloads.
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { CONFIG_RELOAD_DEBOUNCE_MS } from "../decisions/generated/spec.js";

export class ConfigWatcher {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;

  constructor(private readonly path: string, private readonly settled: () => void, private readonly warn: (line: string) => void) {}

  start(): void {
    const dir = dirname(this.path);
    const name = basename(this.path);
    const cannot = (e: unknown) => this.warn(`atrium: cannot watch ${dir} for edits of ${name} (${(e as Error).message}); edits apply after a restart`);
    try {
      // Not persistent: the watch alone never keeps atrium running.
      this.watcher = watch(dir, { persistent: false }, (_event, file) => {
        // Some platforms do not say which file changed: any change may be this one.
        if (file === null || String(file) === name) this.again();
      });
      this.watcher.on("error", (e) => { cannot(e); this.close(); });
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
    this.watcher?.close();
    this.watcher = undefined;
  }
}
