// Detects the host once per process (stdio: one client) from its initialize capabilities,
// through the core (spec/host-detection.md), and keeps the decision.
import type { Core, HostDecision } from "./core.js";
import { hostFacts } from "./facts/host.js";
import type { ViewsConfig } from "../config/schema.js";

export class HostState {
  private decision?: HostDecision;
  constructor(private readonly core: Core, private readonly views: ViewsConfig) {}

  /** Decide from the client's declared capabilities; later calls keep the first decision. */
  detect(capabilities: unknown): HostDecision {
    if (this.decision) return this.decision;
    const d = this.core.detectHost(hostFacts(this.core, capabilities, this.views.delivery, this.views.fileFallback));
    if (capabilities !== undefined) this.decision = d; // before initialize there is nothing to keep
    return d;
  }

  get current(): HostDecision | undefined {
    return this.decision;
  }
}
