import { describe, it, expect } from "vitest";
import { ClassReason, DeliveryReason, HostReason, ViewCheck, BudgetCheck, LimitCheck } from "../glue/decisions/generated/spec.js";
import { describeClassReason, describeDeliveryReason, describeHostReason, describeViewCheck, describeBudgetCheck, describeLimitCheck } from "../glue/decisions/messages.js";

describe("decision messages", () => {
  const tables = [
    ["ClassReason", ClassReason, describeClassReason],
    ["HostReason", HostReason, describeHostReason],
    ["DeliveryReason", DeliveryReason, describeDeliveryReason],
    ["ViewCheck", ViewCheck, describeViewCheck],
    ["BudgetCheck", BudgetCheck, describeBudgetCheck],
    ["LimitCheck", LimitCheck, describeLimitCheck],
  ] as const;
  for (const [name, table, describe_] of tables) {
    it(`every ${name} code has its own readable message`, () => {
      const texts = Object.values(table).map((code) => describe_(code));
      for (const t of texts) expect(t).not.toMatch(/^unknown code/);
      expect(new Set(texts).size).toBe(texts.length);
    });
  }
  it("an unknown code is named, not mistaken for another", () => {
    expect(describeViewCheck(999)).toBe("unknown code 999");
  });
});
