// Search on the captured catalogs of real MCP servers (test/bench/search/catalogs, built into a
// real Catalog the way the bench does): the lexicon's expansions, verb intent between siblings,
// 0–1 scores with a weak floor, several phrasings fused, exact and prefix names, the hint on an
// empty answer, the unknown connector filter, and bad input. The queries here are this file's
// own, not the bench's.
import { describe, it, expect } from "vitest";
import { findTools } from "../glue/calls/discovery.js";
import { fuse } from "../glue/catalog/search-index.js";
import { AtriumError } from "../glue/support/errors.js";
import { expansions } from "../glue/catalog/lexicon.js";
import { stem, words } from "../glue/catalog/tokenize.js";
import { SEARCH_TUNING } from "../glue/catalog/search-tuning.js";
import { SEARCH_PHRASINGS_MAX } from "../glue/decisions/generated/spec.js";
import { loadCatalogs } from "./bench/search/data.js";
import { buildCatalog } from "./bench/search/catalog.js";

const catalog = buildCatalog(loadCatalogs().map((c) => ({ id: c.server, tools: c.tools })));
const find = (query: string, extra: { queries?: string[]; connector?: string; safety?: "read_only" | "approval" | "any" } = {}) => findTools(catalog, { query, ...extra });
const top = (query: string, n = 1, extra: { queries?: string[] } = {}) => find(query, extra).results.slice(0, n).map((r) => r.address);

describe("the lexicon expands a query", () => {
  it("a paraphrase in the lexicon finds the tool: folder → directory", () => {
    expect(words("folder").some((w) => catalog.entries().some((e) => e.description.toLowerCase().includes(w)))).toBe(false);
    expect(top("folder", 5).some((a) => a.startsWith("filesystem.") && a.includes("directory"))).toBe(true);
  });

  it("a paraphrase in the lexicon finds the tool: chargeback → dispute", () => {
    expect(top("chargeback")[0]).toMatch(/^stripe\..*dispute/);
  });

  it("a phrase matches only with its words in order, and its words still count alone", () => {
    const terms = (q: string) => expansions(words(q).map(stem)).map((x) => x.term);
    expect(terms("pull request")).toContain("pr");
    expect(terms("request pull")).not.toContain("pr");
    expect(terms("open a ticket")).toEqual(expect.arrayContaining(["create", "issue"]));
  });

  it("verb intent picks the sibling: submitting a review prefers create_* over get_*", () => {
    const found = top("submit a review", 10);
    expect(found[0]).toBe("github.create_pull_request_review");
    expect(found.indexOf("github.create_pull_request_review")).toBeLessThan(found.indexOf("github.get_pull_request_reviews"));
  });
});

