// All connectors of one atrium process: started in parallel (never blocking initialize),
// looked up by id, and all ended when atrium ends so no child is orphaned.
import type { AtriumConfig } from "../config/schema.js";
import { core } from "../core.js";
import { Budget } from "../generated/spec.js";
import { Connector } from "./connector.js";

export class ConnectorRegistry {
  readonly connectors: Connector[];
  private listeners: (() => void)[] = [];
  private started?: Promise<void>;

  constructor(config: Pick<AtriumConfig, "connectors">, version: string) {
    const c = core();
    const limits = { startMs: c.limitDefault(Budget.connector_start_ms), restartMaxMs: c.limitDefault(Budget.connector_restart_max_ms), stderrBytes: c.limitDefault(Budget.stderr_ring_bytes) };
    this.connectors = config.connectors.map((cc) => new Connector(cc, limits, version, () => this.changed()));
  }

  get(id: string): Connector | undefined {
    return this.connectors.find((c) => c.id === id);
  }

  /** Starts every connector in parallel; the promise settles when all are ready or failed. */
  startAll(): Promise<void> {
    return (this.started ??= Promise.all(this.connectors.map((c) => c.start())).then(() => undefined));
  }

  /** Waits for startup to settle (tools answer from a complete catalog, not a half-started one). */
  async settled(): Promise<void> {
    await Promise.all(this.connectors.map((c) => c.settled()));
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
