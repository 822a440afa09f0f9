// A run's guest globals (`<connector>.<tool>(args)`) from the catalog, by the one rule that also
// resolves every call's address (catalog/resolver.ts: names → identifiers), and the collisions
// that must fail closed.
import type { CatalogEntry } from "../catalog/entry.js";
import { byIdentifier, toIdentifier } from "../catalog/resolver.js";
import type { AliasConnector } from "./protocol.js";

/** Lower-case globals a connector must not shadow; those connectors are reachable through atrium.call only. */
export const GUEST_GLOBALS = new Set(["atrium", "console", "undefined", "eval", "escape", "unescape", "globalThis"]);

export function buildAliases(entries: readonly CatalogEntry[], connectorIds: readonly string[]): AliasConnector[] {
  const byIdent = byIdentifier(connectorIds);
  const out: AliasConnector[] = [];
  for (const connectorId of connectorIds) {
    const ident = toIdentifier(connectorId);
    if (GUEST_GLOBALS.has(ident)) continue;
    const tools = byIdentifier(entries.filter((e) => e.connectorId === connectorId).map((e) => e.name));
    out.push({
      ident,
      connectorId,
      ambiguousWith: (byIdent.get(ident) ?? []).filter((c) => c !== connectorId),
      tools: [...tools].map(([t, names]) => {
        const addresses = names.map((n) => `${connectorId}.${n}`);
        return { ident: t, address: addresses.length === 1 ? addresses[0]! : null, candidates: addresses };
      }),
    });
  }
  return out;
}
