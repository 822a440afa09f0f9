// The ways a text is shortened to a limit, in one place: `clip` (at most `max` characters,
// ending in "…", never splitting a surrogate pair), `clipAtWord` (the same, preferring a word
// break: one-line descriptions) and `cutText` (the first `max` characters and a marker giving
// the true length: texts that leave a program run; the prelude applies the same rule in the
// guest). All are linear in the part they keep.
import { CLIP_WORD_KEEP_SHARE } from "../../decisions/generated/spec.js";
import { HIGH_SURROGATE, SURROGATE_MASK } from "../encoding.js";

/** At most `max` UTF-16 units, ending in "…" when cut; a surrogate pair is never split. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = Math.max(0, max - 1);
  if (cut > 0 && (s.charCodeAt(cut - 1) & SURROGATE_MASK) === HIGH_SURROGATE) cut--;
  return `${s.slice(0, cut)}…`;
}

/** Like `clip`, but backs off to a word break when that loses little (one huge word is cut mid-word). */
export function clipAtWord(s: string, max: number): string {
  const cut = clip(s, max);
  if (cut === s) return s;
  const body = cut.slice(0, -1);
  const space = body.lastIndexOf(" ");
  return `${(space >= Math.floor(max * CLIP_WORD_KEEP_SHARE) ? body.slice(0, space) : body).trimEnd()}…`;
}

/** The first `max` characters and a marker with the true length (`marker` words it for its reader). */
export const cutText = (s: string, max: number, marker: (chars: number) => string = (chars) => `… [cut: ${chars} characters]`): string =>
  s.length <= max ? s : `${s.slice(0, max)}${marker(s.length)}`;
