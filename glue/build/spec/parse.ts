// Reads spec/*.md into clauses, examples, code tables and constants (format: spec/README.md).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./build.js";

export interface Example { file: string; line: number; clause: string; given: Record<string, unknown>; expect: Record<string, unknown> }
interface Clause { id: string; title: string; file: string; examples: Example[] }
interface CodeTable { enum: string; values: Record<string, number> }
interface Constant { name: string; default: number | string; min?: number; max?: number; unit: string; doc: string; budget?: string }
export interface Spec { clauses: Clause[]; codes: CodeTable[]; constants: Constant[]; files: string[] }

const HEADING = /^### ([A-Z][0-9]+) — (.+)$/;

export function readSpec(dir = join(repoRoot, "spec")): Spec {
  const files = readdirSync(dir).filter((f) => f.endsWith(".md") && f !== "README.md").sort();
  const spec: Spec = { clauses: [], codes: [], constants: [], files };
  const ids = new Set<string>();
  for (const file of files) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
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
        return;
      }
      const fence = /^```(\w+)\s*$/.exec(text);
      if (fence && ["example", "codes", "constants"].includes(fence[1])) { block = fence[1]; return; }
      if (fence) { block = "ignored"; return; }
      const h = HEADING.exec(text);
      if (h) {
        if (ids.has(h[1])) throw new Error(`${where}: clause ${h[1]} declared twice`);
        ids.add(h[1]);
        clause = { id: h[1], title: h[2], file, examples: [] };
        spec.clauses.push(clause);
      }
    });
  }
  return spec;
}

/** Look a name up in a code table; numbers pass through (examples use raw numbers for out-of-range facts). */
export function codeOf(spec: Spec, table: string, v: unknown): number {
  if (typeof v === "number") return v;
  const t = spec.codes.find((c) => c.enum === table);
  if (!t) throw new Error(`no code table ${table}`);
  if (typeof v !== "string" || !(v in t.values)) throw new Error(`${table} has no value ${JSON.stringify(v)}`);
  return t.values[v];
}
