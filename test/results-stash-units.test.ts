// The in-memory result stash (glue/results/stash.ts), in process with a fake clock: its bounds
// refused with their values named, a text of exactly maxBytes kept, eviction that stops as soon
// as the new text fits, expiry at exactly ttlMs from the put (swept on put and get, oldest first),
// and one owner's view through `for`.
import { describe, expect, it } from "vitest";
import { ResultStash } from "../glue/results/stash.js";

const clock = (start = 0) => {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

describe("the stash's bounds", () => {
  it("a TTL that is not a finite number > 0 is refused, naming it", () => {
    for (const ttlMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new ResultStash({ ttlMs, maxBytes: 1 })).toThrow(new RangeError(`ttlMs must be > 0, got ${ttlMs}`));
    }
    expect(new ResultStash({ ttlMs: 0.5, maxBytes: 1 }).size).toBe(0);
  });

  it("a maxBytes that is not a whole number ≥ 0 is refused, naming it; 0 is a stash that keeps nothing", () => {
    for (const maxBytes of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => new ResultStash({ ttlMs: 1, maxBytes })).toThrow(new RangeError(`maxBytes must be an integer >= 0, got ${maxBytes}`));
    }
    const none = new ResultStash({ ttlMs: 1, maxBytes: 0 });
    expect(none.put("local", "x")).toBeUndefined();
    expect(none.put("local", "")).toBeTypeOf("string");
  });

  it("a text of exactly maxBytes is kept, alone", () => {
    const s = new ResultStash({ ttlMs: 60_000, maxBytes: 4 });
    s.put("local", "ab");
    const id = s.put("local", "😀")!;
    expect(s.get("local", id)).toBe("😀");
    expect(s.size).toBe(1);
    expect(s.bytes).toBe(4);
  });

  it("eviction drops the oldest texts only until the new one fits", () => {
    const s = new ResultStash({ ttlMs: 60_000, maxBytes: 6 });
    const a = s.put("local", "aa")!;
    const b = s.put("local", "bb")!;
    const c = s.put("local", "cc")!;
    const d = s.put("local", "dd")!; // 6 + 2 > 6: only "aa" goes
    expect([a, b, c, d].map((id) => s.get("local", id))).toEqual([undefined, "bb", "cc", "dd"]);
    expect(s.bytes).toBe(6);
    const e = s.put("local", "eeee")!; // needs 4: "bb" and "cc" go
    expect([b, c, d, e].map((id) => s.get("local", id))).toEqual([undefined, undefined, "dd", "eeee"]);
    expect(s.size).toBe(2);
  });
});

describe("expiry", () => {
  it("a text lives ttlMs from its put: swept on get and on put, bytes given back", () => {
    const c = clock(100);
    const s = new ResultStash({ ttlMs: 1000, maxBytes: 100, now: c.now });
    const a = s.put("local", "aaa")!;
    c.advance(500);
    const b = s.put("local", "bb")!;
    c.advance(499);
    expect(s.get("local", a)).toBe("aaa");
    c.advance(1); // a's 1000 ms are up, b's are not
    expect(s.get("local", b)).toBe("bb");
    expect(s.size).toBe(1);
    expect(s.bytes).toBe(2);
    c.advance(500);
    s.put("local", "c");
    expect(s.size).toBe(1);
    expect(s.bytes).toBe(1);
  });

  it("an entry past its time behind a live one (the clock stepped back) is dropped when asked for", () => {
    const c = clock(1000);
    const s = new ResultStash({ ttlMs: 1000, maxBytes: 100, now: c.now });
    s.put("local", "a"); // until 2000
    c.advance(-1000);
    const b = s.put("local", "bb")!; // until 1000
    c.advance(1000);
    expect(s.get("local", b)).toBeUndefined();
    expect(s.size).toBe(1);
    expect(s.bytes).toBe(1);
  });
});

describe("one owner's view", () => {
  it("puts and gets as that owner only", async () => {
    const s = new ResultStash({ ttlMs: 60_000, maxBytes: 100 });
    const mine = s.for("p:a");
    const id = (await mine.put("rows"))!;
    expect(await mine.get(id)).toBe("rows");
    expect(s.get("p:a", id)).toBe("rows");
    expect(s.get("p:b", id)).toBeUndefined();
    expect(await s.for("p:b").get(id)).toBeUndefined();
    expect(await mine.put("x".repeat(101))).toBeUndefined();
  });
});
