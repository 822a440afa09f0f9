import { describe, it, expect } from "vitest";
import { FIELD_KINDS, KINDS, SPLITS, loadCatalogs, loadFieldQueries, loadQueries, loadSources, sharedWords, toolsByAddress } from "./bench/search/data.js";

// The search benchmark's data (test/bench/search) is sound: what `npm run bench:search` measures
// rests on it. Reads files only: no network, no server started.
const catalogs = loadCatalogs();
const queries = loadQueries();
const fieldQueries = loadFieldQueries();
const tools = toolsByAddress(catalogs);

describe("search benchmark data", () => {
  it("holds catalogs of at least 12 real servers, each named in sources.json with its package, exact version and capture date", () => {
    expect(catalogs.length).toBeGreaterThanOrEqual(12);
    const sources = loadSources().servers;
    expect(sources.map((s) => s.id).sort()).toEqual(catalogs.map((c) => c.server).sort());
    for (const c of catalogs) {
      const s = sources.find((x) => x.id === c.server)!;
      expect(s.package).toBe(c.package);
      expect(s.version).toBe(c.version);
      expect(s.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(s.captured).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(s.tools).toBe(c.tools.length);
      expect(c.tools.length).toBeGreaterThan(0);
      for (const t of c.tools) expect(typeof t.name).toBe("string");
    }
    expect(tools.size).toBeGreaterThanOrEqual(200);
    expect(tools.size).toBeLessThanOrEqual(350);
  });

  it("has at least 160 queries with unique ids, each of a known kind and split", () => {
    expect(queries.length).toBeGreaterThanOrEqual(160);
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    for (const q of queries) {
      expect(KINDS).toContain(q.kind);
      expect(SPLITS).toContain(q.split);
      expect(q.query.trim().length).toBeGreaterThan(0);
    }
  });

  it("names only addresses that exist in the catalogs; negatives expect nothing and every other query something", () => {
    for (const q of queries) {
      if (q.kind === "negative") expect(q.expect, q.id).toEqual([]);
      else expect(q.expect.length, q.id).toBeGreaterThan(0);
      for (const a of q.expect) expect(tools.has(a), `${q.id}: ${a}`).toBe(true);
    }
  });

  it("has at least 25 paraphrases, none sharing a word (lowercased, lightly stemmed) with its expected tools' name, title or description", () => {
    const paraphrases = queries.filter((q) => q.kind === "paraphrase");
    expect(paraphrases.length).toBeGreaterThanOrEqual(25);
    for (const q of paraphrases) for (const a of q.expect) expect(sharedWords(q.query, tools.get(a)!), `${q.id} "${q.query}" vs ${a}`).toEqual([]);
  });

  it("the word check catches a shared word through case, plurals and verb endings", () => {
    const tool = { name: "create_directory", title: "Create Directory", description: "Creates new directories.", inputSchema: {} };
    expect(sharedWords("make a folder", tool)).toEqual([]);
    expect(sharedWords("Directories", tool)).toEqual(["directory"]);
    expect(sharedWords("creating a NEW one", tool).sort()).toEqual(["creat", "new"]);
  });

  it("has at least 12 negatives, and sibling and cross_server queries", () => {
    expect(queries.filter((q) => q.kind === "negative").length).toBeGreaterThanOrEqual(12);
    expect(queries.filter((q) => q.kind === "sibling").length).toBeGreaterThan(0);
    expect(queries.filter((q) => q.kind === "cross_server").length).toBeGreaterThan(0);
  });

  it("splits every kind half and half, alternating in file order (tune first)", () => {
    for (const k of KINDS) {
      const of = queries.filter((q) => q.kind === k);
      of.forEach((q, i) => expect(q.split, q.id).toBe(i % 2 === 0 ? "tune" : "heldout"));
      const tune = of.filter((q) => q.split === "tune").length;
      expect(Math.abs(tune - (of.length - tune))).toBeLessThanOrEqual(1);
    }
  });

  it("has a field set of at least 60 real-catalog queries (short, action words, naming the service, natural questions, negatives), ids unique across both files, each naming only existing addresses", () => {
    expect(fieldQueries.length).toBeGreaterThanOrEqual(60);
    const ids = [...queries, ...fieldQueries].map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const k of FIELD_KINDS) expect(fieldQueries.filter((q) => q.kind === k).length, k).toBeGreaterThanOrEqual(8);
    for (const q of fieldQueries) {
      expect(FIELD_KINDS, q.id).toContain(q.kind);
      expect(q.split, q.id).toBe("field");
      if (q.kind === "negative") expect(q.expect, q.id).toEqual([]);
      else expect(q.expect.length, q.id).toBeGreaterThan(0);
      for (const a of q.expect) expect(tools.has(a), `${q.id}: ${a}`).toBe(true);
    }
  });
});
