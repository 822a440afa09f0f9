// What `atrium doctor` tells an operator beyond health: operator lists naming tools the server
// does not have (the operator's intent is silently not applied), and for tools without a
// readOnlyHint a `readOnlyTools` line to review. Advice only: nothing here changes a config.
import { nearestNames } from "../support/text/nearest-names.js";

/**
 * First words of tool names that usually mean "only reads" (`list_issues`, `getUser`,
 * `search-code`, server-memory's `open_nodes`). Used only to pre-fill a suggestion the operator reviews, never to classify:
 * a name is the server author's wording, not a promise, so atrium itself decides read-only
 * from annotations and the operator's own lists alone (spec/read-only.md).
 */
const READ_ONLY_NAME_WORDS: readonly string[] = ["get", "list", "read", "search", "find", "query", "describe", "show", "fetch", "view", "count", "stat", "open", "lookup", "inspect"];

/** The first word of a tool name: split at `_`, `-`, `.`, a space or a lower-to-upper case change. @internal exported for its tests. */
export function firstWord(name: string): string {
  return (name.split(/[_\-. ]|(?<=[a-z0-9])(?=[A-Z])/)[0] ?? "").toLowerCase();
}

/** @internal exported for its tests. */
export const looksReadOnly = (name: string): boolean => READ_ONLY_NAME_WORDS.includes(firstWord(name));

export interface UnlistedTool { list: "readOnlyTools" | "approvalTools" | "keepOutsidePrograms"; name: string; nearest: string[] }

/** Names in the operator's lists that the server does not list, each with the closest real names. */
export function unlistedTools(lists: { readOnlyTools: readonly string[]; approvalTools: readonly string[]; keepOutsidePrograms?: readonly string[] }, toolNames: readonly string[]): UnlistedTool[] {
  const have = new Set(toolNames);
  const out: UnlistedTool[] = [];
  for (const list of ["readOnlyTools", "approvalTools", "keepOutsidePrograms"] as const) {
    for (const name of lists[list] ?? []) if (!have.has(name)) out.push({ list, name, nearest: nearestNames(name, toolNames) });
  }
  return out;
}

/**
 * The `"readOnlyTools": [...]` line to put in the connector's entry: what it already lists plus
 * the unannotated tools whose names look read-only (a suggestion; undefined when there is none).
 */
export function readOnlySuggestion(current: readonly string[], unannotated: readonly string[]): string | undefined {
  const add = unannotated.filter((n) => looksReadOnly(n) && !current.includes(n)).sort();
  return add.length ? `"readOnlyTools": [${[...current, ...add].map((n) => JSON.stringify(n)).join(", ")}]` : undefined;
}

/**
 * Words in a connector's id, command line or URL that name a well-known kind of server: those that
 * hold private data (files, repositories, databases, mail) and those that can carry data out
 * (fetching, searching, browsing, chatting, mailing). A suggestion the operator reviews for the
 * data-flow guard (spec/data-flow.md), never applied: the operator's settings alone count.
 */
const PRIVATE_DATA_WORDS: readonly string[] = ["filesystem", "files", "git", "postgres", "postgresql", "sqlite", "mysql", "mongodb", "database", "db", "gdrive", "drive", "gmail", "mail", "notes", "obsidian"];
const EGRESS_WORDS: readonly string[] = ["fetch", "search", "brave", "tavily", "exa", "browser", "puppeteer", "playwright", "slack", "discord", "telegram", "chat", "email", "smtp", "http", "web"];

const wordsOf = (text: string) => new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean));

/** The `"data": "private"` / `"egress": true` settings a connector looks like it wants and does not have, and what it looks like (both empty when none). */
export function dataFlowSuggestion(id: string, where: string, current: { privateData: boolean; egress: boolean }): { settings: string[]; looks: string[] } {
  const words = wordsOf(`${id} ${where.replace(/^https?:\/\//, "")}`);
  const out: { settings: string[]; looks: string[] } = { settings: [], looks: [] };
  if (!current.privateData && PRIVATE_DATA_WORDS.some((w) => words.has(w))) (out.settings.push(`"data": "private"`), out.looks.push("holds private data"));
  if (!current.egress && EGRESS_WORDS.some((w) => words.has(w))) (out.settings.push(`"egress": true`), out.looks.push("can send data out"));
  return out;
}
