// The search benchmark's data: the captured tools/list catalogs of real MCP servers
// (catalogs/*.json, sources.json) and the labelled queries (queries.json, field-queries.json), read from the
// repository, plus the word check that keeps a "paraphrase" query honest. Shared by the runner
// (run.ts) and the data test (test/search-bench-data.test.ts).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../../glue/support/package-root.js";

const benchDir = join(packageRoot, "test", "bench", "search");

export interface CapturedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations?: unknown;
}
export interface CapturedCatalog { server: string; package: string; version: string; tools: CapturedTool[] }

export const KINDS = ["direct", "paraphrase", "sibling", "cross_server", "negative"] as const;
/** The field set's kinds (field-queries.json, issue 18): how a new user phrases a need. */
export const FIELD_KINDS = ["short", "action_word", "names_service", "natural", "negative"] as const;
export type Kind = (typeof KINDS)[number] | (typeof FIELD_KINDS)[number];
export const SPLITS = ["tune", "heldout"] as const;
/** "field": the field set, held out like `heldout` (never tuned on), kept apart from the 199. */
type Split = (typeof SPLITS)[number] | "field";
export interface BenchQuery { id: string; query: string; expect: string[]; kind: Kind; split: Split }

/** Every captured catalog, in file-name order. */
export function loadCatalogs(): CapturedCatalog[] {
  const dir = join(benchDir, "catalogs");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as CapturedCatalog);
}

export function loadQueries(): BenchQuery[] {
  return (JSON.parse(readFileSync(join(benchDir, "queries.json"), "utf8")) as { queries: BenchQuery[] }).queries;
}

/** The field set: queries a new user typed at real catalogs, written before issue 18's ranking work. */
export function loadFieldQueries(): BenchQuery[] {
  const raw = (JSON.parse(readFileSync(join(benchDir, "field-queries.json"), "utf8")) as { queries: Omit<BenchQuery, "split">[] }).queries;
  return raw.map((q) => ({ ...q, split: "field" }));
}

export function loadSources(): { servers: { id: string; package: string; version: string; captured: string; tools: number }[] } {
  return JSON.parse(readFileSync(join(benchDir, "sources.json"), "utf8"));
}

// ---- the paraphrase check: independent of atrium's tokenizer on purpose ----------------

// Function words only: a paraphrase may share these with a tool's text.
const STOP = new Set([
  "a", "an", "and", "are", "as", "at", "be", "by", "do", "for", "from", "have", "how", "i", "in", "into", "is", "it",
  "its", "me", "my", "of", "on", "or", "our", "that", "the", "their", "this", "to", "we", "what", "when", "which", "who",
  "with", "you", "your", "s", "not", "all", "one", "else",
]);

// Longest first; a suffix is stripped only when at least three letters remain.
const SUFFIXES = ["ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "es", "ed", "ly", "s", "e"];

/** A light, deliberately eager stemmer: lowercase, strip one common suffix, "ies" → "y". */
function stemWord(word: string): string {
  const w = word.toLowerCase();
  for (const s of SUFFIXES) {
    if (w.endsWith(s) && w.length - s.length >= 3) {
      const base = w.slice(0, -s.length);
      return s === "ies" || s === "ied" ? base + "y" : base;
    }
  }
  return w;
}

/** The stemmed content words of a text: split on anything not a letter or digit and on camelCase. */
function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const chunk of text.split(/[^\p{L}\p{N}]+/u)) {
    for (const part of chunk.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})/u)) {
      const w = part.toLowerCase();
      if (w.length > 0 && !STOP.has(w)) out.add(stemWord(w));
    }
  }
  return out;
}

/** The words a query shares with a tool's name, title and description (empty for an honest paraphrase). */
export function sharedWords(query: string, tool: CapturedTool): string[] {
  const toolWords = contentWords([tool.name, tool.title ?? "", tool.description ?? ""].join(" "));
  return [...contentWords(query)].filter((w) => toolWords.has(w));
}

/** address → the captured tool. */
export function toolsByAddress(catalogs: CapturedCatalog[]): Map<string, CapturedTool> {
  const m = new Map<string, CapturedTool>();
  for (const c of catalogs) for (const t of c.tools) m.set(`${c.server}.${t.name}`, t);
  return m;
}