describe("scores are honest", () => {
  it("every result carries a score between 0 and 1, best first", () => {
    const { results } = find("list issues in a repository");
    expect(results.length).toBeGreaterThan(1);
    for (const r of results) expect(r.score).toBeGreaterThanOrEqual(0), expect(r.score).toBeLessThanOrEqual(1);
    const scores = results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("an exact tool name (or address) ranks first with score 1; the start of a name ranks its tools next", () => {
    for (const q of ["create_refund", "stripe.create_refund", "`create_refund`"]) {
      const r = find(q).results[0]!;
      expect([r.address, r.score, r.weak]).toEqual(["stripe.create_refund", 1, undefined]);
    }
    expect(top("create_pull", 2).sort()).toEqual(["github.create_pull_request", "github.create_pull_request_review"]);
  });

  it("a negative query is weak: nothing any tool does comes back weak or not at all", () => {
    for (const q of ["translate a poem into Latin", "book a flight to Rome", "water the plants"]) {
      const { results } = find(q);
      expect(results.every((r) => r.weak === true), q).toBe(true);
    }
  });

  it("a right answer is not weak", () => {
    for (const q of ["create a refund", "take a screenshot of the page", "list kubernetes pods"]) {
      expect(find(q).results[0]!.weak, q).toBeUndefined();
    }
    expect(find("create a refund").results[0]!.score).toBeGreaterThanOrEqual(SEARCH_TUNING.weakFloor);
  });
});

describe("several phrasings at once", () => {
  it("RRF of two phrasings ranks a tool found by either", () => {
    const a = top("chargeback", 1)[0]!;
    const b = top("make a new git branch", 1)[0]!;
    const fused = top("chargeback", 5, { queries: ["make a new git branch"] });
    expect(fused).toEqual(expect.arrayContaining([a, b]));
    expect(fused.slice(0, 2).sort()).toEqual([a, b].sort());
  });

  it("a tool both phrasings find outranks one that only one finds", () => {
    const fused = top("money back to a customer", 3, { queries: ["refund a charge"] });
    expect(fused[0]).toBe("stripe.create_refund");
  });

  it("empty phrasings are ignored, and at most SEARCH_PHRASINGS_MAX are ranked", () => {
    expect(top("", 3, { queries: ["", "chargeback"] })).toEqual(top("chargeback", 3));
    const many = Array.from({ length: SEARCH_PHRASINGS_MAX + 2 }, (_, i) => (i < SEARCH_PHRASINGS_MAX ? "chargeback" : "git branch"));
    expect(top("", 3, { queries: many })).toEqual(top("chargeback", 3));
  });
});

describe("answers when nothing matches", () => {
  it("no result at all comes with a hint naming the connectors and other words to try", () => {
    const found = find("zzyzx qwerty");
    expect(found.total).toBe(0);
    expect(found.hint!.connectors).toEqual(catalog.connectorIds());
    expect(found.hint!.message).toContain("queries");
  });

  it("a first page of weak results only comes with the hint too, saying every result is weak; a strong result comes without", () => {
    // A tool only the semantic layer found, with modest evidence: a candidate, but weak.
    const found = findTools(catalog, { query: "zzyzx qwerty" }, new Map([["time.get_timestamp", 0.5]]));
    expect(found.results.map((r) => [r.address, r.weak])).toEqual([["time.get_timestamp", true]]);
    expect(found.hint!.message).toContain("every result is weak");
    expect(found.hint!.connectors).toEqual(catalog.connectorIds());
    expect(find("create_issue").hint).toBeUndefined();
  });

  it("unknown connector filter names the known ones", () => {
    let thrown: unknown;
    try {
      find("issue", { connector: "gitlab" });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AtriumError);
    const e = thrown as AtriumError;
    expect(e.code).toBe("invalid_args");
    expect(e.message).toContain("gitlab");
    expect(e.message).toContain("github");
    expect(e.details).toMatchObject({ connectors: expect.arrayContaining(["github", "stripe", "linear"]) });
    expect(find("issue", { connector: "linear" }).results.every((r) => r.address.startsWith("linear."))).toBe(true);
  });
});

describe("bad input answers cleanly", () => {
  it("an empty or blank query lists every tool, unranked", () => {
    for (const q of ["", "   \n\t"]) {
      const found = find(q);
      expect(found.total).toBe(catalog.entries().length);
      expect(found.results.every((r) => r.score === 0 && r.weak === undefined)).toBe(true);
    }
  });

  it("a huge query is cut to its first words and answers", () => {
    const found = find("create a refund ".repeat(20_000));
    expect(found.results[0]!.address).toBe("stripe.create_refund");
  });

  it("non-ASCII and punctuation-only queries answer with nothing and a hint, never a throw", () => {
    for (const q of ["ファイルを作成", "créer un répertoire ✨", "?!...---", "🙂🙂", "\u0000\u0001"]) {
      const found = find(q);
      expect(found.results.every((r) => r.score >= 0 && r.score <= 1), q).toBe(true);
      if (found.total === 0) expect(found.hint, q).toBeDefined();
    }
    expect(find("?!...---").total).toBe(0);
  });
});

describe("the one fusion of lexical and semantic scores", () => {
  it("fuse blends semantic evidence (0-1) in with semanticWeight; no evidence counts 0", () => {
    const w = SEARCH_TUNING.semanticWeight;
    expect(fuse(0.8, 1)).toBeCloseTo((1 - w) * 0.8 + w);
    expect(fuse(0.8, undefined)).toBeCloseTo((1 - w) * 0.8);
  });

  it("a tool only the extra source finds becomes a candidate, and a strong extra score lifts a tool", () => {
    const plain = findTools(catalog, { query: "chargeback" });
    expect(plain.results.map((r) => r.address)).not.toContain("time.get_timestamp");
    const lifted = findTools(catalog, { query: "chargeback" }, new Map([["time.get_timestamp", 1], ["stripe.list_disputes", 1]]));
    expect(lifted.results.map((r) => r.address)).toContain("time.get_timestamp");
    expect(lifted.results[0]!.address).toBe("stripe.list_disputes");
    expect(lifted.ranking).toBe("hybrid");
    expect(plain.ranking).toBe("lexical");
  });

  it("a tool with evidence below semanticCandidateFloor and no shared word is no candidate: a query no tool answers stays empty", () => {
    const below = SEARCH_TUNING.semanticCandidateFloor / 2;
    const found = findTools(catalog, { query: "chargeback" }, new Map([["time.get_timestamp", below]]));
    expect(found.results.map((r) => r.address)).not.toContain("time.get_timestamp");
  });
});
