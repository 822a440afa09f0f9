// The team-mode access glue in process, with the real core (spec/access.md G1–G6):
// catalog/access-scope.ts (which connectors one principal may use under atrium.access, and the
// scope's cache key) and its facts (decisions/facts/access.ts), and ownedScope (a principal's
// own instances of per-user connectors).
import { describe, expect, it } from "vitest";
import { accessScope, ownedScope } from "../glue/catalog/access-scope.js";
import { core } from "../glue/decisions/core.js";
import { LOCAL_PRINCIPAL, tokenPrincipal } from "../glue/support/principal.js";

const ops = tokenPrincipal("https://login.example", "alice", ["ops", "eng"], []);
const sales = tokenPrincipal("https://login.example", "bob", ["sales"], []);
const ids = ["desk", "gate", "mail"];

describe("accessScope: which connectors a principal may use", () => {
  it("no rules (atrium.access absent): the whole catalog, for everyone", () => {
    expect(accessScope(core(), null, ops, ids)).toBeUndefined();
    expect(accessScope(core(), null, LOCAL_PRINCIPAL, ids)).toBeUndefined();
  });

  it("a rule without groups grants its connectors to everyone; one with groups only to a principal holding one of them", () => {
    const rules = [{ connectors: ["desk"] }, { groups: ["ops"], connectors: ["gate"] }];
    const forOps = accessScope(core(), rules, ops, ids)!;
    const forSales = accessScope(core(), rules, sales, ids)!;
    expect(ids.filter((id) => forOps.visible(id))).toEqual(["desk", "gate"]);
    expect(ids.filter((id) => forSales.visible(id))).toEqual(["desk"]);
    expect(forOps.key).toBe("desk\ngate");
    expect(forSales.key).toBe("desk");
  });

  it("rules that grant every connector leave the whole catalog (no scope)", () => {
    expect(accessScope(core(), [{ connectors: ["desk", "gate"] }, { groups: ["sales"], connectors: ["mail"] }], sales, ids)).toBeUndefined();
  });

  it("an empty rule list hides everything: rules are on, and none grants", () => {
    const scope = accessScope(core(), [], ops, ids)!;
    expect(ids.filter((id) => scope.visible(id))).toEqual([]);
    expect(scope.key).toBe("");
  });

  it("a connector two rules grant is usable once; a rule naming no configured connector grants nothing", () => {
    const scope = accessScope(core(), [{ connectors: ["desk"] }, { groups: ["eng"], connectors: ["desk", "nowhere"] }], ops, ids)!;
    expect(ids.filter((id) => scope.visible(id))).toEqual(["desk"]);
  });
});

describe("ownedScope: a principal's own instances of per-user connectors", () => {
  it("without per-user connectors, or for local, the scope is as it was", () => {
    const scope = accessScope(core(), [{ connectors: ["desk"] }], ops, ids);
    expect(ownedScope(scope, ops, false)).toBe(scope);
    expect(ownedScope(scope, LOCAL_PRINCIPAL, true)).toBe(scope);
    expect(ownedScope(undefined, LOCAL_PRINCIPAL, true)).toBeUndefined();
  });

  it("with per-user connectors a token's principal owns its scope, keyed apart from every other principal's", () => {
    const scope = accessScope(core(), [{ connectors: ["desk"] }], ops, ids)!;
    const owned = ownedScope(scope, ops, true)!;
    expect(owned.owner).toBe(ops.id);
    expect(owned.key).toBe(`desk\u0000${ops.id}`);
    expect(ids.filter((id) => owned.visible(id))).toEqual(["desk"]);
    const whole = ownedScope(undefined, sales, true)!;
    expect(whole.key).toBe(`*\u0000${sales.id}`);
    expect(whole.owner).toBe(sales.id);
    expect(ids.every((id) => whole.visible(id))).toBe(true);
  });
});
