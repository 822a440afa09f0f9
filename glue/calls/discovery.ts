// The one discovery service behind `search_tools`, a program's `atrium.search` and
// `atrium.describe`: the same ranking (lexical, or hybrid once the semantic layer's vectors are
// ready), the same row shape, and the same list of connectors whose tools are missing (and why),
// whichever path asks. A quarantined tool (spec/pins.md) is listed with why and the command that
// reviews it, its own text withheld. And the answer to a tools/call naming none of atrium's own
// tools (often a connector's tool by its bare name): the address, and how to call it.
import type { Catalog } from "../catalog/catalog.js";
import { searchIndex, type ExtraScores, type SearchQuery } from "../catalog/search-index.js";
import { AtriumError, clampEcho, type ErrorBody, type NextAction } from "../support/errors.js";
import { shortDescription } from "../catalog/describe.js";
import { compactSchema } from "../catalog/compact-schema.js";
import type { CatalogEntry } from "../catalog/entry.js";
import { SEARCH_PHRASINGS_MAX } from "../decisions/generated/spec.js";
import { semanticEvidence } from "../embeddings/evidence.js";
import type { ToolCosines } from "../embeddings/tool-vectors.js";
import { pinReasonText, quarantinedDescription, searchNothingWhileStartingText, searchStartingText, unknownMetaToolText } from "../decisions/messages.js";
import { MS_PER_SECOND } from "../support/format.js";
import { nearestAddresses } from "../catalog/resolver.js";
import { nearestNames } from "../support/text/nearest-names.js";

/** A tool no path may call until the operator accepts its change (spec/pins.md): why, and the command. */
interface Quarantined { reason: string; change: string; review: string }
const quarantinedOf = (entry: CatalogEntry): Quarantined | undefined =>
  entry.pin?.quarantined && { reason: pinReasonText[entry.pin.quarantined.reason], change: entry.pin.quarantined.change, review: `atrium pins accept ${entry.connectorId} ${entry.name}` };

interface Unavailable { connector: string; state: string; problem: string; nextAction?: NextAction }
/** What to try when a search found nothing, or only weak matches. */
interface Hint { message: string; connectors: string[] }
/**
 * The semantic layer as search asks it (embeddings/semantic-index.ts): every tool's cosine with the
 * nearest phrasing, undefined at once while its vectors are not ready, and a promise that answers
 * undefined when it cannot answer in time. Never rejects.
 */
export interface SemanticSource {
  scores(queries: readonly string[]): Promise<ToolCosines | undefined> | undefined;
}

/** Which ranking produced an answer: words alone, or words fused with the semantic layer's evidence. */
type Ranking = "lexical" | "hybrid";

export interface Found {
  /** First, in words, while connectors are still starting: which, and how to ask again (their tools are not in this answer). */
  starting?: string;
  /** "hybrid" when the semantic layer scored this search; "lexical" when it was off, not ready or late. */
  ranking: Ranking;
  total: number;
  results: { address: string; description: string; safety: CatalogEntry["safety"]; reason?: string; quarantined?: Quarantined; score: number; weak?: true; inputSchema?: unknown }[];
  unavailable?: Unavailable[];
  hint?: Hint;
}

/**
 * One ranked page; `schemas` adds each tool's compact input schema; `extra` is another score
 * source fused into the ranking (search-index.ts fuse()). A `connector` filter naming no
 * connector is an invalid_args error that names the known ones.
 * @internal exported for its tests and the search benches.
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
  const ranking: Ranking = extra ? "hybrid" : "lexical";
  const missing = catalog.missing().filter((m) => !q.connector || m.connector === q.connector);
  const starting = catalog.starting().filter((c) => !q.connector || c.connector === q.connector);
  return {
    ...(starting.length > 0 && { starting: startingNotice(starting) }),
    ranking,
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
    ...((total === 0 || (allWeak(rows) && !q.offset)) && { hint: hintFor(catalog, q, missing.length > 0, total > 0, starting.map((c) => c.connector)) }),
  };
}

const startingNotice = (list: ReturnType<Catalog["starting"]>): string => searchStartingText(list.map((c) => ({
  connector: c.connector,
  startS: Math.ceil(c.startMs / MS_PER_SECOND),
  ...(c.nextAttemptAt !== undefined && { retryInS: Math.max(0, Math.ceil((c.nextAttemptAt - Date.now()) / MS_PER_SECOND)) }),
})));

/**
 * Waits, bounded by its start deadline (connector startTimeoutMs) or the caller's signal, for the
 * one connector a search filter or an address names, as a call does (invoke.ts): a search or
 * describe right after atrium starts answers from it, not from its absence. Never throws.
 */
async function settled(catalog: Catalog, address: unknown, signal?: AbortSignal): Promise<void> {
  await catalog.viewOf(address)?.whenSettled(signal);
}

