// "Did you mean": the real names closest to a mistyped one, for every hint that offers names
// (doctor's operator lists, a call's unknown tool or connector). Names only, never unbounded text.
import { editDistance } from "./edit-distance.js";
import {
  NAME_SUGGESTIONS_MAX, SUGGEST_CONTAINS_CHARS_MIN, SUGGEST_LONG_NAME_EDITS, SUGGEST_MEDIUM_NAME_CHARS, SUGGEST_MEDIUM_NAME_EDITS,
  SUGGEST_SHORT_NAME_CHARS, SUGGEST_SHORT_NAME_EDITS,
} from "../../decisions/generated/spec.js";

/**
 * The real names closest to a mistyped one (case-insensitive): those at the smallest edit
 * distance within reach (a few edits, fewer for short names), else those containing it or
 * contained in it; at most `max`, in the given order.
 */
export function nearestNames(name: string, names: readonly string[], max = NAME_SUGGESTIONS_MAX): string[] {
  const want = name.toLowerCase();
  const reach = want.length <= SUGGEST_SHORT_NAME_CHARS ? SUGGEST_SHORT_NAME_EDITS : want.length <= SUGGEST_MEDIUM_NAME_CHARS ? SUGGEST_MEDIUM_NAME_EDITS : SUGGEST_LONG_NAME_EDITS;
  // A name whose length is out of reach is never within reach: not measured (the distance is quadratic).
  const scored = names.filter((n) => Math.abs(n.length - want.length) <= reach).map((n) => ({ n, d: editDistance(want, n.toLowerCase()) })).filter((x) => x.d <= reach);
  const best = Math.min(...scored.map((x) => x.d));
  const close = scored.filter((x) => x.d === best).map((x) => x.n);
  const containing = want.length >= SUGGEST_CONTAINS_CHARS_MIN ? names.filter((n) => n.toLowerCase().includes(want) || want.includes(n.toLowerCase())) : [];
  return (close.length ? close : containing).slice(0, max);
}
