// The byte cap on direct results: small texts pass, large ones become a first page
// plus a stash id. The stash keeps the WHOLE text, so get_result offsets are offsets
// into the full result; the caller continues at `shownBytes`.
import type { OwnedStash } from "./stash.js";
import { sliceUtf8, utf8Length } from "./utf8.js";

export type CappedText =
  | { text: string; truncated: false }
  | { text: string; truncated: true; resultId?: string; totalBytes: number; shownBytes: number };

export async function capText(text: string, capBytes: number, stash: OwnedStash): Promise<CappedText> {
  if (!(Number.isSafeInteger(capBytes) && capBytes >= 0)) throw new RangeError(`capBytes must be an integer >= 0, got ${capBytes}`);
  const totalBytes = utf8Length(text);
  if (totalBytes <= capBytes) return { text, truncated: false };
  // sliceUtf8 returns one whole character even past maxBytes; the cap is strict here.
  const page = capBytes > 0 ? sliceUtf8(text, 0, capBytes) : { text: "", end: 0 };
  const shown = page.end <= capBytes ? page : { text: "", end: 0 };
  // A store that fails keeps nothing: the first page still goes back (a write is never run twice for a stash).
  const resultId = await stash.put(text).catch(() => undefined);
  return {
    text: shown.text,
    truncated: true,
    ...(resultId === undefined ? {} : { resultId }),
    totalBytes,
    shownBytes: shown.end,
  };
}
