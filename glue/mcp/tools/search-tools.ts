// search_tools: one ranked list across every connector, best match first (lexical, or hybrid once
// the semantic layer is ready; the answer says which); paging continues that order. Several phrasings (`queries`) are ranked each and fused. Connectors whose tools are
// missing are named with the reason. A search naming a connector waits for its start (bounded by
// its start deadline); one across all connectors answers at once and says first which are still starting.
import { z } from "zod";
import { createHash } from "node:crypto";
import { defineTool } from "./meta-tool.js";
import { jsonResult } from "./tool-result.js";
import { searchCatalog } from "../../calls/discovery.js";
import { AtriumError } from "../../support/errors.js";
import { core } from "../../decisions/core.js";
import { Budget, CONNECTOR_ID_CHARS_MAX, SEARCH_CURSOR_CHARS_MAX, SEARCH_CURSOR_KEY_CHARS, SEARCH_PAGE_DEFAULT, SEARCH_PAGE_MAX, SEARCH_PHRASINGS_MAX } from "../../decisions/generated/spec.js";

/** One query, from here or a program's atrium.search (budget search_query_chars). */
const QUERY_CHARS = core().limitDefault(Budget.search_query_chars);

const phrasing = z.string().max(QUERY_CHARS, { error: `query is longer than search_query_chars (${QUERY_CHARS} characters); search with a few words` });
const input = z.object({
  query: phrasing.default("").describe("Empty lists everything"),
  queries: z.array(phrasing).max(SEARCH_PHRASINGS_MAX, { error: `queries takes at most ${SEARCH_PHRASINGS_MAX} phrasings` }).optional()
    .describe("Other phrasings of the same need, fused with query into one ranking"),
  connector: z.string().max(CONNECTOR_ID_CHARS_MAX).optional(),
  safety: z.enum(["read_only", "approval", "any"]).default("any"),
  limit: z.number().int().min(1).max(SEARCH_PAGE_MAX).default(SEARCH_PAGE_DEFAULT),
  cursor: z.string().max(SEARCH_CURSOR_CHARS_MAX).optional(),
  schemas: z.boolean().default(false).describe("Add compact input schemas"),
}).strict();

/**
 * A cursor is the offset, bound to the query and filters it was issued for, and the ranking that
 * ordered its page: a page after a lexical one stays lexical, so the semantic layer becoming
 * ready between two pages never reorders the list being paged.
 */
function queryKey(q: { query: string; queries?: string[]; connector?: string; safety: string }): string {
  return createHash("sha256").update(JSON.stringify([q.query, q.queries ?? [], q.connector ?? "", q.safety])).digest("base64url").slice(0, SEARCH_CURSOR_KEY_CHARS);
}
const CURSOR = new RegExp(`^(?<offset>\\d{1,9})\\.(?<key>[\\w-]{${SEARCH_CURSOR_KEY_CHARS}})(?:\\.(?<ranking>lexical|hybrid))?$`);
function readCursor(cursor: string | undefined, key: string): { offset: number; lexical: boolean } {
  if (cursor === undefined) return { offset: 0, lexical: false };
  const m = CURSOR.exec(Buffer.from(cursor, "base64url").toString())?.groups;
  if (!m || m.key !== key) throw new AtriumError("invalid_args", "cursor does not belong to this query; start again without a cursor");
  return { offset: Number(m.offset), lexical: m.ranking === "lexical" };
}

export const searchTools = defineTool({
  name: "search_tools",
  title: "Search tools",
  description: "Find tools across every connected server: addresses (<connector>.<tool>) ranked best first with a 0-1 score, each read_only (call_tool, programs) or approval (call_destructive_tool). When your words may not be the tool's words, pass two or three phrasings in `queries` (e.g. \"folder\", \"directory\"). Results marked weak are likely not what you asked for.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  uses: ["catalog", "semantic", "signal"] as const,
  input,
  async run(args, ctx) {
    if ((args.query === "" ? 0 : 1) + (args.queries?.length ?? 0) > SEARCH_PHRASINGS_MAX) {
      throw new AtriumError("invalid_args", `query and queries together take at most ${SEARCH_PHRASINGS_MAX} phrasings`);
    }
    const key = queryKey(args);
    const { offset, lexical } = readCursor(args.cursor, key);
    const found = await searchCatalog(ctx.catalog, lexical ? undefined : ctx.semantic, { query: args.query, queries: args.queries, connector: args.connector, safety: args.safety, offset, limit: args.limit, schemas: args.schemas }, ctx.signal);
    const next = offset + found.results.length;
    return jsonResult({ ...found, ...(next < found.total && { nextCursor: Buffer.from(`${next}.${key}.${found.ranking}`).toString("base64url") }) });
  },
});
