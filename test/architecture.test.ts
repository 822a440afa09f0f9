// The walls of ARCHITECTURE.md, held by reading the glue's import graph: only the invocation
// path and the catalog reach connectors; tool handlers, the MCP wiring and the sandbox never
// do; the core's door imports nothing of the glue but the generated tables; the sandbox
// worker's side never reaches connectors, the catalog, invoke or the tools; the worker and the
// main thread share one host-operation table. And every numeric bound of the glue lives in spec/
// (issue 9): no number in glue/ outside the generated tables and the short allow-list below.
import { describe, it, expect } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { repo } from "./harness/atrium-client.js";
import { HOST_OPS } from "../glue/sandbox/host-ops.js";

const GLUE = join(repo, "glue");

/**
 * Where glue/ may write a number other than 0, 1 and -1 (besides decisions/generated/, which
 * `npm run spec` writes from spec/). Bounds belong in spec/bounds.md or spec/budgets.md, never
 * here; each entry is a file, or one named table in it, of numbers that are not bounds.
 */
const NUMBER_HOMES: { file: string; table?: string; why: string }[] = [
  { file: "support/encoding.ts", why: "UTF-8, UTF-16, ASCII and JSON text facts, radixes" },
  { file: "support/wire.ts", why: "protocol and platform numbers the MCP SDK has no name for: JSON-RPC codes, HTTP statuses, POSIX modes, exit status, port, wasm page" },
  { file: "support/format.ts", why: "how values are shown: unit conversions, JSON indentation, timing rounding, CLI columns" },
  { file: "decisions/core.ts", table: "ABI", why: "the wasm ABI: String class id, int32 range, packed answer fields" },
  { file: "catalog/search-tuning.ts", table: "SEARCH_TUNING", why: "search ranking weights and tokenizer settings: tuning, not limits" },
];

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

interface NumberLiteral { file: string; line: number; text: string; value: number; table?: string }

/** Every numeric and bigint literal of glue/ (TypeScript and the shell's .mts), with the top-level declaration holding it. */
function numberLiterals(root = GLUE): NumberLiteral[] {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : /\.m?ts$/.test(p) ? [p] : [];
  });
  const out: NumberLiteral[] = [];
  for (const path of walk(root)) {
    const file = relative(root, path).split("\\").join("/");
    if (file.startsWith("decisions/generated/")) continue;
    const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, table: string | undefined): void => {
      if (ts.isVariableDeclaration(node) && ts.isSourceFile(node.parent.parent.parent)) table = node.name.getText(source);
      if (ts.isNumericLiteral(node) || ts.isBigIntLiteral(node)) {
        const negative = ts.isPrefixUnaryExpression(node.parent) && node.parent.operator === ts.SyntaxKind.MinusToken;
        const value = (negative ? -1 : 1) * Number(ts.isBigIntLiteral(node) ? node.text.slice(0, -1) : node.text);
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        out.push({ file, line, text: `${negative ? "-" : ""}${node.getText(source)}`, value, table });
      }
      ts.forEachChild(node, (child) => visit(child, table));
    };
    visit(source, undefined);
  }
  return out;
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

  it("only invoke.ts reads a connector's resources (a downstream app's document)", () => {
    const readers = [...graph.keys()].filter((f) => !isConnectorLayer(f) && /\bconnector\.readResource\(/.test(readFileSync(join(GLUE, f), "utf8")));
    expect(readers).toEqual(["calls/invoke.ts"]);
  });

  it("only invoke.ts asks a connector for its prompts (calls/prompts.ts shapes what it answers)", () => {
    const askers = [...graph.keys()].filter((f) => !isConnectorLayer(f) && /\.prompts\(\s*(?:method\b|["'`]prompts\/)/.test(readFileSync(join(GLUE, f), "utf8")));
    expect(askers).toEqual(["calls/invoke.ts"]);
    expect(graph.get("calls/prompts.ts")!.filter(isConnectorLayer)).toEqual([]);
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
    const runner = readFileSync(join(GLUE, "mcp/tools/run-tool.ts"), "utf8");
    expect(runner).toMatch(/tool\.run\(parsed\.data, contextFor\(tool\.uses,/);
    expect(readFileSync(join(GLUE, "mcp/server.ts"), "utf8")).toMatch(/return runTool\(tool, request\.params\.arguments,/);
  });

  it("the MCP wiring decides nothing: host kinds, app-only visibility, typed errors and their policy live elsewhere", () => {
    const server = readFileSync(join(GLUE, "mcp/server.ts"), "utf8").replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "");
    // Who the host is and what it may see is the core's (through HostState); typed errors, argument
    // policy and progress words are the tool runner's (mcp/tools/run-tool.ts).
    const decisions = [/\bHostKind\b/, /\.kind\s*===/, /\bAtriumError\b/, /\berrorResult\b/, /\bsafeParse\(request\.params\.arguments/, /host call\(s\)/, /\bDelivery\b/];
    expect(decisions.filter((d) => d.test(server)).map(String)).toEqual([]);
    expect(server).toMatch(/deps\.host\.appOnly\(revision, hostFor\(ctx\), use\)/);
  });

  it("every numeric bound lives in spec/: no number but 0, 1 and -1 in glue/ outside the generated tables and the allow-list", () => {
    expect(NUMBER_HOMES.length, "the allow-list stays short: a bound goes to spec/bounds.md, not here").toBeLessThanOrEqual(8);
    const literals = numberLiterals().filter((l) => l.value !== 0 && l.value !== 1 && l.value !== -1);
    const homed = (l: NumberLiteral) => NUMBER_HOMES.some((h) => h.file === l.file && (h.table === undefined || h.table === l.table));
    for (const h of NUMBER_HOMES) expect(literals.some((l) => l.file === h.file && (h.table === undefined || h.table === l.table)), `allow-list entry ${h.file}${h.table ? ` ${h.table}` : ""} holds no number: remove it`).toBe(true);

    const stray = literals.filter((x) => !homed(x)).map((l) => `glue/${l.file}:${l.line} ${l.text}`);
    expect(stray, "numbers in glue/: declare a bound in spec/bounds.md (or a budget in spec/budgets.md) and use its generated constant; name a protocol number with the SDK's constant or in support/wire.ts").toEqual([]);

  });

  it("every glue file opens with a comment that says what it owns", () => {
    const silent = [...graph.keys()].filter((f) => !f.startsWith("decisions/generated/") && !/^\s*(\/\/|\/\*)/.test(readFileSync(join(GLUE, f), "utf8")));
    expect(silent).toEqual([]);
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
