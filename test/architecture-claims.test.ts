// ARCHITECTURE.md is true (issue 23 item 1): every claim it makes names the tests that hold it, as
// `file` › "title" (file: the test file under test/ without .test.ts; title: a describe or it
// title as written, read on the test file's AST, where a `%s` or ${…} part stands for one of the
// file's string literals, the values its .each table or loop lists; a title ending in "…" names
// the one that starts so). Every paragraph of its layers and every row of its tables of
// lifetimes, of where things live and of walls names at least one; and every file or folder it
// names exists, a bare file name in a "where things live" row in one of the folders that row is
// about. Each check is shown to fail on planted references and names.
import { describe, it, expect } from "vitest";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { repo } from "./harness/atrium-client.js";

/** A reference to the tests that hold a claim: `file` › "title". */
interface Ref { file: string; title: string }
const REF = /`([\w./-]+)` › "([^"]+)"/g;
const refsIn = (text: string): Ref[] => [...text.matchAll(REF)].map((m) => ({ file: m[1], title: m[2] }));

/** A test title as written: its literal parts, between which `%s`-style and ${…} parts stand for a value. */
type Title = string[];
/** A test file's titles, and its string literals: the values a `%s` or ${…} part of a title may take. */
interface Titles { titles: Title[]; literals: Set<string> }

/** The titles of a test file's describe/it/test calls, in every form (.each, .skipIf, .concurrent…). */
function testTitles(text: string, fileName = "x.test.ts"): Titles {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const names = new Set(["describe", "it", "test"]);
  const rootName = (e: ts.Expression): string | undefined =>
    ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) || ts.isCallExpression(e) ? rootName(e.expression) : undefined;
  const split = (literal: string) => literal.split(/%[sidfjo#%]/);
  const title = (node: ts.Expression): Title | undefined => {
    if (ts.isStringLiteralLike(node)) return split(node.text);
    if (!ts.isTemplateExpression(node)) return undefined;
    return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].map(split).flat();
  };
  const out: Titles = { titles: [], literals: new Set() };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node)) out.literals.add(node.text);
    if (ts.isCallExpression(node) && node.arguments.length > 0 && names.has(rootName(node.expression) ?? "")) {
      const t = title(node.arguments[0]);
      if (t) out.titles.push(t);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * Whether a reference's title names one of a file's titles (a title ending in "…" names those that
 * start so). What a `%s` or ${…} part stands for must be one of the file's string literals (a value
 * its .each table or loop lists), or, where the reference is cut inside it, the start of one.
 */
function titleMatches(ref: string, file: Titles): boolean {
  const prefix = ref.endsWith("…");
  const text = prefix ? ref.slice(0, -1) : ref;
  const known = (v: string) => file.literals.has(v);
  const started = (v: string) => [...file.literals].some((l) => l.startsWith(v));
  const fits = (parts: Title, k: number, at: number): boolean => {
    const literal = parts[k];
    if (prefix && text.length - at <= literal.length) return literal.startsWith(text.slice(at));
    if (!text.startsWith(literal, at)) return false;
    const end = at + literal.length;
    if (k === parts.length - 1) return end === text.length;
    for (let e = end; e <= text.length; e++) {
      const value = text.slice(end, e);
      if (prefix && e === text.length ? started(value) : known(value) && fits(parts, k + 1, e)) return true;
    }
    return false;
  };
  return file.titles.some((parts) => fits(parts, 0, 0));
}

/** A title cut with "…" keeps at least this many characters of it (enough to say which test). */
const TITLE_HEAD_MIN = 12;

