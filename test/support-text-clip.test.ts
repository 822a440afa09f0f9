// The one place texts are shortened: never over the limit, never half a surrogate pair, a word
// break preferred for descriptions, and the true length stated when a run's text is cut.
import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { clip, clipAtWord, cutText } from "../glue/support/text/clip.js";
import { clampEcho } from "../glue/support/errors.js";
import { core } from "../glue/decisions/core.js";
import { Budget } from "../glue/decisions/generated/spec.js";

const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe("text clipping", () => {
  it("clip keeps short texts, never exceeds the limit and never splits a surrogate pair", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), fc.integer({ min: 1, max: 60 }), (s, max) => {
      const c = clip(s, max);
      return c.length <= Math.max(max, 1) && wellFormed(c) && (s.length <= max ? c === s : c.endsWith("…"));
    }));
    expect(clip("ab😀cd", 4)).toBe("ab…");
  });

  it("clipAtWord backs off to a word break when it loses little, and cuts one huge word mid-word", () => {
    expect(clipAtWord("list every open incident in the service desk", 20)).toBe("list every open…");
    expect(clipAtWord("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("cutText states the true length", () => {
    expect(cutText("abcdef", 3)).toBe("abc… [cut: 6 characters]");
    expect(cutText("abc", 3)).toBe("abc");
  });

  it("an echoed text is clamped to echo_clamp_chars without splitting a character", () => {
    const max = core().limitDefault(Budget.echo_clamp_chars);
    const e = clampEcho("a".repeat(max - 2) + "😀😀😀");
    expect(e.length).toBeLessThanOrEqual(max);
    expect(wellFormed(e)).toBe(true);
  });
});
