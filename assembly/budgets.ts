// Budgets and limits (spec/budgets.md, B1–B7). Amounts are whole numbers held in f64,
// exact below 2^53; every limit's maximum is far below that.
import { BUDGET_COUNT, BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN, BudgetCheck, LimitCheck } from "./generated/spec";

function known(b: i32): bool {
  return b >= 1 && b <= BUDGET_COUNT;
}

function isWhole(v: f64): bool {
  return isFinite<f64>(v) && Math.floor(v) == v;
}

/** B1 */
export function limitDefault(b: i32): f64 {
  return known(b) ? unchecked(BUDGET_DEFAULT[b]) : -1;
}

/** B1 */
export function limitMin(b: i32): f64 {
  return known(b) ? unchecked(BUDGET_MIN[b]) : -1;
}

/** B1 */
export function limitMax(b: i32): f64 {
  return known(b) ? unchecked(BUDGET_MAX[b]) : -1;
}

/** B2 */
export function limitAccepts(b: i32, value: f64): i32 {
  if (!known(b)) return LimitCheck.unknown_budget;
  if (!isWhole(value)) return LimitCheck.not_integer;
  if (value < unchecked(BUDGET_MIN[b])) return LimitCheck.below_min;
  if (value > unchecked(BUDGET_MAX[b])) return LimitCheck.above_max;
  return LimitCheck.ok;
}

/** B3–B5, B7 */
export function budgetCheck(b: i32, used: f64, adding: f64, limit: f64): i32 {
  if (!known(b)) return BudgetCheck.unknown_budget;
  if (limitAccepts(b, limit) != LimitCheck.ok) return BudgetCheck.invalid_limit;
  if (!isWhole(used) || used < 0 || !isWhole(adding) || adding < 0) return BudgetCheck.invalid_amount;
  if (used > limit || adding > limit - used) return BudgetCheck.over;
  return BudgetCheck.ok;
}

/** B6 */
export function budgetRoom(b: i32, used: f64, limit: f64): f64 {
  if (!known(b) || limitAccepts(b, limit) != LimitCheck.ok || !isWhole(used) || used < 0) return -1;
  return used >= limit ? 0 : limit - used;
}
