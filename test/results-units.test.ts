// glue/results/ in process, where the existing suites (results.test.ts, secret-redaction.test.ts)
// leave a mutant standing: the byte cap's own bound checked before any work (cap.ts), and UTF-8
// lengths and slices at the edges of each encoding width (utf8.ts).
import { describe, expect, it } from "vitest";
import { capText } from "../glue/results/cap.js";
import type { OwnedStash } from "../glue/results/stash.js";
import { sliceUtf8, utf8Length } from "../glue/results/utf8.js";

const stash = (): OwnedStash => ({ put: async () => "r1" }) as unknown as OwnedStash;

describe("the byte cap on a direct result", () => {
  it("a cap that is not a whole number of bytes ≥ 0 is refused before anything is measured or stashed", async () => {
    for (const cap of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      await expect(capText("text", cap, stash())).rejects.toThrow(new RangeError(`capBytes must be an integer >= 0, got ${cap}`));
    }
  });

  it("a cap of 0 shows nothing and stashes the whole text", async () => {
    const kept: string[] = [];
    const out = await capText("héllo", 0, { put: async (t: string) => { kept.push(t); return "r0"; } } as unknown as OwnedStash);
    expect(out).toEqual({ text: "", truncated: true, resultId: "r0", totalBytes: 6, shownBytes: 0 });
    expect(kept).toEqual(["héllo"]);
  });
});

describe("UTF-8 as it goes over the wire", () => {
  it("each character's length at the edge of its width: U+007F 1, U+0080 2, U+07FF 2, U+0800 3, a pair 4, a lone surrogate 3 (U+FFFD)", () => {
    for (const [s, n] of [["\u007F", 1], ["\u0080", 2], ["\u07FF", 2], ["\u0800", 3], ["\uFFFF", 3], ["\u{1F600}", 4], ["\uD800", 3], ["\uDC00", 3], ["\uD800x", 4], ["\uDC00\uD800", 6]] as const) {
      expect(utf8Length(s)).toBe(n);
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
    }
  });

  it("a slice takes as many whole characters as fit", () => {
    expect(sliceUtf8("abc", 0, 2)).toEqual({ text: "ab", start: 0, end: 2 });
    expect(sliceUtf8("aé", 0, 2)).toEqual({ text: "a", start: 0, end: 1 });
    expect(sliceUtf8("éa", 1, 5)).toEqual({ text: "a", start: 2, end: 3 });
    expect(sliceUtf8("\u{1F600}b", 0, 1)).toEqual({ text: "\u{1F600}", start: 0, end: 4 });
  });

  it("an offset or a size out of range is refused, naming which", () => {
    expect(() => sliceUtf8("abc", -1, 1)).toThrow(new RangeError("offset must be an integer >= 0, got -1"));
    expect(() => sliceUtf8("abc", 0, 0)).toThrow(new RangeError("maxBytes must be an integer >= 1, got 0"));
    expect(() => sliceUtf8("abc", 0.5, 1)).toThrow(RangeError);
  });
});
