// Where a program failed, as its author wrote it. The worker evaluates the program text inside a
// wrapper (first as an expression, then as an async function body), which puts the program's
// first line on the wrapper's second. This file owns both wrappers and the one translation of
// QuickJS's `program.js:line:column` positions back to the program's own 1-based lines and
// columns: in a stack (the prelude's frames dropped), as an error's line and column, and in the
// choice between the two readings' syntax errors (the reading that parsed further is the one
// the author meant). A position past the program's end (an unclosed brace) is its end.
import { PRELUDE_FILE } from "./prelude.js";
import type { GuestError } from "./protocol.js";

export const PROGRAM_FILE = "program.js";
const EXPRESSION_OPEN = "(() => (\n", EXPRESSION_CLOSE = "\n))";
const BODY_OPEN = "(async () => {\n", BODY_CLOSE = "\n})";
/** The program as one expression: `async () => { … }` (or any function) is the common form. */
export const asExpression = (code: string) => EXPRESSION_OPEN + code + EXPRESSION_CLOSE;
/** The program as the body of an async function: a bare body with `await` and `return`. */
export const asBody = (code: string) => BODY_OPEN + code + BODY_CLOSE;
/** Lines each wrapper puts before the program: both openers end in their only line break. */
const OFFSET = EXPRESSION_OPEN.split("\n").length - 1;

interface Position { line: number; column: number }
const POSITION = new RegExp(`${PROGRAM_FILE.replaceAll(".", "\\.")}:(?<line>\\d+):(?<column>\\d+)`);
const POSITIONS = new RegExp(POSITION.source, "g");

/** A wrapper position as the program's own, or undefined when it is not inside the program text. */
function inProgram(code: string, line: number, column: number): Position | undefined {
  const own = line - OFFSET;
  if (own < 1) return undefined;
  let start = 0, at = 1;
  while (at < own) {
    const next = code.indexOf("\n", start);
    if (next < 0) break;
    start = next + 1;
    at++;
  }
  const end = code.indexOf("\n", start);
  const lastColumn = (end < 0 ? code.length : end) - start + 1;
  // Past the last line, or past the end of the last one: the end of the program.
  if (at < own || (end < 0 && column > lastColumn)) return { line: at, column: lastColumn };
  return { line: own, column };
}

/** A position read from a stack: the program may have written the stack itself, so only whole, safe numbers count. */
function position(line: string | undefined, column: string | undefined): Position | undefined {
  const p = { line: Number(line), column: Number(column) };
  return Number.isSafeInteger(p.line) && Number.isSafeInteger(p.column) ? p : undefined;
}

/** The wrapper's first position in a QuickJS stack (the innermost frame in the program). */
function firstPosition(stack: string | undefined): Position | undefined {
  const m = stack === undefined ? null : POSITION.exec(stack);
  return m?.groups ? position(m.groups.line, m.groups.column) : undefined;
}

/** A stack with the program's own positions and without the prelude's frames (it only gets shorter). */
function ownStack(code: string, stack: string): string {
  return stack
    .split("\n")
    .filter((l) => !l.includes(PRELUDE_FILE))
    .join("\n")
    .replace(POSITIONS, (whole, l: string, c: string) => {
      const at = position(l, c);
      const p = at && inProgram(code, at.line, at.column);
      return p ? `${PROGRAM_FILE}:${p.line}:${p.column}` : whole;
    });
}

/** A program's own error with its stack, line and column as the author wrote them (a host's error is left as it is). */
export function located(code: string, e: GuestError): GuestError {
  if (e.host) return e;
  const at = firstPosition(e.stack);
  const p = at && inProgram(code, at.line, at.column);
  const stack = e.stack === undefined ? undefined : ownStack(code, e.stack);
  return { ...e, ...(stack !== undefined && { stack }), ...(p && { line: p.line, column: p.column }) };
}

/** Of the two readings' syntax errors, the one whose parse got further; the expression's on a tie. */
export function furtherSyntaxError(asExpr: GuestError, asFnBody: GuestError): GuestError {
  const a = firstPosition(asExpr.stack), b = firstPosition(asFnBody.stack);
  if (!a || !b) return a || !b ? asExpr : asFnBody;
  return b.line > a.line || (b.line === a.line && b.column > a.column) ? asFnBody : asExpr;
}
