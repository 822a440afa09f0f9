// The software-domain lexicon (lexicon.json) as query expansion: which other terms a query's
// words stand for. A group's members are tokenized and stemmed exactly as the index is, so a
// member matches whatever the index would match; a phrase member matches only when its words
// follow one another in the query, and a word inside a matched phrase is not matched again alone.
import data from "./lexicon.json" with { type: "json" };
import { stem, words } from "./tokenize.js";

interface Group { reason: string; words: string[] }

/** Each group as lists of stemmed terms (one list per member; phrases have several). */
const GROUPS: string[][][] = (data.groups as Group[]).map((g) => g.words.map((w) => words(w).map(stem)).filter((m) => m.length > 0));

/** First term of a member → the members starting with it, longest first, and their groups. */
const BY_FIRST = new Map<string, { member: string[]; group: number }[]>();
GROUPS.forEach((members, group) => {
  for (const member of members) {
    const list = BY_FIRST.get(member[0]!) ?? [];
    list.push({ member, group });
    BY_FIRST.set(member[0]!, list);
  }
});
for (const list of BY_FIRST.values()) list.sort((a, b) => b.member.length - a.member.length);

/**
 * The terms the lexicon adds for a query's stemmed words, each with the span of query positions
 * [from, to) of the word or phrase it stands for, and whether it comes from a phrase member
 * ("merge" of "merge request"); the query's own terms are left out.
 */
export function expansions(stems: readonly string[]): { term: string; from: number; to: number; fromPhrase: boolean }[] {
  const own = new Set(stems);
  const out = new Map<string, { from: number; to: number; fromPhrase: boolean }>();
  for (let i = 0; i < stems.length; ) {
    let used = 1;
    const groups = new Set<number>();
    for (const { member, group } of BY_FIRST.get(stems[i]!) ?? []) {
      if (member.length < used) break; // longest first: once a phrase matched, shorter ones starting here are its prefixes
      if (member.every((t, k) => stems[i + k] === t)) {
        used = member.length;
        groups.add(group);
      }
    }
    for (const g of groups) {
      for (const member of GROUPS[g]!) for (const t of member) if (!own.has(t) && !out.has(t)) out.set(t, { from: i, to: i + used, fromPhrase: member.length > 1 });
    }
    i += used;
  }
  return [...out].map(([term, span]) => ({ term, ...span }));
}
