// The bounds the shared parts are kept under, from the running config and the core's budgets:
// one place, so memory and the store hold the same caps.
import type { Core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import type { StoreLimits } from "./state-store.js";

export function storeLimits(core: Core, results: { stashTtlMs: number; stashBytes: number }): StoreLimits {
  return {
    results: { ttlMs: results.stashTtlMs, maxBytes: results.stashBytes },
    views: { ttlMs: core.limitDefault(Budget.view_store_ttl_ms), maxBytes: core.limitDefault(Budget.view_store_bytes) },
  };
}
