// The walls of ARCHITECTURE.md, held by reading the glue's import graph: only the invocation
// path and the catalog reach connectors; tool handlers, the MCP wiring and the sandbox never
// do; the core's door imports nothing of the glue but the generated tables; the sandbox
// worker's side never reaches connectors, the catalog, invoke or the tools; the worker and the
// main thread share one host-operation table.
import { describe, it, expect } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repo } from "./harness/atrium-client.js";
import { HOST_OPS } from "../glue/sandbox/host-ops.js";

const GLUE = join(repo, "glue");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/**
 * glue-relative path → glue-relative paths it imports: static, dynamic and re-exports, and
 * type-only imports too unless `values` (a type is design coupling, not run-time coupling).
 */
function importGraph(root = GLUE, values = false): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(root)) {
    let text = readFileSync(file, "utf8");
    if (values) text = text.replace(/^(?:import|export) type [^;]*;/gms, "");
    const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1]);
    const targets = specs.map((s) => relative(root, resolve(dirname(file), s)).replace(/\.js$/, ".ts"));
    graph.set(relative(root, file), targets);
  }
  return graph;
}

function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    stack.push(...(graph.get(f) ?? []));
  }
  return seen;
}

/** Files (other than the allowed ones) that import any of `targets`. */
function importersOf(graph: Map<string, string[]>, targets: (f: string) => boolean, allowed: (f: string) => boolean): string[] {
  return [...graph].filter(([f, deps]) => !allowed(f) && !targets(f) && deps.some(targets)).map(([f]) => f).sort();
}

const graph = importGraph();
const valueGraph = importGraph(GLUE, true);
const isConnectorLayer = (f: string) => f.startsWith("connectors/");

describe("architecture walls", () => {
  it("only the composition root, the catalog and the invocation path import the connector layer", () => {
    const allowed = (f: string) => ["app.ts", "catalog/catalog.ts", "calls/invoke.ts", "commands/doctor.ts", "calls/call-result.ts"].includes(f);
    // call-result.ts may read the downstream result's type (connectors/downstream-shapes.ts) only.
    const violations = importersOf(graph, isConnectorLayer, allowed);
    expect(violations).toEqual([]);
    expect(graph.get("calls/call-result.ts")!.filter(isConnectorLayer)).toEqual(["connectors/downstream-shapes.ts"]);
  });

  it("only invoke.ts calls a connector", () => {
    const callers = [...graph.keys()].filter((f) => !isConnectorLayer(f) && /\bconnector\.call\(/.test(readFileSync(join(GLUE, f), "utf8")));
    expect(callers).toEqual(["calls/invoke.ts"]);
  });

  it("the core's door imports nothing of the glue but the generated tables and the package root", () => {
    expect([...graph.get("decisions/core.ts")!].sort()).toEqual(["decisions/generated/spec.ts", "support/package-root.ts"]);
  });

  it("the sandbox worker's side never reaches connectors, the catalog, invoke, the tools or the server", () => {
    const forbidden = (f: string) => isConnectorLayer(f) || f === "catalog/catalog.ts" || f === "calls/invoke.ts" || f.startsWith("mcp/tools/") || f === "mcp/server.ts" || f === "app.ts";
    expect([...reachable(graph, "sandbox/worker.ts")].filter(forbidden)).toEqual([]);
  });

  it("the MCP wiring loads no connector, sandbox or invocation code", () => {
    const deps = [...reachable(valueGraph, "mcp/server.ts")].filter((f) => isConnectorLayer(f) || f.startsWith("sandbox/") || f === "calls/invoke.ts");
    expect(deps).toEqual([]);
  });

  it("each meta-tool declares exactly the context it uses, and the server hands it nothing else", () => {
    for (const f of [...graph.keys()].filter((f) => f.startsWith("mcp/tools/") && f !== "mcp/tools/meta-tool.ts")) {
      const text = readFileSync(join(GLUE, f), "utf8");
      const declared = [...text.matchAll(/uses: \[([^\]]*)\]/g)].flatMap((m) => [...m[1].matchAll(/"(\w+)"/g)].map((x) => x[1]));
      if (!/defineTool\(/.test(text)) continue;
      const used = new Set([...text.matchAll(/\bctx\.(\w+)/g)].map((m) => m[1]));
      expect({ file: f, unused: [...new Set(declared)].filter((k) => !used.has(k)).sort() }).toEqual({ file: f, unused: [] });
    }
    const server = readFileSync(join(GLUE, "mcp/server.ts"), "utf8");
    expect(server).toMatch(/tool\.run\(parsed\.data, contextFor\(tool\.uses,/);
  });

  it("the worker and the main thread share one host-operation table", () => {
    // Both sides import it: the worker to bound and send a call, the bridge to count and dispatch it.
    const table = "sandbox/host-ops.ts";
    expect(reachable(valueGraph, "sandbox/worker.ts").has(table)).toBe(true);
    expect(valueGraph.get("sandbox/bridge.ts")).toContain(table);
    // The guest API in the prelude sends exactly the table's operations.
    const ops = Object.keys(HOST_OPS).sort();
    const prelude = readFileSync(join(GLUE, "sandbox/prelude.ts"), "utf8");
    expect([...new Set([...prelude.matchAll(/\b(?:single|send|atOnce)\("(\w+)"/g)].map((m) => m[1]))].sort()).toEqual(ops);
    // No other file on the host-call path spells an operation's name (but to index the table):
    // no second list, union, comparison or switch.
    const onPath = (f: string) => f.startsWith("sandbox/") || (graph.get(f) ?? []).some((d) => d.startsWith("sandbox/"));
    const quoted = new RegExp(`(?<!(?:HostOps|HOST_OPS)\\[)(["'\`])(?:${ops.join("|")})\\1`);
    const spelled = [...graph.keys()].filter((f) => onPath(f) && f !== table && f !== "sandbox/prelude.ts" && quoted.test(readFileSync(join(GLUE, f), "utf8")));
    expect(spelled).toEqual([]);
  });
});
