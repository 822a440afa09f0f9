// The software-domain lexicon (lexicon.json) as query expansion: which other terms a query's
// words stand for. A group's members are tokenized and stemmed exactly as the index is, so a
// member matches whatever the index would match; a phrase member matches only when its words
// follow one another in the query (its words are matched alone as well). Shorthands ("ls") are
// read as the words they stand for before any of that.
import data from "./lexicon.json" with { type: "json" };
import { stem, words } from "./tokenize.js";

interface Group { reason: string; words: string[] }

/** A shorthand → the lowercase words it stands for. */
const SHORTHANDS = new Map(Object.entries(data.shorthands as Record<string, string>).map(([k, v]) => [k, words(v)]));

/** A query's words with every shorthand spelled out ("ls" → "list", "directory"). */
export function spellOut(queryWords: readonly string[]): string[] {
  return queryWords.flatMap((w) => SHORTHANDS.get(w) ?? [w]);
}

/** Each group as lists of stemmed terms (one list per member; phrases have several). */
const GROUPS: string[][][] = (data.groups as Group[]).map((g) => g.words.map((w) => words(w).map(stem)).filter((m) => m.length > 0));

/** First term of a member → the members starting with it, and their groups. */
const BY_FIRST = new Map<string, { member: string[]; group: number }[]>();
GROUPS.forEach((members, group) => {
  for (const member of members) {
    const list = BY_FIRST.get(member[0]!) ?? [];
    list.push({ member, group });
    BY_FIRST.set(member[0]!, list);
  }
});

/**
 * The terms the lexicon adds for a query's stemmed words, each with the span of query positions
 * [from, to) of the word or phrase it stands for, and whether it comes from a phrase member
 * ("merge" of "merge request"); the query's own terms are left out.
 */
export function expansions(stems: readonly string[]): { term: string; from: number; to: number; fromPhrase: boolean }[] {
  const own = new Set(stems);
  const out = new Map<string, { from: number; to: number; fromPhrase: boolean }>();
  for (let i = 0; i < stems.length; i++) {
    for (const { member, group } of BY_FIRST.get(stems[i]!) ?? []) {
      if (!member.every((t, k) => stems[i + k] === t)) continue;
      for (const m of GROUPS[group]!) for (const t of m) if (!own.has(t) && !out.has(t)) out.set(t, { from: i, to: i + member.length, fromPhrase: m.length > 1 });
    }
  }
  return [...out].map(([term, span]) => ({ term, ...span }));
}
