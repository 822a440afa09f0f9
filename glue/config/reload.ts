// What one look at the edited config file does (the watcher says when to look): read it
// size-capped, parse and validate it with the loader's own rules, then either apply it — the
// connectors whose entries changed are added, removed or restarted, the rest untouched, and the
// other settings reach new runs through the running config — or refuse it and keep serving the
// running config. Either way: one stderr line, the status file doctor reads, and `onReload`
// (the activity log's hook). Text that does not parse is looked at once more before it counts
// as an error (a write in progress); the same content is never judged twice.
import type { Core } from "../decisions/core.js";
import { CONFIG_RELOAD_BYTES_MAX } from "../decisions/generated/spec.js";
import { readFileCapped } from "../support/read-capped.js";
import { effectiveConfig, type ConnectorChanges } from "./diff.js";
import { parseJson } from "./load.js";
import { validateConfig } from "./validate.js";
import { formatConfigErrors } from "./format.js";
import type { RunningConfig } from "./running.js";
import type { AtriumConfig, ConfigError } from "./schema.js";
import type { ReloadStatus } from "./reload-status.js";

/** What a reload did, for the activity log (glue/activity/ connects it in app.ts). */
export type ReloadOutcome = ({ ok: true } & ConnectorChanges) | { ok: false; errorPath: string };

/** A status without the process fields (the caller adds file, pid and time). */
export type ReloadStatusBody = ReloadStatus extends infer S ? (S extends unknown ? Omit<S, "config" | "pid" | "at"> : never) : never;

export interface ReloadDeps {
  path: string;
  core: Core;
  running: RunningConfig;
  /** The registry's reload (ConnectorRegistry.apply). */
  applyConnectors: (config: AtriumConfig) => Promise<ConnectorChanges>;
  /** One stderr line. */
  log: (line: string) => void;
  status: (body: ReloadStatusBody) => void;
  /** Asks for another look after the watcher's quiet time. */
  again: () => void;
  onReload?: (outcome: ReloadOutcome) => void;
}

export class ConfigReloader {
  /** The content last applied or refused: the same again is not judged again. */
  private judged?: string;
  /** What did not read or parse at the last look, given one more look before it is refused. */
  private unsettled?: string;
  private busy?: Promise<void>;
  private queued = false;

  constructor(private readonly deps: ReloadDeps) {
    // What serve loaded (or newer): an event that leaves the content as it is changes nothing.
    const now = readFileCapped(deps.path, CONFIG_RELOAD_BYTES_MAX, { followLinks: true });
    if (now.ok) this.judged = now.text;
  }

  /** One look; looks that come while one is applying run after it, once. */
  check(): void {
    if (this.busy) { this.queued = true; return; }
    this.busy = this.look().finally(() => {
      this.busy = undefined;
      if (this.queued) { this.queued = false; this.check(); }
    });
  }

  /** Settles when no look is in progress (tests). */
  async idle(): Promise<void> {
    while (this.busy) await this.busy;
  }

  private async look(): Promise<void> {
    const { path } = this.deps;
    const read = readFileCapped(path, CONFIG_RELOAD_BYTES_MAX, { followLinks: true });
    if (!read.ok) {
      // A file replaced by delete-then-create is briefly missing: look once more before refusing.
      const key = `\u0000${read.message}`;
      if (read.missing && this.unsettled !== key) return this.later(key);
      return this.refuse(key, [{ path: "", message: `cannot read ${path}: ${read.message}` }]);
    }
    const text = read.text;
    if (text === this.judged) { this.unsettled = undefined; return; }
    const parsed = parseJson(text.replace(/^\uFEFF/, ""));
    if (!parsed.ok) {
      if (this.unsettled !== text) return this.later(text);
      return this.refuse(text, [{ path: "", message: `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}` }]);
    }
    this.unsettled = undefined;
    const valid = validateConfig(parsed.value, this.deps.core);
    if (!valid.ok) return this.refuse(text, valid.errors);
    this.judged = text;
    await this.apply(valid.config, valid.warnings);
  }

  private later(key: string): void {
    this.unsettled = key;
    this.deps.again();
  }

  private refuse(key: string, errors: ConfigError[]): void {
    this.unsettled = undefined;
    if (key === this.judged) return;
    this.judged = key;
    const [first] = errors;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more; atrium doctor lists them)` : "";
    this.deps.status({ event: "refused", errors, moreErrors: 0 });
    this.deps.log(`atrium: config reload refused, the running config stays: ${formatConfigErrors(this.deps.path, [first])}${more}`);
    this.deps.onReload?.({ ok: false, errorPath: first.path });
  }

  private async apply(next: AtriumConfig, warnings: ConfigError[]): Promise<void> {
    const { config, restartNeeded } = effectiveConfig(this.deps.running.current, next);
    // New runs and calls read the new settings from here on; the connectors follow.
    this.deps.running.replace(config);
    const changes = await this.deps.applyConnectors(config);
    const parts = [
      changes.added.length ? `added ${changes.added.join(", ")}` : "",
      changes.removed.length ? `removed ${changes.removed.join(", ")}` : "",
      changes.restarted.length ? `restarted ${changes.restarted.join(", ")}` : "",
    ].filter(Boolean);
    const fixed = restartNeeded.length ? `; ${restartNeeded.join(", ")} changed but keep their values until atrium restarts` : "";
    this.deps.status({ event: "applied", ...changes, restartNeeded });
    this.deps.log(`atrium: config reloaded from ${this.deps.path}: ${parts.join("; ") || "no connector changed"}; new runs use its settings${fixed}`);
    for (const w of warnings) this.deps.log(`atrium: warning: ${formatConfigErrors(this.deps.path, [w])}`);
    this.deps.onReload?.({ ok: true, ...changes });
  }
}
