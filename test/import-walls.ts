// The import walls' checker, read on the TypeScript AST (test/architecture.test.ts holds the rules):
// every import form a module can take (import, import type, export … from, import x = require(),
// dynamic import(), require() and createRequire(…)(…), import("…") in a type) in any quote style
// or a template literal without substitutions, resolved to a glue file, a node built-in or an npm
// package; and the checks of an allow-list of what each folder MAY import, of who may import a
// guarded folder, and of what a side (all a file reaches) may reach. Pure: it reads no file, so
// the test can feed it planted violations from memory.
import { builtinModules } from "node:module";
import { posix } from "node:path";
import ts from "typescript";

export type ImportForm = "import" | "import type" | "export from" | "export type from" | "import equals" | "dynamic import" | "require" | "type import";

/** One module reference in a source file, before it is resolved. */
export interface ImportRef { form: ImportForm; specifier: string | undefined; typeOnly: boolean; line: number }

/** What a reference points at: a glue file (glue-relative), a node built-in, an npm package, or nothing we can name. */
export type Target =
  | { kind: "glue"; path: string }
  | { kind: "node"; name: string }
  | { kind: "npm"; name: string }
  | { kind: "outside"; path: string }
  | { kind: "unresolved"; text: string };

export interface Edge { from: string; target: Target; form: ImportForm; typeOnly: boolean; line: number }

const literalText = (node: ts.Node | undefined): string | undefined =>
  node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;

const isCreateRequireCall = (node: ts.Expression): boolean =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "createRequire";

/** One source, parsed (with parents set) for every reader of the AST. */
export const parse = (fileName: string, text: string): ts.SourceFile => ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);

/** Every module reference of one parsed source. */
export function importsOf(source: ts.SourceFile): ImportRef[] {
  const refs: ImportRef[] = [];
  const add = (form: ImportForm, spec: ts.Node | undefined, typeOnly: boolean, at: ts.Node) =>
    refs.push({ form, specifier: literalText(spec), typeOnly, line: source.getLineAndCharacterOfPosition(at.getStart(source)).line + 1 });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      // `import type …`, or `import { type a, type b }` with no default: nothing is loaded at run time.
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      add(typeOnly ? "import type" : "import", node.moduleSpecifier, typeOnly, node);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.isTypeOnly ? "export type from" : "export from", node.moduleSpecifier, node.isTypeOnly, node);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add("import equals", node.moduleReference.expression, node.isTypeOnly, node);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      add("type import", ts.isLiteralTypeNode(arg) ? arg.literal : undefined, true, node);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add("dynamic import", node.arguments[0], false, node);
      else if ((ts.isIdentifier(callee) && callee.text === "require") || isCreateRequireCall(callee)) add("require", node.arguments[0], false, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

const builtins = new Set(builtinModules);

/** Where `specifier`, written in glue-relative `from`, points. */
export function resolveTarget(from: string, specifier: string | undefined): Target {
  if (specifier === undefined) return { kind: "unresolved", text: "(a computed specifier)" };
  if (specifier.startsWith(".")) {
    const path = posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, ".ts").replace(/\.mjs$/, ".mts");
    return path.startsWith("../") ? { kind: "outside", path } : { kind: "glue", path };
  }
  if (specifier.startsWith("node:")) return { kind: "node", name: specifier.slice("node:".length) };
  if (builtins.has(specifier)) return { kind: "node", name: specifier };
  const parts = specifier.split("/");
  return { kind: "npm", name: specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0] };
}

/** The import edges of a set of parsed glue sources (glue-relative path → source). */
export function edgesOf(sources: Map<string, ts.SourceFile>): Edge[] {
  return [...sources].flatMap(([from, source]) =>
    importsOf(source).map((r) => ({ from, target: resolveTarget(from, r.specifier), form: r.form, typeOnly: r.typeOnly, line: r.line })));
}

const describeTarget = (t: Target): string =>
  t.kind === "glue" || t.kind === "outside" ? t.path : t.kind === "node" ? `node:${t.name}` : t.kind === "npm" ? `npm:${t.name}` : `unresolved ${t.text}`;

const under = (path: string, folder: string): boolean => folder === "." ? !path.includes("/") : path === folder || path.startsWith(`${folder}/`);

/** What one folder of glue/ (and every folder below it that has no rule of its own) MAY import. */
export interface FolderRule {
  /** glue-relative folder; "." is glue/'s own top-level files. */
  folder: string;
  /** glue folders it may import, each with everything below it (its own folder is always allowed). */
  glue: string[];
  /** node built-ins it may import, without the `node:` prefix. */
  node: string[];
  /** npm packages it may import (package names, not subpaths). */
  npm: string[];
  why: string;
}

/** One import today's code makes that its folder's rule does not allow, named and kept rather than widening the rule. */
export interface Exception { from: string; to: string; why: string }

export interface Violation { from: string; line: number; form: ImportForm; to: string; rule: string }

