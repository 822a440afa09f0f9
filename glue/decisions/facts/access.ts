// Observations turned into the access family's facts (spec/access.md): what one `atrium.access`
// rule says of a connector and a principal's groups (G1–G2).
import { RuleGroups, RuleLists } from "../generated/spec.js";

/** One rule of atrium.access as validated: `groups` absent means everyone. */
export interface AccessRuleConfig { groups?: readonly string[]; connectors: readonly string[] }

/** G1–G2's facts for one rule, one connector id and one principal's groups. */
export function ruleFactsOf(rule: AccessRuleConfig, connector: string, principalGroups: readonly string[]): { lists: RuleLists; groups: RuleGroups } {
  const lists = rule.connectors.includes(connector) ? RuleLists.yes : RuleLists.no;
  const groups = rule.groups === undefined ? RuleGroups.any : rule.groups.some((g) => principalGroups.includes(g)) ? RuleGroups.shared : RuleGroups.none_shared;
  return { lists, groups };
}

