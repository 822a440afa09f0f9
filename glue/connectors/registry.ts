// All connectors of one atrium process: each starts on its own in the background (never
// blocking initialize or another connector), looked up by id, and all ended when atrium ends
// so no child is orphaned. A config reload adds, removes and restarts exactly the connectors
// whose entries changed (apply).
// A connector with `"auth": "per-user"` has one instance per principal besides the `local` one
// in `connectors` (team mode): each carries its principal's login only (its OAuth provider reads
// that principal's records), is opened on the principal's first request (instanceFor, seenBy),
// at most PER_USER_CONNECTORS_MAX at once (the least recently used is closed first; its login
// stays stored), and is retired with its entry by a reload.
import type { AtriumConfig, ConnectorConfig, LifecycleConfig } from "../config/schema.js";
import { diffConnectors, type ConnectorChanges } from "../config/diff.js";
import { core } from "../decisions/core.js";
import { Budget, PER_USER_CONNECTORS_MAX } from "../decisions/generated/spec.js";
import { LOCAL_PRINCIPAL } from "../support/principal.js";
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
  /** Per-user connectors' instances of principals other than `local`, keyed by [principal, connector], least recently used first. */
  private readonly owned = new Map<string, Connector>();
  private lifecycle: LifecycleConfig;

  /** `passthrough`: where the connectors' prompts changes and questions go on toward the host. */
  constructor(config: Pick<AtriumConfig, "connectors" | "lifecycle">, private readonly version: string, env: NodeJS.ProcessEnv = process.env, readonly passthrough = new DownstreamPassthrough()) {
    const nest = nesting(core(), env);
    this.depth = nest.depth;
    this.refusal = nest.allowed ? undefined : `was not started: this atrium is nested ${nest.depth} deep behind other atriums, past the nesting_depth limit of ${nest.limit}`;
    this.lifecycle = config.lifecycle;
    this.connectors = config.connectors.map((cc) => this.create(cc, config.lifecycle));
  }

  /**
   * The instance of connector `id` whose calls carry `owner`'s login: the configured one, unless
   * the connector is per-user and the owner is not `local`; then that principal's own (opened and
   * started now if it is not open). Undefined when no connector has this id.
   */
  instanceFor(id: string, owner: string): Connector | undefined {
    const shared = this.get(id);
    if (!shared || !perUser(shared.config) || owner === LOCAL_PRINCIPAL.id) return shared;
    const key = JSON.stringify([owner, id]);
    let c = this.owned.get(key);
    if (c) {
      this.owned.delete(key); // most recently used last
      this.owned.set(key, c);
      return c;
    }
    c = this.create(shared.config, this.lifecycle, owner);
    this.owned.set(key, c);
    if (this.owned.size > PER_USER_CONNECTORS_MAX) {
      const [oldestKey, oldest] = this.owned.entries().next().value!;
      this.owned.delete(oldestKey);
      void this.retireOwned(oldest, "was closed to make room for another person's connection; call it again");
    }
    void c.start();
    return c;
  }

  /** The connectors as `owner` sees them, in config order: each per-user one as that principal's instance. */
  seenBy(owner: string): Connector[] {
    if (owner === LOCAL_PRINCIPAL.id || !this.connectors.some((c) => perUser(c.config))) return this.connectors;
    return this.connectors.map((c) => (perUser(c.config) ? this.instanceFor(c.id, owner)! : c));
  }

  /** Whether any configured connector keeps one login per principal. */
  hasPerUser(): boolean {
    return this.connectors.some((c) => perUser(c.config));
  }

  private retireOwned(c: Connector, why: string): Promise<void> {
    this.retiring.add(c);
    return c.retire(why, true).finally(() => this.retiring.delete(c));
  }

  private create(cc: ConnectorConfig, lifecycle: LifecycleConfig, owner: string = LOCAL_PRINCIPAL.id): Connector {
    const c = core();
    const limits = {
      startRetries: lifecycle.startRetries,
      backoffFirstMs: c.limitDefault(Budget.connector_backoff_first_ms),
      restartMaxMs: lifecycle.restartMaxMs,
      stderrBytes: c.limitDefault(Budget.stderr_ring_bytes),
      depth: this.depth,
    };
    return new Connector(cc, limits, this.version, () => this.changed(), this.refusal, this.passthrough, owner);
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
    this.lifecycle = config.lifecycle;
    // A principal's instance of an entry that changed or went ends with it; the next request opens one of the new entry.
    for (const [key, c] of this.owned) {
      if (keep.has(c.id)) continue;
      this.owned.delete(key);
      ending.push(this.retireOwned(c, diff.removed.includes(c.id) ? "was removed from the config by a reload" : "was restarted by a config reload; call it again"));
    }
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

  /**
   * Starts every connector in parallel; settles when each has made its first attempt (doctor waits
   * for it; serve does not). `after`: what must settle before the first tries (serve: initialize
   * answered); each attempt is under way at once, so a call waits for it as for any start.
   */
  startAll(after?: Promise<void>): Promise<void> {
    return (this.started ??= Promise.all(this.connectors.map((c) => c.start(after))).then(() => undefined));
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.connectors, ...this.owned.values()].map((c) => c.stop()));
  }

  /** Last resort at process exit: kill any child still alive (synchronous). */
  killAll(): void {
    for (const c of [...this.connectors, ...this.owned.values(), ...this.retiring]) {
      const pid = c.pid;
      if (pid) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

const perUser = (cc: ConnectorConfig): boolean => cc.kind === "http" && cc.auth === "per-user";
