// Access rules in team mode (spec/access.md): does one rule grant a connector to a principal
// (G1–G3), and may the principal use it given the policy and how many rules granted it (G4–G6). Fails closed.
import { AccessAnswer, AccessPolicy, AccessRule, RuleGroups, RuleLists } from "./generated/spec";

/** G1–G3: grants when the rule lists the connector and names no groups or shares one. */
export function accessRule(lists: i32, groups: i32): i32 {
  if (lists < RuleLists.no || lists > RuleLists.yes || groups < RuleGroups.any || groups > RuleGroups.none_shared) return AccessRule.invalid_facts; // G3
  if (lists == RuleLists.yes && groups != RuleGroups.none_shared) return AccessRule.grants; // G1, G2
  return AccessRule.passes;
}

/** G4–G6: open without rules; with rules, granted only when some rule granted it. */
export function access(policy: i32, granted: f64): i32 {
  if (policy < AccessPolicy.open || policy > AccessPolicy.rules || !isFinite<f64>(granted) || Math.floor(granted) != granted || granted < 0) return AccessAnswer.invalid_facts; // G6
  if (policy == AccessPolicy.open) return AccessAnswer.open; // G4
  return granted >= 1 ? AccessAnswer.granted : AccessAnswer.hidden; // G5
}
