// The team-mode access glue in process, with the real core (spec/access.md G1–G6):
// catalog/access-scope.ts (which connectors one principal may use under atrium.access, and the
// scope's cache key) and its facts (decisions/facts/access.ts), and ownedScope (a principal's
// own instances of per-user connectors), and the principal they read (support/principal.ts).
import { describe, expect, it } from "vitest";
import { accessScope, ownedScope } from "../glue/catalog/access-scope.js";
import { core } from "../glue/decisions/core.js";
import { LOCAL_PRINCIPAL, tokenPrincipal } from "../glue/support/principal.js";

// Built inside each test (not while the file loads), so a mutant of support/principal.ts is seen by the tests that use it.
const alice = () => tokenPrincipal("https://login.example", "alice", ["ops", "eng"], []);
const bob = () => tokenPrincipal("https://login.example", "bob", ["sales"], []);
const ids = ["desk", "gate", "mail"];

describe("the principal a verified token names, as the access rules read it", () => {
  it("keeps the token's groups and scopes as copies nobody can change afterwards", () => {
    const groups = ["ops"];
    const scopes = ["mcp:tools"];
    const p = tokenPrincipal("https://login.example", "alice", groups, scopes);
    groups.push("admin");
    scopes.push("mcp:admin");
    expect(p.groups).toEqual(["ops"]);
    expect(p.scopes).toEqual(["mcp:tools"]);
    expect(Object.isFrozen(p) && Object.isFrozen(p.groups) && Object.isFrozen(p.scopes)).toBe(true);
    expect([p.issuer, p.subject]).toEqual(["https://login.example", "alice"]);
  });
});

describe("accessScope: which connectors a principal may use", () => {
  it("no rules (atrium.access absent): the whole catalog, for everyone", () => {
    expect(accessScope(core(), null, alice(), ids)).toBeUndefined();
    expect(accessScope(core(), null, LOCAL_PRINCIPAL, ids)).toBeUndefined();
  });

  it("a rule without groups grants its connectors to everyone; one with groups only to a principal holding one of them", () => {
    const rules = [{ connectors: ["desk"] }, { groups: ["ops"], connectors: ["gate"] }];
    const forOps = accessScope(core(), rules, alice(), ids)!;
    const forSales = accessScope(core(), rules, bob(), ids)!;
    expect(ids.filter((id) => forOps.visible(id))).toEqual(["desk", "gate"]);
    expect(ids.filter((id) => forSales.visible(id))).toEqual(["desk"]);
    expect(forOps.key).toBe("desk\ngate");
    expect(forSales.key).toBe("desk");
  });

  it("rules that grant every connector leave the whole catalog (no scope)", () => {
    expect(accessScope(core(), [{ connectors: ["desk", "gate"] }, { groups: ["sales"], connectors: ["mail"] }], bob(), ids)).toBeUndefined();
  });

  it("an empty rule list hides everything: rules are on, and none grants", () => {
    const scope = accessScope(core(), [], alice(), ids)!;
    expect(ids.filter((id) => scope.visible(id))).toEqual([]);
    expect(scope.key).toBe("");
  });

  it("a connector two rules grant is usable once; a rule naming no configured connector grants nothing", () => {
    const scope = accessScope(core(), [{ connectors: ["desk"] }, { groups: ["eng"], connectors: ["desk", "nowhere"] }], alice(), ids)!;
    expect(ids.filter((id) => scope.visible(id))).toEqual(["desk"]);
  });
});

describe("ownedScope: a principal's own instances of per-user connectors", () => {
  it("without per-user connectors, or for local, the scope is as it was", () => {
    const scope = accessScope(core(), [{ connectors: ["desk"] }], alice(), ids);
    expect(ownedScope(scope, alice(), false)).toBe(scope);
    expect(ownedScope(scope, LOCAL_PRINCIPAL, true)).toBe(scope);
    expect(ownedScope(undefined, LOCAL_PRINCIPAL, true)).toBeUndefined();
  });

  it("with per-user connectors a token's principal owns its scope, keyed apart from every other principal's", () => {
    const scope = accessScope(core(), [{ connectors: ["desk"] }], alice(), ids)!;
    const owned = ownedScope(scope, alice(), true)!;
    expect(owned.owner).toBe(alice().id);
    expect(owned.key).toBe(`desk\u0000${alice().id}`);
    expect(ids.filter((id) => owned.visible(id))).toEqual(["desk"]);
    const whole = ownedScope(undefined, bob(), true)!;
    expect(whole.key).toBe(`*\u0000${bob().id}`);
    expect(whole.owner).toBe(bob().id);
    expect(ids.every((id) => whole.visible(id))).toBe(true);
  });
});