const doc = readFileSync(join(repo, "ARCHITECTURE.md"), "utf8");
const sections = new Map(doc.split(/^## /m).slice(1).map((s) => [s.slice(0, s.indexOf("\n")), s.slice(s.indexOf("\n") + 1)]));
const section = (start: string) => [...sections].find(([h]) => h.startsWith(start))![1];
/** The body rows of the markdown tables of a section (header and separator left out). */
const rows = (text: string) => text.split("\n").filter((l) => l.startsWith("|")).filter((l, i, all) => !/^\|[\s|:-]+\|$/.test(l) && !(all[i + 1] && /^\|[\s|:-]+\|$/.test(all[i + 1])));
/** The prose paragraphs of a section (code blocks and tables left out). */
const paragraphs = (text: string) => text.replace(/```[\s\S]*?```/g, "").split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p && !p.startsWith("|"));

const testFileOf = (file: string) => join(repo, "test", `${file}.test.ts`);
const titlesCache = new Map<string, Titles>();
const titlesOf = (file: string) => {
  if (!titlesCache.has(file)) titlesCache.set(file, existsSync(testFileOf(file)) ? testTitles(readFileSync(testFileOf(file), "utf8"), file) : { titles: [], literals: new Set() });
  return titlesCache.get(file)!;
};

describe("ARCHITECTURE.md is held by named tests", () => {
  it("every test it names exists: its file, and a describe or it of that title", () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(0);
    const missing = refs.filter((r) => !existsSync(testFileOf(r.file)) || (r.title.endsWith("…") && r.title.length - 1 < TITLE_HEAD_MIN) || !titleMatches(r.title, titlesOf(r.file))).map((r) => `${r.file} › ${r.title}`);
    expect(missing).toEqual([]);
  });

  it("every paragraph of its layers, and every row of its lifetimes, of where things live and of its walls, names a test that holds it", () => {
    const claims = [
      ...paragraphs(section("Layers")),
      ...rows(section("Lifetimes")),
      ...rows(section("Where things live")),
      ...rows(section("Walls")),
    ];
    expect(claims.length).toBeGreaterThan(40);
    expect(claims.filter((c) => refsIn(c).length === 0).map((c) => c.slice(0, 120))).toEqual([]);
  });

  it("every file and folder it names exists, a bare file name of a \"where things live\" row in one of that row's folders", () => {
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return n === "node_modules" ? [] : statSync(p).isDirectory() ? [`${p}/`, ...walk(p)] : [p];
    });
    const everything = ["glue", "spec", "assembly", "wasm", "test", "docs"].flatMap((d) => walk(join(repo, d))).map((p) => p.slice(repo.length + 1));
    const named = (text: string) => [...text.matchAll(/`([\w./-]+\.(?:ts|mts|md|json|wasm)|[\w./-]+\/)`/g)].map((m) => m[1]);
    const exists = (name: string, folders: string[]) => {
      if (name.includes("/") && (existsSync(join(repo, name)) || existsSync(join(repo, "glue", name)))) return true;
      return everything.some((p) => (folders.length === 0 || folders.some((f) => p.startsWith(f))) && (p === name || p.endsWith(`/${name}`)));
    };
    const stray: string[] = [];
    for (const row of rows(section("Where things live"))) {
      const [, first, ...rest] = row.split("|");
      const folders = [...first.matchAll(/`(glue\/[\w./-]*)`/g)].map((m) => m[1]).map((f) => f.endsWith(".ts") ? f.replace(/[^/]*$/, "") : f);
      for (const name of named(rest.join("|"))) if (!exists(name, name.includes("/") ? [] : folders)) stray.push(`${first.trim()}: ${name}`);
    }
    for (const name of named(doc)) if (!exists(name, [])) stray.push(name);
    expect(stray).toEqual([]);
  });

  it("the checks find what is wrong (planted references and names)", () => {
    const file = testTitles(`const ways = ["stdin close", "SIGTERM"]; describe("a run", () => { it("ends with its calls", () => {}); it.each(["seven", "eight"])("case %s works", () => {}); for (const w of ways) it(\`ends by \${w}\`, () => {}); });`);
    expect(["a run", "ends with its calls", "case seven works", "ends by SIGTERM", "ends with…", "case sev…", "case eight w…", "ends by stdin…"].map((t) => titleMatches(t, file))).toEqual([true, true, true, true, true, true, true, true]);
    expect(["ends without its calls", "a runner", "begins…", "case", "case nine works", "ends by SIGKILL", "case nine…", "ends by SIGK…"].map((t) => titleMatches(t, file))).toEqual([false, false, false, false, false, false, false, false]);
    expect(refsIn('held by `architecture` › "folder rule calls"; `pins-e2e` › "a quarantined…"')).toEqual([{ file: "architecture", title: "folder rule calls" }, { file: "pins-e2e", title: "a quarantined…" }]);
  });
});
