// semanticEvidence: how the semantic layer's cosines become the 0-1 evidence search fuses with its
// lexical score (search-index.ts fuse(), weight SEARCH_TUNING.semanticWeight): measured from the
// catalog's median tool for the query (0) toward an identical text (1), the same scale for every
// query, so a query whose nearest tool is far stays low.
import { describe, it, expect } from "vitest";
import { semanticEvidence as fromCosines } from "../glue/embeddings/evidence.js";

/** The evidence of cosines given by address (as the worker's Float32Array in that order). */
const semanticEvidence = (m: Map<string, number>) => fromCosines({ generation: 0, addresses: [...m.keys()], cosines: Float32Array.from(m.values()) });

describe("semanticEvidence", () => {
  it("gives evidence only to tools nearer the query than the catalog's median tool", () => {
    const e = semanticEvidence(new Map([["fs.remove_directory", 0.72], ["chat.send", 0.31], ["fs.read", 0.35], ["web.fetch", 0.3], ["git.log", 0.28]]));
    // median 0.31 (chat.send): it and the tools below it get nothing
    expect([...e.keys()].sort()).toEqual(["fs.read", "fs.remove_directory"]);
    expect(e.get("fs.remove_directory")).toBeCloseTo((0.72 - 0.31) / (1 - 0.31));
  });

  it("is on a fixed scale: a query whose nearest tool is far gets low evidence, not 1", () => {
    const near = semanticEvidence(new Map([["a.x", 0.9], ["a.y", 0.2], ["a.z", 0.1]]));
    const far = semanticEvidence(new Map([["a.x", 0.35], ["a.y", 0.2], ["a.z", 0.1]]));
    expect(near.get("a.x")!).toBeGreaterThan(0.8);
    expect(far.get("a.x")!).toBeLessThan(0.25);
    for (const v of [...near.values(), ...far.values()]) expect(v).toBeGreaterThan(0), expect(v).toBeLessThanOrEqual(1);
  });

  it("adds nothing when every cosine is the same, or there are none", () => {
    expect(semanticEvidence(new Map([["a.x", 0.5], ["a.y", 0.5]])).size).toBe(0);
    expect(semanticEvidence(new Map()).size).toBe(0);
    expect(fromCosines({ generation: 0, addresses: ["a.x", "a.y"], cosines: Float32Array.of(Number.NaN, Number.NaN) }).size, "no tool has a vector").toBe(0);
    expect(semanticEvidence(new Map([["a.x", 1], ["a.y", 1]])).size).toBe(0);
  });
});
