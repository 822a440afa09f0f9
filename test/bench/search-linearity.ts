// Search's text handling stays linear in the text's length: the time of one 1 MB text over the
// time of ten 100 kB texts (the same characters, the same garbage), for the word splitter with
// stemming and for a whole search of the captured catalogs. Linear is about 1×; a quadratic routine
// is about 10×. Each routine is warmed up first: the quadratic behaviour this watches for appeared
// only once the engine had optimized the word splitter (it now scans bytes). A speed figure, so it
// lives here and not in the tests: a busy machine would make it a coin toss there.
import { buildSearchIndex, searchIndex } from "../../glue/catalog/search-index.js";
import { stem, words } from "../../glue/catalog/tokenize.js";
import { buildCatalog } from "./search/catalog.js";
import { loadCatalogs } from "./search/data.js";
import { stats, type Stats } from "./stats.js";

const SHAPES: Record<string, string> = {
  "short words": "ab ",
  "camel humps": "aB",
  "one long lower-case word": "a",
  "one long upper-case word": "A",
  "letters and digits": "a1B2",
  "acronyms before words": "HTTPResponse",
  "non-ASCII words": "é ",
  "non-ASCII camel humps": "Éa",
  "mixed scripts and separators": "listIncidents_v2 Ünïcode-ß/",
  "quotes around a query": "\"'`",
};
const TRIES = 5;

const sized = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
const timed = (f: () => void) => {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t);
};

/** One 1 MB text's time over ten 100 kB texts' time, once per try. */
function ratios(f: (text: string) => void, unit: string): Stats {
  for (let i = 0; i < 20; i++) f(sized(unit, 10_000 + i));
  const tens = Array.from({ length: 10 }, (_, i) => sized(unit, 100_000 - i));
  const one = sized(unit, 1_000_000);
  return stats(Array.from({ length: TRIES }, () => timed(() => f(one)) / Math.max(1, timed(() => tens.forEach(f)))));
}

export function benchSearchLinearity(): { rows: [string, Stats, string][]; notes: string[] } {
  const catalog = buildCatalog(loadCatalogs().map((c) => ({ id: c.server, tools: c.tools })));
  const index = buildSearchIndex(catalog.entries());
  const tokenize = (text: string) => words(text).map(stem);
  const rows: [string, Stats, string][] = [];
  for (const [shape, unit] of Object.entries(SHAPES)) {
    rows.push([`tokenize, ${shape}`, ratios(tokenize, unit), "×"]);
    rows.push([`search, ${shape}`, ratios((query) => searchIndex(index, { query }), unit), "×"]);
  }
  return { rows, notes: [`${catalog.entries().length} tools indexed; linear ≈ 1×, quadratic ≈ 10×`] };
}
