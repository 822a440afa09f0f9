// glue/results/ in process, where the existing suites (results.test.ts, secret-redaction.test.ts)
// leave a mutant standing: the byte cap's own bound checked before any work (cap.ts).
import { describe, expect, it } from "vitest";
import { capText } from "../glue/results/cap.js";
import type { OwnedStash } from "../glue/results/stash.js";

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
