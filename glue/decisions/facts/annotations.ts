// Reduces a downstream tool's annotations and the operator's lists to the facts of
// spec/read-only.md. Shapes only; the core classifies.
import { Hint, Operator } from "../generated/spec.js";

export function hintOf(annotations: unknown, key: "readOnlyHint" | "destructiveHint"): Hint {
  if (typeof annotations !== "object" || annotations === null || !Object.hasOwn(annotations, key)) return Hint.absent;
  const v = (annotations as Record<string, unknown>)[key];
  if (v === undefined) return Hint.absent;
  if (v === true) return Hint.true;
  if (v === false) return Hint.false;
  return Hint.malformed;
}

export function operatorOf(promoted: boolean, demoted: boolean): Operator {
  return demoted ? Operator.demote : promoted ? Operator.promote : Operator.none;
}
