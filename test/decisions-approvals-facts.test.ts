// The facts a program's write is judged on (glue/decisions/facts/approval.ts): the host's
// elicitation capability exactly as spec/approvals.md's facts table reads it, the argument key set
// a standing grant is kept under, and the person's answer read from an elicitation result.
import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { argKeySet, elicitationOf, markOf, replyOf } from "../glue/decisions/facts/approval.js";
import { ApprovalMark, ApprovalReply, ElicitationSupport } from "../glue/decisions/generated/spec.js";

describe("approval facts", () => {
  it("elicitation: absent is none, empty or holding form is form, url alone is url_only, anything else malformed", () => {
    expect(elicitationOf(undefined)).toBe(ElicitationSupport.none);
    expect(elicitationOf({})).toBe(ElicitationSupport.none);
    expect(elicitationOf({ elicitation: undefined })).toBe(ElicitationSupport.none);
    expect(elicitationOf({ elicitation: {} })).toBe(ElicitationSupport.form);
    expect(elicitationOf({ elicitation: { form: {} } })).toBe(ElicitationSupport.form);
    expect(elicitationOf({ elicitation: { form: {}, url: {} } })).toBe(ElicitationSupport.form_and_url);
    expect(elicitationOf({ elicitation: { url: {} } })).toBe(ElicitationSupport.url_only);
    for (const bad of [null, true, "form", [], ["form"], { other: {} }, { url: {}, other: {} }]) expect(elicitationOf({ elicitation: bad }), JSON.stringify(bad)).toBe(ElicitationSupport.malformed);
  });

  it("elicitation: any capabilities object reads as exactly one of the four facts", () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      const got = elicitationOf({ elicitation: v });
      expect(Object.values(ElicitationSupport)).toContain(got);
      if (got === ElicitationSupport.form) expect(typeof v === "object" && v !== null && !Array.isArray(v) && (Object.keys(v).length === 0 || "form" in v)).toBe(true);
    }), { seed: 20261201, numRuns: 500 });
  });

  it("the key set is the top-level keys whatever their order or values, and another key more or less is another set", () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), (o, w) => {
      const reversed = Object.fromEntries(Object.entries(o).reverse().map(([k]) => [k, w]));
      expect(argKeySet(reversed)).toBe(argKeySet(o));
      expect(argKeySet({ ...o, "added key ✓": 1 })).not.toBe(argKeySet(Object.fromEntries(Object.entries(o).filter(([k]) => k !== "added key ✓"))));
    }), { seed: 20261201, numRuns: 300 });
    expect(argKeySet({ a: 1, b: 2 })).not.toBe(argKeySet({ "a,b": 1 }));
  });

  it("the operator's mark: only a listed tool is kept outside programs", () => {
    expect(markOf(["add"], "add")).toBe(ApprovalMark.outside_programs_only);
    expect(markOf(["add"], "remove")).toBe(ApprovalMark.in_programs);
    expect(markOf(undefined, "add")).toBe(ApprovalMark.in_programs);
  });

  it("the answer: decline and cancel as sent; accept only with exactly the choice field set to a choice; all else malformed", () => {
    expect(replyOf({ action: "decline" })).toBe(ApprovalReply.decline);
    expect(replyOf({ action: "cancel" })).toBe(ApprovalReply.cancel);
    expect(replyOf({ action: "accept", content: { choice: "run_once" } })).toBe(ApprovalReply.accept_once);
    expect(replyOf({ action: "accept", content: { choice: "run_rest" } })).toBe(ApprovalReply.accept_rest);
    for (const bad of [undefined, null, "accept", {}, { action: "accept" }, { action: "accept", content: {} }, { action: "accept", content: { choice: "yes" } }, { action: "accept", content: { choice: "run_once", more: 1 } }, { action: "accept", content: ["run_once"] }, { action: "ACCEPT", content: { choice: "run_once" } }, { action: "maybe" }]) {
      expect(replyOf(bad), JSON.stringify(bad)).toBe(ApprovalReply.malformed);
    }
  });
});
