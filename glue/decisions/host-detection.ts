// Which host is asking, through the core (spec/host-detection.md). 2025-11-25: decided once,
// from the capabilities the client declared at initialize, and kept for that connection (stdio has
// one; serve --http one per session, each its own host). 2026-07-28: decided for each request from
// its own _meta (H13), nothing kept. And whether an app-only tool is listed or runs for that host (H14).
import type { Core, HostDecision } from "./core.js";
import { hostFacts, requestCapabilities } from "./facts/host.js";
import { AppOnly, AppOnlyUse, Revision, type DeliveryOverrideName } from "./generated/spec.js";

/** What detection reads of the views config (config/schema.ts ViewsConfig has these): the operator's delivery override and the file fallback. */
interface DeliverySettings { delivery: DeliveryOverrideName; fileFallback: boolean }

export class HostState {
  /** `views`: read at each detection, so a config reload's delivery settings apply to the next request. */
  constructor(private readonly core: Core, private readonly views: () => DeliverySettings) {}

  /** One connection's detector: the host deciding each of its requests, `session` what its initialize declared (2025-11-25), `meta` the request's own envelope. */
  forConnection(): (revision: Revision, session: unknown, meta: unknown) => HostDecision {
    let kept: HostDecision | undefined;
    return (revision, session, meta) => {
      if (revision === Revision.r2025_11_25 && kept) return kept;
      const d = this.core.detectHost(hostFacts(this.core, requestCapabilities(revision, session, meta), this.views().delivery, this.views().fileFallback));
      if (revision === Revision.r2025_11_25 && session !== undefined) kept = d; // before initialize there is nothing to keep
      return d;
    };
  }

  /** H14: whether an app-only tool is listed (`list`) or runs (`call`) for this host. */
  appOnly(revision: Revision, host: HostDecision, use: AppOnlyUse): boolean {
    return this.core.appOnly(revision, host.kind, use) === AppOnly.offered;
  }
}
