// The fixed rule that turns connector ids and tool names into guest identifiers
// (`<connector>.<tool>(args)`), and the collisions that must fail closed.
import type { CatalogEntry } from "../catalog/entry.js";
import type { AliasConnector } from "./protocol.js";

const RESERVED = new Set(("break case catch class const continue debugger default delete do else enum export extends false finally for function if " +
  "import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package " +
  "private protected public await async arguments eval").split(" "));
/** Lower-case globals a connector must not shadow; those connectors are reachable through atrium.call only. */
export const GUEST_GLOBALS = new Set(["atrium", "console", "undefined", "eval", "escape", "unescape", "globalThis"]);

/** Non-identifier characters become "_", a leading digit gets a "_" prefix, a reserved word a "_" suffix. */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, "_");
  if (id === "" || /^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED.has(id)) id = `${id}_`;
  return id;
}

export function buildAliases(entries: readonly CatalogEntry[], connectorIds: readonly string[]): AliasConnector[] {
  const byIdent = new Map<string, string[]>();
  for (const id of connectorIds) {
    const ident = toIdentifier(id);
    byIdent.set(ident, [...(byIdent.get(ident) ?? []), id]);
  }
  const out: AliasConnector[] = [];
  for (const connectorId of connectorIds) {
    const ident = toIdentifier(connectorId);
    if (GUEST_GLOBALS.has(ident)) continue;
    const tools = new Map<string, string[]>();
    for (const e of entries) {
      if (e.connectorId !== connectorId) continue;
      const t = toIdentifier(e.name);
      tools.set(t, [...(tools.get(t) ?? []), e.address]);
    }
    out.push({
      ident,
      connectorId,
      ambiguousWith: (byIdent.get(ident) ?? []).filter((c) => c !== connectorId),
      tools: [...tools].map(([t, addresses]) => ({ ident: t, address: addresses.length === 1 ? addresses[0] : null, candidates: addresses })),
    });
  }
  return out;
}
