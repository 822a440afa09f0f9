// All connectors of one atrium process: each starts on its own in the background (never
// blocking initialize or another connector), looked up by id, and all ended when atrium ends
// so no child is orphaned.
import type { AtriumConfig } from "../config/schema.js";
import { core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import { Connector } from "./connector.js";
import { nesting } from "./nesting.js";

export class ConnectorRegistry {
  readonly connectors: Connector[];
  private listeners: (() => void)[] = [];
  private started?: Promise<void>;

  constructor(config: Pick<AtriumConfig, "connectors" | "lifecycle">, version: string, env: NodeJS.ProcessEnv = process.env) {
    const c = core();
    const nest = nesting(c, env);
    const refusal = nest.allowed ? undefined : `was not started: this atrium is nested ${nest.depth} deep behind other atriums, past the nesting_depth limit of ${nest.limit}`;
    const limits = {
      startRetries: config.lifecycle.startRetries,
      backoffFirstMs: c.limitDefault(Budget.connector_backoff_first_ms),
      restartMaxMs: config.lifecycle.restartMaxMs,
      stderrBytes: c.limitDefault(Budget.stderr_ring_bytes),
      depth: nest.depth,
    };
    this.connectors = config.connectors.map((cc) => new Connector(cc, limits, version, () => this.changed(), refusal));
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
    for (const c of this.connectors) {
      const pid = c.pid;
      if (pid) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
