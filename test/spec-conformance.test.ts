import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import { core } from "../glue/decisions/core.js";
import { readSpec } from "../glue/build/spec/parse.js";
import { runExamples } from "../glue/build/spec/examples.js";

const spec = readSpec();

describe("spec conformance of the committed wasm", () => {
  const report = runExamples(core(), spec);
  it("every clause has at least one example and no example is vacuous", () => {
    expect(report.clausesWithoutExample).toEqual([]);
    expect(report.vacuous).toBe(0);
    expect(report.total).toBeGreaterThan(300);
  });
  for (const clause of spec.clauses) {
    it(`${clause.id}: ${clause.title}`, () => {
      const mine = report.results.filter((r) => r.example.clause === clause.id);
      const failed = mine.filter((r) => !r.pass).map((r) => ({ line: `spec/${r.example.file}:${r.example.line}`, expect: r.example.expect, actual: r.error ?? r.actual }));
      expect(failed).toEqual([]);
      expect(mine.length).toBeGreaterThan(0);
    });
  }
  it("an example the core contradicts fails the report (the runner really compares)", () => {
    const tampered = structuredClone(spec);
    tampered.clauses[0].examples[0].expect = { kind: "plain", reason: "ext_absent" };
    const r = runExamples(core(), tampered);
    expect(r.passed).toBe(report.passed - 1);
  });
  it("an example expecting a key the runner never produces is vacuous", () => {
    const tampered = structuredClone(spec);
    tampered.clauses[0].examples[0].expect = { colour: "blue" };
    expect(runExamples(core(), tampered).vacuous).toBe(1);
  });
  it("the committed wasm is the one the build record describes", () => {
    const record = JSON.parse(readFileSync(new URL("../wasm/build.json", import.meta.url), "utf8"));
    const bytes = readFileSync(new URL("../wasm/core.wasm", import.meta.url));
    expect(record.wasmBytes).toBe(bytes.length);
  });
});
