// What a config reload changes: which connectors are added, removed or restarted (their
// validated entries compared key by key, key order ignored) and which settings cannot change
// while atrium runs (the sandbox pool's size, its queue and its workers' heap; the result
// stash's bounds), so a reload keeps their running values and says a restart is needed.
import type { AtriumConfig, ConnectorConfig } from "./schema.js";
import { canonicalJson } from "../support/canonical-json.js";

/** Ids, by what a reload did to them. */
export interface ConnectorChanges { added: string[]; removed: string[]; restarted: string[] }

export interface ConnectorDiff {
  /** In the new file order. */
  added: ConnectorConfig[];
  removed: string[];
  /** Entries whose validated settings differ: the old connector stops, a new one starts. */
  restarted: ConnectorConfig[];
  unchanged: string[];
}

export function diffConnectors(running: readonly ConnectorConfig[], next: readonly ConnectorConfig[]): ConnectorDiff {
  const before = new Map(running.map((c) => [c.id, canonicalJson(c)]));
  const ids = new Set(next.map((c) => c.id));
  const diff: ConnectorDiff = { added: [], removed: running.filter((c) => !ids.has(c.id)).map((c) => c.id), restarted: [], unchanged: [] };
  for (const c of next) {
    const was = before.get(c.id);
    if (was === undefined) diff.added.push(c);
    else if (was !== canonicalJson(c)) diff.restarted.push(c);
    else diff.unchanged.push(c.id);
  }
  return diff;
}

/**
 * The config a reload applies: `next`, except the settings fixed for the life of the process
 * (they size or start what serve built at start: the sandbox pool, the result stash, the
 * semantic search layer, the activity log), which keep their running values; `restartNeeded`
 * names each of them the file changed (`atrium.sandbox.workers`, `atrium.search`).
 */
export function effectiveConfig(running: AtriumConfig, next: AtriumConfig): { config: AtriumConfig; restartNeeded: string[] } {
  const { workers, queue, heapBytes } = running.sandbox;
  const { stashTtlMs, stashBytes } = running.results;
  const config: AtriumConfig = { ...next, sandbox: { ...next.sandbox, workers, queue, heapBytes }, results: { ...next.results, stashTtlMs, stashBytes }, search: running.search, log: running.log };
  const fixed: [string, unknown, unknown][] = [
    ["atrium.sandbox.workers", workers, next.sandbox.workers],
    ["atrium.sandbox.queue", queue, next.sandbox.queue],
    ["atrium.sandbox.heapBytes", heapBytes, next.sandbox.heapBytes],
    ["atrium.results.stashTtlMs", stashTtlMs, next.results.stashTtlMs],
    ["atrium.results.stashBytes", stashBytes, next.results.stashBytes],
    ["atrium.search", running.search, next.search],
    ["atrium.log", running.log, next.log],
  ];
  const restartNeeded = fixed.filter(([, was, now]) => JSON.stringify(was) !== JSON.stringify(now)).map(([path]) => path);
  return { config, restartNeeded };
}
