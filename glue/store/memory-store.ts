// State in this process's memory: the default, and all one atrium needs without replicas.
import type { Core } from "../decisions/core.js";
import { ResultStash } from "../results/stash.js";
import { MemoryRateWindows } from "./rate-windows.js";
import type { StateStore, StoreLimits } from "./state-store.js";

export function memoryStore(core: Core, limits: StoreLimits): StateStore {
  return {
    kind: "memory",
    results: new ResultStash(limits.results),
    views: new ResultStash(limits.views),
    rates: new MemoryRateWindows(core),
    ready: async () => true,
    close: async () => {},
  };
}
