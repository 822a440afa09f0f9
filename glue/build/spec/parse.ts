// Reads spec/*.md into clauses, examples, code tables and constants (format: spec/README.md).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./build.js";

export interface Example { file: string; line: number; clause: string; given: Record<string, unknown>; expect: Record<string, unknown> }
interface Clause { id: string; title: string; file: string; examples: Example[] }
interface CodeTable { enum: string; values: Record<string, number> }
interface Constant { name: string; default: number | string; min?: number; max?: number; unit: string; doc: string; budget?: string }
/** A fixed bound (spec/bounds.md): emitted for the glue, and for the view shell when `shell`. */
interface Bound { name: string; value: number; unit: string; reason: string; shell?: boolean }
export interface Spec { clauses: Clause[]; codes: CodeTable[]; constants: Constant[]; bounds: Bound[]; files: string[] }

const HEADING = /^### (?<id>[A-Z][0-9]+) — (?<title>.+)$/;
const BOUND_NAME = /^[A-Z][A-Z0-9_]*$/;
const BOUND_KEYS = new Set(["name", "value", "unit", "reason", "shell"]);

export function readSpec(dir = join(repoRoot, "spec")): Spec {
  const files = readdirSync(dir).filter((f) => f.endsWith(".md") && f !== "README.md").sort();
  const spec: Spec = { clauses: [], codes: [], constants: [], bounds: [], files };
  const ids = new Set<string>();
  for (const file of files) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    const boundsBefore = spec.bounds.length;
    let clause: Clause | undefined;
    let block: string | undefined;
    lines.forEach((text, i) => {
      const where = `spec/${file}:${i + 1}`;
      if (block !== undefined) {
        if (text.startsWith("```")) { block = undefined; return; }
        if (text.trim() === "") return;
        let row: any;
        try { row = JSON.parse(text); } catch (e) { throw new Error(`${where}: not JSON: ${(e as Error).message}`); }
        if (block === "example") {
          if (!clause) throw new Error(`${where}: example outside a clause`);
          clause.examples.push({ file, line: i + 1, clause: clause.id, given: row.given ?? {}, expect: row.expect ?? {} });
        } else if (block === "codes") spec.codes.push(row);
        else if (block === "constants") spec.constants.push(row);
        else if (block === "bounds") spec.bounds.push(checkBound(row, where));
        return;
      }
      const fence = /^```(\w+)\s*$/.exec(text);
      if (fence && ["example", "codes", "constants", "bounds"].includes(fence[1])) { block = fence[1]; return; }
      if (fence) { block = "ignored"; return; }
      const h = HEADING.exec(text)?.groups;
      if (h) {
        if (ids.has(h.id)) throw new Error(`${where}: clause ${h.id} declared twice`);
        ids.add(h.id);
        clause = { id: h.id, title: h.title, file, examples: [] };
        spec.clauses.push(clause);
      }
    });
    checkBoundTable(file, lines, spec.bounds.slice(boundsBefore));
  }
  const names = new Set(spec.constants.map((c) => c.name));
  for (const b of spec.bounds) {
    if (names.has(b.name)) throw new Error(`bound ${b.name} is declared twice`);
    names.add(b.name);
  }
  return spec;
}

function checkBound(row: Record<string, unknown>, where: string): Bound {
  const { name, value, unit, reason, shell } = row;
  const extra = Object.keys(row).filter((k) => !BOUND_KEYS.has(k));
  if (extra.length) throw new Error(`${where}: a bound has no key ${extra.join(", ")}`);
  if (typeof name !== "string" || !BOUND_NAME.test(name)) throw new Error(`${where}: a bound's name is UPPER_SNAKE_CASE`);
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new Error(`${where}: ${name} needs a positive finite value`);
  if (typeof unit !== "string" || unit === "" || typeof reason !== "string" || reason === "") throw new Error(`${where}: ${name} needs a unit and a reason`);
  if (shell !== undefined && shell !== true) throw new Error(`${where}: ${name}: "shell" is true or absent`);
  return { name, value, unit, reason, ...(shell && { shell }) };
}

/** The readable table of a file that declares bounds lists each of them once, with the block's value. */
function checkBoundTable(file: string, lines: string[], bounds: Bound[]): void {
  const rows = new Map<string, string>();
  for (const line of lines) {
    const m = /^\| `(?<name>[A-Z][A-Z0-9_]*)` \| (?<value>[^|]+) \|/.exec(line)?.groups;
    if (m) rows.set(m.name, m.value.replace(/[,_\s]/g, ""));
  }
  if (rows.size === 0) return;
  for (const b of bounds) {
    const shown = rows.get(b.name);
    if (shown === undefined) throw new Error(`spec/${file}: the table does not list ${b.name}`);
    if (Number(shown) !== b.value) throw new Error(`spec/${file}: the table says ${b.name} is ${shown}, the bounds block ${b.value}`);
    rows.delete(b.name);
  }
  if (rows.size) throw new Error(`spec/${file}: the table lists ${[...rows.keys()].join(", ")}, which no bounds block declares`);
}

/** Look a name up in a code table; numbers pass through (examples use raw numbers for out-of-range facts). */
export function codeOf(spec: Spec, table: string, v: unknown): number {
  if (typeof v === "number") return v;
  const t = spec.codes.find((c) => c.enum === table);
  if (!t) throw new Error(`no code table ${table}`);
  if (typeof v !== "string" || !(v in t.values)) throw new Error(`${table} has no value ${JSON.stringify(v)}`);
  return t.values[v];
}
