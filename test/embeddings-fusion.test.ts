// fuseScores, the seam search fuses its lexical scores with the semantic layer's cosines through:
// each side brought to 0..1 for the query (lexical by its best, cosines from the median tool to
// the nearest), then weighted by FUSION_TUNING.semanticWeight.
import { describe, it, expect } from "vitest";
import { FUSION_TUNING, fuseScores } from "../glue/embeddings/fusion.js";

const order = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([a]) => a);

describe("fuseScores", () => {
  it("without semantic scores (off or not ready) is the lexical ranking, normalized to its best", () => {
    const fused = fuseScores(new Map([["a.x", 6], ["a.y", 3], ["a.z", 0]]), undefined);
    expect([...fused]).toEqual([["a.x", 1], ["a.y", 0.5]]);
    expect(fuseScores(new Map([["a.x", 2]]), new Map())).toEqual(new Map([["a.x", 1]]));
  });

  it("lets a paraphrase's tool that shares no word with the query in, above tools nearer only by chance", () => {
    // The lexical side found a weak match; the semantic side knows "folder" means "directory".
    const lexical = new Map([["chat.send", 1]]);
    const semantic = new Map([["fs.remove_directory", 0.72], ["chat.send", 0.31], ["fs.read", 0.35], ["web.fetch", 0.3], ["git.log", 0.28]]);
    const fused = fuseScores(lexical, semantic);
    expect(order(fused)[0]).toBe("fs.remove_directory");
    // A tool at or below the catalog's median cosine gains nothing from meaning.
    expect(fused.has("git.log")).toBe(false);
    expect(fused.get("chat.send")).toBeCloseTo(1 - FUSION_TUNING.semanticWeight);
  });

  it("keeps the tool both sides put first at the top with a score of 1, and every score within 0..1", () => {
    const lexical = new Map([["a.best", 9], ["a.other", 4]]);
    const semantic = new Map([["a.best", 0.8], ["a.other", 0.5], ["a.far", 0.2]]);
    const fused = fuseScores(lexical, semantic);
    expect(fused.get("a.best")).toBeCloseTo(1);
    for (const s of fused.values()) expect(s).toBeGreaterThan(0), expect(s).toBeLessThanOrEqual(1);
  });

  it("the weight moves the balance: 0 is lexical only, 1 is semantic only", () => {
    const lexical = new Map([["a.word", 5], ["a.meaning", 1]]);
    const semantic = new Map([["a.word", 0.3], ["a.meaning", 0.9], ["a.c", 0.2], ["a.d", 0.1]]);
    expect(order(fuseScores(lexical, semantic, 0))[0]).toBe("a.word");
    expect(order(fuseScores(lexical, semantic, 1))[0]).toBe("a.meaning");
  });

  it("cosines that are all equal add nothing (no tool is nearer than another)", () => {
    expect(fuseScores(new Map([["a.x", 1]]), new Map([["a.x", 0.5], ["a.y", 0.5]]))).toEqual(new Map([["a.x", 1 - FUSION_TUNING.semanticWeight]]));
  });
});
