// The scope of one principal under atrium.access: for each configured connector, how many rules
// grant it to the principal (the core judges each rule, G1–G3), then whether the principal may
// use it (the core again, G4–G6). Undefined when every connector is usable (no rules, or rules
// that grant everything): the whole catalog then.
import type { Core } from "../decisions/core.js";
import { AccessAnswer, AccessPolicy, AccessRule } from "../decisions/generated/spec.js";
import { ruleFactsOf, type AccessRuleConfig } from "../decisions/facts/access.js";
import { LOCAL_PRINCIPAL, type Principal } from "../support/principal.js";
import type { CatalogScope } from "./catalog.js";

export function accessScope(core: Core, rules: readonly AccessRuleConfig[] | null, principal: Principal, connectorIds: readonly string[]): CatalogScope | undefined {
  const policy = rules === null ? AccessPolicy.open : AccessPolicy.rules;
  const usable = connectorIds.filter((id) => {
    const granted = (rules ?? []).filter((r) => { const f = ruleFactsOf(r, id, principal.groups); return core.accessRule(f.lists, f.groups) === AccessRule.grants; }).length;
    const answer = core.access(policy, granted);
    return answer === AccessAnswer.open || answer === AccessAnswer.granted;
  });
  if (usable.length === connectorIds.length) return undefined;
  const set = new Set(usable);
  return { key: usable.join("\n"), visible: (id) => set.has(id) };
}

/** The scope as `principal` sees per-user connectors: its own instances (keyed by its id), when any connector is per-user and it is not `local`. */
export function ownedScope(scope: CatalogScope | undefined, principal: Principal, perUser: boolean): CatalogScope | undefined {
  if (!perUser || principal.id === LOCAL_PRINCIPAL.id) return scope;
  return { key: `${scope?.key ?? "*"}\u0000${principal.id}`, visible: scope ? (id) => scope.visible(id) : () => true, owner: principal.id };
}