/**
 * findTools with the semantic layer: the search's phrasings are scored by meaning when its vectors
 * are ready (waiting at most EMBED_QUERY_WAIT_MS, inside the layer), and fused with the lexical
 * ranking; otherwise, or when it is late, the answer is lexical at once. A search naming a
 * connector first waits for it (settled); one across all connectors does not.
 */
export async function searchCatalog(catalog: Catalog, semantic: SemanticSource | undefined, q: SearchQuery & { schemas?: boolean }, signal?: AbortSignal): Promise<Found> {
  if (typeof q.connector === "string") await settled(catalog, `${q.connector}.`, signal);
  const phrasings = [q.query, ...(Array.isArray(q.queries) ? q.queries : [])].filter((p) => typeof p === "string" && p.trim() !== "").slice(0, SEARCH_PHRASINGS_MAX);
  const pending = phrasings.length > 0 ? semantic?.scores(phrasings) : undefined;
  const cosines = pending ? await pending : undefined;
  return findTools(catalog, q, cosines ? semanticEvidence(cosines) : undefined);
}

/** A first page with results, every one of them weak: as good as nothing found (the hint says so). */
const allWeak = (rows: readonly { weak: boolean }[]): boolean => rows.length > 0 && rows.every((r) => r.weak);

function hintFor(catalog: Catalog, q: SearchQuery, someUnavailable: boolean, onlyWeak: boolean, starting: readonly string[]): Hint {
  const connectors = catalog.connectorIds();
  const scope = q.connector ? `connector ${q.connector}` : connectors.length > 0 ? "any connector" : "the catalog (no connector is configured)";
  const first = starting.length > 0 && !onlyWeak ? searchNothingWhileStartingText(starting)
    : onlyWeak ? `No tool in ${scope} matched well: every result is weak, probably not what was asked for.` : `No tool in ${scope} matched.`;
  const parts = [first, "Try the words a tool's name would use (create, list, get, search, update, delete and the thing), or pass two or three phrasings in `queries`;", "an empty query lists every tool."];
  if (q.safety && q.safety !== "any") parts.push(`Only ${q.safety} tools were searched.`);
  if (starting.length > 0 && onlyWeak) parts.push(searchNothingWhileStartingText(starting));
  if (someUnavailable) parts.push("Some connectors are unavailable: their tools are missing (see `unavailable`).");
  return { message: parts.join(" "), connectors };
}

/** describeTool once the connector the address names has settled (its start, a changing listing). */
export async function describeSettled(catalog: Catalog, address: unknown, signal?: AbortSignal): Promise<ReturnType<typeof describeTool>> {
  await settled(catalog, address, signal);
  return describeTool(catalog, address);
}

/** One tool's full description, or a typed error from resolving its address (thrown). */
export function describeTool(catalog: Catalog, address: unknown) {
  const { entry } = catalog.resolve(address);
  const quarantined = quarantinedOf(entry);
  // A quarantined tool's definition is what is in question: none of its text reaches the model.
  if (quarantined) return { ok: true as const, address: entry.address, description: quarantinedDescription, safety: entry.safety, reason: entry.reason, quarantined };
  return { ok: true as const, address: entry.address, title: entry.title, description: entry.description, safety: entry.safety, reason: entry.reason, inputSchema: compactSchema(entry.inputSchema) };
}

/**
 * A tools/call naming none of atrium's own tools (`own`: those this host is offered): its words and
 * the typed error its JSON-RPC error carries as data. A connector's tool called by its bare name
 * (or its address) is named with the call that reaches it; anything else is sent to search_tools.
 */
export function unknownMetaTool(catalog: Catalog, name: string, own: readonly string[]): { message: string; data: ErrorBody } {
  let exact: CatalogEntry | undefined;
  try { exact = catalog.resolve(name).entry; } catch { exact = undefined; }
  const entries = catalog.entries();
  const near = exact ? [exact] : nearestAddresses(name, entries).map((a) => entries.find((e) => e.address === a)!);
  const via = (e: CatalogEntry) => (e.safety === "read_only" ? "call_tool" : "call_destructive_tool");
  const shown = clampEcho(name);
  const message = unknownMetaToolText(shown, own, nearestNames(name, own), near.map((e) => ({ address: e.address, via: via(e) })));
  const first = near[0];
  const error = new AtriumError("unknown_tool", message, {
    ...(near.length && { details: { nearest: near.map((e) => e.address) } }),
    nextAction: first
      ? { tool: via(first), arguments: { address: first.address, args: {} }, purpose: `call the connector's tool ${first.address} by its address` }
      : { tool: "search_tools", arguments: { query: shown }, purpose: "find the tool's address" },
  });
  return { message, data: error.toJSON() };
}
