// The words for the core's codes that atrium shows (glue/decisions/messages.ts): every code of each
// table a person or the model is shown has its own readable text, and a code outside the table is
// named as unknown, never mistaken for another.
import { describe, it, expect } from "vitest";
import { ClassReason, TokenReason, ViewCheck } from "../glue/decisions/generated/spec.js";
import { classReasonText, describeTokenReason, describeViewCheck } from "../glue/decisions/messages.js";

describe("decision messages", () => {
  const tables = [
    ["ClassReason (doctor's read-only reasons)", ClassReason, (code: number) => classReasonText[Object.keys(ClassReason).find((k) => ClassReason[k as keyof typeof ClassReason] === code) as keyof typeof classReasonText]],
    ["ViewCheck (a refused view manifest)", ViewCheck, describeViewCheck],
    ["TokenReason (an inbound token refused)", TokenReason, describeTokenReason],
  ] as const;
  for (const [name, table, describe_] of tables) {
    it(`every ${name} code has its own readable message`, () => {
      const texts = Object.values(table).map((code) => describe_(code));
      for (const t of texts) expect(t).toMatch(/^(?!unknown code)\S/);
      expect(new Set(texts).size).toBe(texts.length);
    });
  }
  it("an unknown code is named, not mistaken for another", () => {
    expect(describeViewCheck(999)).toBe("unknown code 999");
    expect(describeTokenReason(-1)).toBe("unknown code -1");
  });
});
