// The one discovery service behind `search_tools`, a program's `atrium.search` and
// `atrium.describe`: the same ranking, the same row shape, and the same list of connectors
// whose tools are missing (and why), whichever path asks. A quarantined tool (spec/pins.md) is
// listed with why and the command that reviews it, its own text withheld.
import type { Catalog } from "../catalog/catalog.js";
import { searchIndex, type ExtraScores, type SearchQuery } from "../catalog/search-index.js";
import { AtriumError } from "../support/errors.js";
import { shortDescription } from "../catalog/describe.js";
import { compactSchema } from "../catalog/compact-schema.js";
import type { CatalogEntry } from "../catalog/entry.js";
import type { NextAction } from "../support/errors.js";
import { pinReasonText, quarantinedDescription } from "../decisions/messages.js";

/** A tool no path may call until the operator accepts its change (spec/pins.md): why, and the command. */
interface Quarantined { reason: string; change: string; review: string }
const quarantinedOf = (entry: CatalogEntry): Quarantined | undefined =>
  entry.pin?.quarantined && { reason: pinReasonText[entry.pin.quarantined.reason], change: entry.pin.quarantined.change, review: `atrium pins accept ${entry.connectorId} ${entry.name}` };

interface Unavailable { connector: string; state: string; problem: string; nextAction?: NextAction }
/** What to try when a search found nothing. */
interface Hint { message: string; connectors: string[] }
export interface Found {
  total: number;
  results: { address: string; description: string; safety: CatalogEntry["safety"]; reason?: string; quarantined?: Quarantined; score: number; weak?: true; inputSchema?: unknown }[];
  unavailable?: Unavailable[];
  hint?: Hint;
}

/**
 * One ranked page; `schemas` adds each tool's compact input schema; `extra` is another score
 * source fused into the ranking (search-index.ts fuse()). A `connector` filter naming no
 * connector is an invalid_args error that names the known ones.
 */
export function findTools(catalog: Catalog, q: SearchQuery & { schemas?: boolean }, extra?: ExtraScores): Found {
  const known = q.connector === undefined ? [] : catalog.connectorNames();
  if (q.connector !== undefined && !known.includes(q.connector)) {
    throw new AtriumError("invalid_args", `no connector named ${JSON.stringify(q.connector)}; connectors: ${known.join(", ") || "none"}`, {
      details: { connectors: known },
      nextAction: { tool: "search_tools", arguments: { query: typeof q.query === "string" ? q.query : "" }, purpose: "search every connector" },
    });
  }
  const { total, rows } = searchIndex(catalog.index(), q, extra);
  const missing = catalog.missing().filter((m) => !q.connector || m.connector === q.connector);
  return {
    total,
    results: rows.map(({ entry, score, weak }) => ({
      address: entry.address,
      description: entry.pin?.quarantined ? quarantinedDescription : shortDescription(entry),
      safety: entry.safety,
      ...(entry.safety === "approval" && { reason: entry.reason }),
      ...(entry.pin?.quarantined && { quarantined: quarantinedOf(entry) }),
      score,
      ...(weak && { weak: true as const }),
      ...(q.schemas && { inputSchema: compactSchema(entry.inputSchema) }),
    })),
    ...(missing.length > 0 && { unavailable: missing.map((m) => ({ connector: m.connector, state: m.state, problem: m.problem, ...(m.nextAction && { nextAction: m.nextAction }) })) }),
    ...(total === 0 && { hint: hintFor(catalog, q, missing.length > 0) }),
  };
}

function hintFor(catalog: Catalog, q: SearchQuery, someUnavailable: boolean): Hint {
  const connectors = catalog.connectorIds();
  const scope = q.connector ? `connector ${q.connector}` : connectors.length > 0 ? "any connector" : "the catalog (no connector is configured)";
  const parts = [`No tool in ${scope} matched.`, "Try the words a tool's name would use (create, list, get, search, update, delete and the thing), or pass two or three phrasings in `queries`;", "an empty query lists every tool."];
  if (q.safety && q.safety !== "any") parts.push(`Only ${q.safety} tools were searched.`);
  if (someUnavailable) parts.push("Some connectors are unavailable: their tools are missing (see `unavailable`).");
  return { message: parts.join(" "), connectors };
}

/** One tool's full description, or a typed error from resolving its address (thrown). */
export function describeTool(catalog: Catalog, address: unknown) {
  const { entry } = catalog.resolve(address);
  const quarantined = quarantinedOf(entry);
  // A quarantined tool's definition is what is in question: none of its text reaches the model.
  if (quarantined) return { ok: true as const, address: entry.address, description: quarantinedDescription, safety: entry.safety, reason: entry.reason, quarantined };
  return { ok: true as const, address: entry.address, title: entry.title, description: entry.description, safety: entry.safety, reason: entry.reason, inputSchema: compactSchema(entry.inputSchema) };
}
