// The one rule that turns an address a caller wrote into a catalog tool, for every path
// (call_tool, call_destructive_tool, a program's `<connector>.<tool>()` and atrium.call,
// atrium.describe, a view, an app): the exact address first; else the guest-identifier form a
// program's global uses (`get_sum` for `get-sum`, `my_db` for `my-db`, `delete_` for `delete`),
// when exactly one connector or tool has it; several are ambiguous (fail closed); none is a miss
// that names the nearest real addresses (edit distance, support/text/nearest-names.ts).
import type { CatalogEntry } from "./entry.js";
import { nearestNames } from "../support/text/nearest-names.js";
import { NAME_SUGGESTIONS_MAX } from "../decisions/generated/spec.js";

const RESERVED = new Set(("break case catch class const continue debugger default delete do else enum export extends false finally for function if " +
  "import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package " +
  "private protected public await async arguments eval").split(" "));

/** Non-identifier characters become "_", a leading digit gets a "_" prefix, a reserved word a "_" suffix. */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, "_");
  if (id === "" || /^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED.has(id)) id = `${id}_`;
  return id;
}

/** Names grouped by their identifier, in the order given: what one identifier may mean. */
export function byIdentifier(names: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of names) {
    const ident = toIdentifier(n);
    out.set(ident, [...(out.get(ident) ?? []), n]);
  }
  return out;
}

/** What a written name matches among real ones: one name, several (ambiguous), or none. */
export type Match = { name: string } | { ambiguous: string[] } | { none: true };

/** The exact name, else the one name whose identifier the written name is. */
export function matchName(written: string, names: readonly string[]): Match {
  if (names.includes(written)) return { name: written };
  const same = names.filter((n) => toIdentifier(n) === written);
  if (same.length === 1) return { name: same[0]! };
  return same.length > 1 ? { ambiguous: same } : { none: true };
}

/** `<connector>.<tool>` as written: split at the first dot (connector ids have none), or undefined. */
export function splitAddress(address: string): { connector: string; tool: string } | undefined {
  const dot = address.indexOf(".");
  return dot > 0 ? { connector: address.slice(0, dot), tool: address.slice(dot + 1) } : undefined;
}

/** The real addresses nearest a written tool name, within one connector's entries or all of them. */
export function nearestAddresses(tool: string, entries: readonly CatalogEntry[]): string[] {
  const near = new Set(nearestNames(tool, [...new Set(entries.map((e) => e.name))]));
  return entries.filter((e) => near.has(e.name)).map((e) => e.address).slice(0, NAME_SUGGESTIONS_MAX);
}