/** The rule of the folder a file lives in: the deepest folder with a rule. */
export function ruleFor(file: string, rules: FolderRule[]): FolderRule | undefined {
  return rules.filter((r) => under(file, r.folder)).sort((a, b) => b.folder.length - a.folder.length)[0];
}

function allowedBy(rule: FolderRule, target: Target): boolean {
  switch (target.kind) {
    case "glue": return under(target.path, rule.folder) || rule.glue.some((g) => under(target.path, g));
    case "node": return rule.node.includes(target.name);
    case "npm": return rule.npm.includes(target.name);
    default: return false;
  }
}

/** Every edge its folder's allow-list does not allow and no exception names; a file under no rule is reported too. */
export function folderViolations(edges: Edge[], rules: FolderRule[], exceptions: Exception[] = []): Violation[] {
  return edges.flatMap((e) => {
    const rule = ruleFor(e.from, rules);
    const to = describeTarget(e.target);
    if (rule && allowedBy(rule, e.target)) return [];
    if (exceptions.some((x) => x.from === e.from && x.to === to)) return [];
    return [{ from: e.from, line: e.line, form: e.form, to, rule: rule ? `folder ${rule.folder}` : "no folder rule" }];
  });
}

/** A guarded glue folder: from outside it, only the named files may import it (each, optionally, only some of its files). */
export interface Gate { folder: string; importers: { file: string; only?: string[] }[]; why: string }

export function gateViolations(edges: Edge[], gates: Gate[]): Violation[] {
  return gates.flatMap((g) => edges.flatMap((e) => {
    if (e.target.kind !== "glue" || !under(e.target.path, g.folder) || under(e.from, g.folder)) return [];
    const importer = g.importers.find((i) => i.file === e.from);
    if (importer && (!importer.only || importer.only.includes(e.target.path))) return [];
    return [{ from: e.from, line: e.line, form: e.form, to: e.target.path, rule: `gate ${g.folder}` }];
  }));
}

/** A side of the program: every glue file `entry` reaches (through value imports only, if `values`) lies in `may`. */
export interface Side { name: string; entry: string; values: boolean; may: string[]; why: string }

/** Glue files reachable from `entry`, with the edge that first reached each. */
function reach(edges: Edge[], entry: string, values: boolean): Map<string, Edge | undefined> {
  const out = new Map<string, Edge | undefined>([[entry, undefined]]);
  const stack = [entry];
  while (stack.length) {
    const f = stack.pop()!;
    for (const e of edges) {
      if (e.from !== f || e.target.kind !== "glue" || (values && e.typeOnly) || out.has(e.target.path)) continue;
      out.set(e.target.path, e);
      stack.push(e.target.path);
    }
  }
  return out;
}

export function sideViolations(edges: Edge[], sides: Side[]): Violation[] {
  return sides.flatMap((s) => [...reach(edges, s.entry, s.values)].flatMap(([file, by]) =>
    !by || s.may.some((m) => m === file || under(file, m)) ? [] : [{ from: by.from, line: by.line, form: by.form, to: file, rule: `side ${s.name}` }]));
}

/** Source text that imports `specifier` in the given form (for planted violations). */
export function planted(form: ImportForm, specifier: string, quote: "\"" | "'" | "`" = "\""): string {
  const s = `${quote}${specifier}${quote}`;
  switch (form) {
    case "import": return `import x from ${s};\nexport const y = x;\n`;
    case "import type": return `import type { X } from ${s};\nexport type Y = X;\n`;
    case "export from": return `export * from ${s};\n`;
    case "export type from": return `export type { X } from ${s};\n`;
    case "import equals": return `import x = require(${s});\nexport const y = x;\n`;
    case "dynamic import": return `export async function f() { return await import(${s}); }\n`;
    case "require": return `import { createRequire } from "node:module";\nexport const y = createRequire(import.meta.url)(${s});\n`;
    case "type import": return `export type Y = import(${s}).X;\n`;
  }
}

export const IMPORT_FORMS: ImportForm[] = ["import", "import type", "export from", "export type from", "import equals", "dynamic import", "require", "type import"];

/** Where a glue file sits in a top-to-bottom layer order (each entry a glue folder or file): the deepest entry holding it, as its index; -1 under none. */
export function layerOf(file: string, layers: string[]): number {
  let best = -1;
  layers.forEach((l, i) => { if (under(file, l) && (best < 0 || l.length > layers[best].length)) best = i; });
  return best;
}

/** Every import whose target sits in a layer above its importer's (layers listed top to bottom): an import running back up a layer. */
export function backUpImports(edges: Edge[], layers: string[]): Violation[] {
  return edges.flatMap((e) => e.target.kind === "glue" && layerOf(e.target.path, layers) < layerOf(e.from, layers)
    ? [{ from: e.from, line: e.line, form: e.form, to: e.target.path, rule: "layer order" }] : []);
}
