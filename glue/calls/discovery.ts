// The one discovery service behind `search_tools`, a program's `atrium.search` and
// `atrium.describe`: the same ranking, the same row shape, and the same list of connectors
// whose tools are missing (and why), whichever path asks.
import type { Catalog } from "../catalog/catalog.js";
import { searchIndex, type SearchQuery } from "../catalog/search-index.js";
import { shortDescription } from "../catalog/describe.js";
import { compactSchema } from "../catalog/compact-schema.js";
import type { CatalogEntry } from "../catalog/entry.js";
import type { NextAction } from "../support/errors.js";

interface Unavailable { connector: string; state: string; problem: string; nextAction?: NextAction }
export interface Found {
  total: number;
  results: { address: string; description: string; safety: CatalogEntry["safety"]; reason?: string; score: number; inputSchema?: unknown }[];
  unavailable?: Unavailable[];
}

/** One ranked page; `schemas` adds each tool's compact input schema. */
export function findTools(catalog: Catalog, q: SearchQuery & { schemas?: boolean }): Found {
  const { total, rows } = searchIndex(catalog.index(), q);
  const missing = catalog.missing().filter((m) => !q.connector || m.connector === q.connector);
  return {
    total,
    results: rows.map(({ entry, score }) => ({
      address: entry.address,
      description: shortDescription(entry),
      safety: entry.safety,
      ...(entry.safety === "approval" && { reason: entry.reason }),
      score,
      ...(q.schemas && { inputSchema: compactSchema(entry.inputSchema) }),
    })),
    ...(missing.length > 0 && { unavailable: missing.map((m) => ({ connector: m.connector, state: m.state, problem: m.problem, ...(m.nextAction && { nextAction: m.nextAction }) })) }),
  };
}

/** One tool's full description, or a typed error from resolving its address (thrown). */
export function describeTool(catalog: Catalog, address: unknown) {
  const { entry } = catalog.resolve(address);
  return { ok: true as const, address: entry.address, title: entry.title, description: entry.description, safety: entry.safety, reason: entry.reason, inputSchema: compactSchema(entry.inputSchema) };
}
