// atrium behind atrium: each atrium tells its stdio connectors how deep they are, so a chain
// of atriums (a connector that itself runs atrium, perhaps pointing back) ends at the
// nesting_depth budget instead of recursing through processes until deadlines stop it.
import type { Core } from "../decisions/core.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import { DECIMAL_RADIX } from "../support/encoding.js";

export const NESTING_ENV = "ATRIUM_NESTING_DEPTH";

/** This process's depth (1 for an atrium a host started) and whether it may start connectors. */
export function nesting(core: Core, env: NodeJS.ProcessEnv = process.env): { depth: number; allowed: boolean; limit: number } {
  const parent = Number.parseInt(env[NESTING_ENV] ?? "0", DECIMAL_RADIX);
  const above = Number.isSafeInteger(parent) && parent > 0 ? parent : 0;
  const limit = core.limitDefault(Budget.nesting_depth);
  return { depth: above + 1, allowed: core.budgetCheck(Budget.nesting_depth, above, 1, limit) === BudgetCheck.ok, limit };
}
