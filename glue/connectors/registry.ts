// All connectors of one atrium process: each starts on its own in the background (never
// blocking initialize or another connector), looked up by id, and all ended when atrium ends
// so no child is orphaned. A config reload adds, removes and restarts exactly the connectors
// whose entries changed (apply).
import type { AtriumConfig, ConnectorConfig, LifecycleConfig } from "../config/schema.js";
import { diffConnectors, type ConnectorChanges } from "../config/diff.js";
import { core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import { Connector } from "./connector.js";
import { nesting } from "./nesting.js";
import { DownstreamPassthrough } from "./passthrough.js";

export class ConnectorRegistry {
  /** In config order; a reload (apply) changes it in place. */
  readonly connectors: Connector[];
  private listeners: (() => void)[] = [];
  private started?: Promise<void>;
  private readonly refusal?: string;
  private readonly depth: number;
  /** Connectors a reload removed or replaced, until their child has ended. */
  private readonly retiring = new Set<Connector>();
  /** Ids a reload removed (and none has added back since), so a call to one can say why it is gone. */
  private readonly removed = new Set<string>();

  /** `passthrough`: where the connectors' prompts changes and questions go on toward the host. */
  constructor(config: Pick<AtriumConfig, "connectors" | "lifecycle">, private readonly version: string, env: NodeJS.ProcessEnv = process.env, readonly passthrough = new DownstreamPassthrough()) {
    const nest = nesting(core(), env);
    this.depth = nest.depth;
    this.refusal = nest.allowed ? undefined : `was not started: this atrium is nested ${nest.depth} deep behind other atriums, past the nesting_depth limit of ${nest.limit}`;
    this.connectors = config.connectors.map((cc) => this.create(cc, config.lifecycle));
  }

  private create(cc: ConnectorConfig, lifecycle: LifecycleConfig): Connector {
    const c = core();
    const limits = {
      startRetries: lifecycle.startRetries,
      backoffFirstMs: c.limitDefault(Budget.connector_backoff_first_ms),
      restartMaxMs: lifecycle.restartMaxMs,
      stderrBytes: c.limitDefault(Budget.stderr_ring_bytes),
      depth: this.depth,
    };
    return new Connector(cc, limits, this.version, () => this.changed(), this.refusal, this.passthrough);
  }

  /**
   * A reloaded config's connectors: the entries that changed are replaced (the old one stops
   * first, the new one starts after it, so a call waits for it like a start), removed ones stop
   * (their calls in flight end), added ones start in the background, and the others keep
   * running untouched. Resolves once every removed or replaced child has ended.
   */
  async apply(config: Pick<AtriumConfig, "connectors" | "lifecycle">): Promise<ConnectorChanges> {
    const diff = diffConnectors(this.connectors.map((c) => c.config), config.connectors);
    const old = new Map(this.connectors.map((c) => [c.id, c]));
    const keep = new Set(diff.unchanged);
    const ending: Promise<void>[] = [];
    const retire = (c: Connector, why: string, replaced: boolean) => {
      this.retiring.add(c);
      const done = c.retire(why, replaced).finally(() => this.retiring.delete(c));
      ending.push(done);
      return done;
    };
    for (const id of diff.removed) {
      this.removed.add(id);
      void retire(old.get(id)!, "was removed from the config by a reload", false);
    }
    for (const cc of diff.added) this.removed.delete(cc.id);
    const next = config.connectors.map((cc) => (keep.has(cc.id) ? old.get(cc.id)! : this.create(cc, config.lifecycle)));
    this.connectors.splice(0, this.connectors.length, ...next);
    for (const c of next) {
      if (keep.has(c.id)) continue;
      const before = old.get(c.id);
      void c.start(before ? retire(before, "was restarted by a config reload; call it again", true) : undefined);
    }
    this.changed();
    await Promise.all(ending);
    return { added: diff.added.map((c) => c.id), removed: diff.removed, restarted: diff.restarted.map((c) => c.id) };
  }

  /** Whether a config reload removed the connector with this id. */
  wasRemoved(id: string): boolean {
    return this.removed.has(id);
  }

  get(id: string): Connector | undefined {
    return this.connectors.find((c) => c.id === id);
  }

  /** Starts every connector in parallel; settles when each has made its first attempt (doctor waits for it; serve does not). */
  startAll(): Promise<void> {
    return (this.started ??= Promise.all(this.connectors.map((c) => c.start())).then(() => undefined));
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.connectors.map((c) => c.stop()));
  }

  /** Last resort at process exit: kill any child still alive (synchronous). */
  killAll(): void {
    for (const c of [...this.connectors, ...this.retiring]) {
      const pid = c.pid;
      if (pid) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
