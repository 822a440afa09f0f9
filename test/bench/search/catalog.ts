// Builds atrium's real Catalog from captured tools/list answers: the operator config goes through
// validateConfig, the connectors through ConnectorRegistry, each listing through readToolsPage
// (the reader a live connector uses), and classification through the decision core in
// Catalog itself. Nothing is started; each connector is put in the state a successful listing
// leaves it in. Also synthesizes a large catalog by replicating the captured ones.
import { core } from "../../../glue/decisions/core.js";
import { validateConfig } from "../../../glue/config/validate.js";
import { ConnectorRegistry } from "../../../glue/connectors/registry.js";
import { readToolsPage } from "../../../glue/connectors/downstream-shapes.js";
import { Catalog } from "../../../glue/catalog/catalog.js";
import type { CapturedCatalog, CapturedTool } from "./data.js";
import { mulberry32 } from "../../harness/prng.js";

export interface BenchConnector { id: string; tools: CapturedTool[] }

export function buildCatalog(connectors: BenchConnector[]): Catalog {
  const c = core();
  const mcpServers = Object.fromEntries(connectors.map((k) => [k.id, { command: "bench-not-started" }]));
  const checked = validateConfig({ mcpServers }, c);
  if (!checked.ok) throw new Error(`bench config refused: ${checked.errors.map((e) => `${e.path} ${e.message}`).join("; ")}`);
  const registry = new ConnectorRegistry(checked.config, "bench");
  const byId = new Map(connectors.map((k) => [k.id, k.tools]));
  for (const connector of registry.connectors) {
    connector.tools = readToolsPage({ tools: byId.get(connector.id) ?? [] }).tools;
    connector.state = "ready";
  }
  return new Catalog(registry, c);
}

const AFFIXES = ["v2", "beta", "ext", "pro", "legacy", "team", "org", "alt", "next", "lite"];

/** One name perturbed: an affix added before or after, or the separator style changed. */
function perturb(name: string, pick: () => number): string {
  const affix = AFFIXES[Math.floor(pick() * AFFIXES.length)]!;
  const r = pick();
  if (r < 0.35) return `${affix}_${name}`;
  if (r < 0.7) return `${name}_${affix}`;
  if (r < 0.85) return name.replace(/[_-](\w)/g, (_, ch: string) => ch.toUpperCase()) + `_${affix}`;
  return name.replace(/_/g, "-") + `-${affix}`;
}

/**
 * The captured catalogs, then copies of them under new connector ids (`<id>-r<n>`) with perturbed
 * tool names, until exactly `size` tools are in (the last copy cut short). Same seed, same catalog.
 */
export function synthesize(catalogs: CapturedCatalog[], size: number, seed: number): BenchConnector[] {
  const out: BenchConnector[] = catalogs.map((c) => ({ id: c.server, tools: c.tools }));
  let count = out.reduce((n, c) => n + c.tools.length, 0);
  const pick = mulberry32(seed);
  for (let round = 1; count < size; round++) {
    for (const c of catalogs) {
      if (count >= size) break;
      const seen = new Set<string>();
      const tools: CapturedTool[] = [];
      for (const t of c.tools) {
        if (count >= size) break;
        let name = perturb(t.name, pick);
        while (seen.has(name)) name = `${name}_${round}`;
        seen.add(name);
        tools.push({ ...structuredClone(t), name }); // its own copy, as a real connector's listing would be
        count++;
      }
      out.push({ id: `${c.server}-r${round}`, tools });
    }
  }
  return out;
}
