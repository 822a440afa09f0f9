// Finds mutation sites in the AssemblyScript core. AS source parses as TypeScript, so the
// TypeScript parser gives exact positions; each mutant is a text splice of one site.
import ts from "typescript";

export interface Mutant { file: string; line: number; id: string; operator: string; from: string; to: string; start: number; end: number }

const SWAPS: Record<string, string[]> = {
  "<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="], ">=": [">", "<"],
  "==": ["!="], "!=": ["=="], "===": ["!=="], "!==": ["==="],
  "&&": ["||"], "||": ["&&"], "+": ["-"], "-": ["+"],
};

function functionReturnsBool(node: ts.Node): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (ts.isFunctionDeclaration(p) || ts.isArrowFunction(p) || ts.isMethodDeclaration(p)) return p.type?.getText() === "bool";
  }
  return false;
}

export function findMutants(file: string, text: string): Mutant[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const lines = text.split("\n");
  const out: Mutant[] = [];
  const seen = new Map<string, number>();
  const add = (operator: string, start: number, end: number, to: string) => {
    const { line, character } = sf.getLineAndCharacterOfPosition(start);
    const raw = lines[line];
    const indent = raw.length - raw.trimStart().length;
    const from = text.slice(start, end);
    // Stable across unrelated edits: the file, the trimmed line, the column in it, the change.
    const base = `${file} | ${raw.trim()} | @${character - indent} ${from} → ${to}`;
    const n = (seen.get(base) ?? 0) + 1; // identical lines (the three padding rows) get #2, #3
    seen.set(base, n);
    const id = n === 1 ? base : `${base} #${n}`;
    out.push({ file, line: line + 1, id, operator, from, to, start, end });
  };
  const visit = (node: ts.Node) => {
    // Generated code tables are written for the core and the glue from one spec row, so a
    // one-sided change cannot happen; the codes the core returns are pinned by examples.
    if (ts.isEnumDeclaration(node) && file.startsWith("assembly/generated/")) return;
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken;
      for (const to of SWAPS[op.getText()] ?? []) add(op.getText() === "&&" || op.getText() === "||" ? "logical" : /[<>]/.test(op.getText()) ? "relational" : /=/.test(op.getText()) ? "equality" : "arithmetic", op.getStart(), op.getEnd(), to);
    } else if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) {
      add("negation-dropped", node.getStart(), node.operand.getStart(), "");
    } else if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) {
      add("boolean", node.getStart(), node.getEnd(), node.kind === ts.SyntaxKind.TrueKeyword ? "false" : "true");
    } else if (ts.isNumericLiteral(node)) {
      const v = Number(node.text);
      add("constant", node.getStart(), node.getEnd(), String(v + 1));
      add("constant", node.getStart(), node.getEnd(), String(v - 1));
    } else if (ts.isReturnStatement(node) && node.expression && functionReturnsBool(node) && !["true", "false"].includes(node.expression.getText())) {
      add("boolean-return", node.expression.getStart(), node.expression.getEnd(), "true");
      add("boolean-return", node.expression.getStart(), node.expression.getEnd(), "false");
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

export function apply(text: string, m: Pick<Mutant, "start" | "end" | "to">): string {
  return text.slice(0, m.start) + m.to + text.slice(m.end);
}
