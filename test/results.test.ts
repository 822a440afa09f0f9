import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { sliceUtf8, utf8Length } from "../glue/results/utf8.js";
import { projectFields, ProjectionError } from "../glue/results/project.js";
import { unwrapToolResult } from "../glue/results/unwrap.js";
import { ResultStash } from "../glue/results/stash.js";
import { capText } from "../glue/results/cap.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
/** What a text becomes on the wire: lone surrogates turn into U+FFFD. */
const wire = (s: string) => dec.decode(enc.encode(s));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// Any code point, plus lone surrogates (fast-check's "binary" unit never makes those).
const unicodeText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 60,
});

/** Every page of `text`, continuing each call at the previous end. */
function pages(text: string, sizes: number[]) {
  const out = [];
  let offset = 0;
  for (let i = 0; ; i++) {
    const page = sliceUtf8(text, offset, sizes[i % sizes.length]!);
    if (page.start === page.end) break;
    out.push(page);
    offset = page.end;
  }
  return out;
}

describe("utf8Length", () => {
  it("counts 1-, 2-, 3- and 4-byte characters", () => {
    expect(utf8Length("")).toBe(0);
    expect(utf8Length("a")).toBe(1);
    expect(utf8Length("é")).toBe(2);
    expect(utf8Length("€")).toBe(3);
    expect(utf8Length("😀")).toBe(4);
  });

  it("counts a lone surrogate as the 3 bytes of U+FFFD, like TextEncoder", () => {
    expect(utf8Length("\ud83d")).toBe(3);
    expect(utf8Length("a\ude00b")).toBe(5);
  });

  it("agrees with TextEncoder on arbitrary strings", () => {
    fc.assert(fc.property(unicodeText, (s) => utf8Length(s) === enc.encode(s).length));
  });
});

describe("sliceUtf8", () => {
  it("moves an end that falls inside a character back to its start", () => {
    expect(sliceUtf8("a😀b", 0, 3)).toEqual({ text: "a", start: 0, end: 1 });
  });

  it("moves a start that falls inside a character forward to the next boundary", () => {
    expect(sliceUtf8("a😀b", 2, 10)).toEqual({ text: "b", start: 5, end: 6 });
  });

  it("returns one whole character when maxBytes is smaller than it, so paging progresses", () => {
    expect(sliceUtf8("😀😀", 0, 1)).toEqual({ text: "😀", start: 0, end: 4 });
    expect(sliceUtf8("😀😀", 4, 3)).toEqual({ text: "😀", start: 4, end: 8 });
  });

  it("gives an empty slice at the end for an offset at or past the end", () => {
    expect(sliceUtf8("héllo", 6, 4)).toEqual({ text: "", start: 6, end: 6 });
    expect(sliceUtf8("héllo", 100, 4)).toEqual({ text: "", start: 6, end: 6 });
  });

  it("refuses negative or fractional offsets and a maxBytes below 1", () => {
    expect(() => sliceUtf8("x", -1, 4)).toThrow(RangeError);
    expect(() => sliceUtf8("x", 0.5, 4)).toThrow(RangeError);
    expect(() => sliceUtf8("x", 0, 0)).toThrow(RangeError);
  });

  it("pages a lone surrogate as U+FFFD", () => {
    expect(pages("a\ud800b", [1]).map((p) => p.text)).toEqual(["a", "\ufffd", "b"]);
  });

  it("pages reassemble byte-exactly to decode(encode(text)) for any text and page sizes", () => {
    fc.assert(
      fc.property(unicodeText, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), (text, sizes) => {
        const ps = pages(text, sizes);
        const bytes = enc.encode(text);
        expect(ps.map((p) => p.text).join("")).toBe(wire(text));
        let expectedStart = 0;
        ps.forEach((p, i) => {
          expect(p.start).toBe(expectedStart);
          // Each page is exactly its byte range, and never over size unless it is one character.
          expect(enc.encode(p.text)).toEqual(bytes.subarray(p.start, p.end));
          const size = sizes[i % sizes.length]!;
          if (p.end - p.start > size) expect([...p.text]).toHaveLength(1);
          expectedStart = p.end;
        });
        expect(expectedStart).toBe(bytes.length);
      }),
    );
  });

  it("never splits a character from an arbitrary (even mid-character) offset", () => {
    fc.assert(
      fc.property(unicodeText, fc.nat(300), fc.integer({ min: 1, max: 12 }), (text, offset, max) => {
        const bytes = enc.encode(text);
        const p = sliceUtf8(text, offset, max);
        expect(p.start).toBeGreaterThanOrEqual(Math.min(offset, bytes.length));
        expect(p.start - Math.min(offset, bytes.length)).toBeLessThan(4);
        expect(enc.encode(p.text)).toEqual(bytes.subarray(p.start, p.end));
      }),
    );
  });
});

describe("projectFields", () => {
  const incidents = {
    total: 2,
    incidents: [
      { id: "i1", title: "db down", service: { name: "db", owner: "ops" } },
      { id: "i2", title: "slow", service: { owner: "web" } },
    ],
  };

  it("keeps only the listed top-level keys", () => {
    expect(projectFields({ a: 1, b: 2, c: 3 }, ["a", "c"])).toEqual({ a: 1, c: 3 });
  });

  it("keeps nested dot paths in the original shape", () => {
    expect(projectFields({ a: { b: { c: 1, d: 2 }, e: 3 } }, ["a.b.c"])).toEqual({ a: { b: { c: 1 } } });
  });

  it("maps [] over arrays and merges several paths into the same elements", () => {
    expect(projectFields(incidents, ["incidents[].id", "incidents[].service.name", "total"])).toEqual({
      incidents: [
        { id: "i1", service: { name: "db" } },
        { id: "i2", service: {} },
      ],
      total: 2,
    });
  });

  it("maps [] at the root over a top-level array", () => {
    expect(projectFields([{ id: 1, x: 1 }, { id: 2, x: 2 }], ["[].id"])).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("leaves missing paths absent without an error", () => {
    expect(projectFields(incidents, ["nope", "total.deeper", "incidents.id"])).toEqual({});
  });

  it("keeps array positions, with null for an element that is not an object", () => {
    expect(projectFields({ xs: [{ id: 1 }, 7, null, { other: 1 }] }, ["xs[].id"])).toEqual({ xs: [{ id: 1 }, null, null, {}] });
  });

  it("gives undefined when the value has no place for any path", () => {
    expect(projectFields("text", ["a"])).toBeUndefined();
    expect(projectFields({ a: 1 }, ["[].a"])).toBeUndefined();
  });

  it("keeps the whole subtree when a path and a deeper path overlap", () => {
    const v = { a: { b: 1, c: 2 } };
    expect(projectFields(v, ["a.b", "a"])).toEqual(v);
    expect(projectFields(v, ["a", "a.b"])).toEqual(v);
  });

  it("supports nested arrays with repeated []", () => {
    expect(projectFields({ m: [[{ v: 1, w: 0 }], [{ v: 2 }]] }, ["m[][].v"])).toEqual({ m: [[{ v: 1 }], [{ v: 2 }]] });
  });

  it("returns the value unchanged for an empty list of paths", () => {
    expect(projectFields(incidents, [])).toBe(incidents);
  });

  it("does not mutate its input", () => {
    const v = structuredClone(incidents);
    projectFields(v, ["incidents[].id"]);
    expect(v).toEqual(incidents);
  });

  it("reads only own properties, never inherited ones", () => {
    expect(projectFields({}, ["toString", "hasOwnProperty"])).toEqual({});
  });

  it("skips __proto__, constructor and prototype segments as missing and pollutes nothing", () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}, "ok": 1}') as unknown;
    const out = projectFields(v, ["__proto__.polluted", "__proto__", "constructor", "a.prototype", "ok"]) as Record<string, unknown>;
    expect(out).toEqual({ ok: 1 });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["ok"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ["an empty path", ""],
    ["an empty segment", "a..b"],
    ["a leading dot", ".a"],
    ["a trailing dot", "a."],
    ["an index", "a[0]"],
    ["a stray bracket", "a]b"],
    ["a bracket in the middle of a name", "a[]b"],
    ["a path over 256 characters", "a".repeat(257)],
    ["more than 16 segments", Array(17).fill("a").join(".")],
  ])("throws ProjectionError naming the path for %s", (_, path) => {
    const err = (() => {
      try {
        projectFields({}, ["ok", path]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ProjectionError);
    expect((err as ProjectionError).path).toBe(path);
  });

  it("throws ProjectionError for a path that is not a string", () => {
    expect(() => projectFields({}, [42 as unknown as string])).toThrow(ProjectionError);
  });

  it("validates a forbidden path's syntax too", () => {
    expect(() => projectFields({}, ["__proto__..x"])).toThrow(ProjectionError);
  });

  it("accepts a path of exactly 256 characters and 16 segments", () => {
    expect(projectFields({}, ["a".repeat(256), Array(16).fill("a").join(".")])).toEqual({});
  });

  it("accepts 64 paths and refuses 65", () => {
    const paths = Array.from({ length: 65 }, (_, i) => `k${i}`);
    expect(projectFields({ k0: 0 }, paths.slice(0, 64))).toEqual({ k0: 0 });
    expect(() => projectFields({}, paths)).toThrow(ProjectionError);
  });

  it("clamps a long offending path in the error message", () => {
    const path = "x".repeat(300);
    try {
      projectFields({}, [path]);
      expect.fail("expected a ProjectionError");
    } catch (e) {
      expect((e as Error).message.length).toBeLessThan(200);
    }
  });
});

describe("unwrapToolResult", () => {
  const text = (t: unknown) => ({ type: "text", text: t });

  it("turns isError into a failure carrying the joined text", () => {
    expect(unwrapToolResult({ isError: true, content: [text("bad"), text("input")] })).toEqual({ ok: false, error: { message: "bad\ninput" } });
  });

  it("clamps a long error message to 2,000 characters", () => {
    const r = unwrapToolResult({ isError: true, content: [text("e".repeat(5000))] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.message).toHaveLength(2000);
      expect(r.error.message.endsWith("…")).toBe(true);
    }
  });

  it("gives a failure without text a generic message", () => {
    const r = unwrapToolResult({ isError: true, content: [{ type: "image", data: "AA", mimeType: "image/png" }] });
    expect(r).toEqual({ ok: false, error: { message: expect.stringMatching(/error/) } });
  });

  it("prefers structuredContent over the text content", () => {
    expect(unwrapToolResult({ structuredContent: { n: 1 }, content: [text('{"n":2}')] })).toEqual({ ok: true, data: { n: 1 } });
  });

  it("parses a single JSON text block", () => {
    expect(unwrapToolResult({ content: [text('{"items":[1,2]}')] })).toEqual({ ok: true, data: { items: [1, 2] } });
  });

  it("returns a single non-JSON text block as its text", () => {
    expect(unwrapToolResult({ content: [text("hello {")] })).toEqual({ ok: true, data: "hello {" });
  });

  it("joins several text blocks without parsing them", () => {
    expect(unwrapToolResult({ content: [text("[1"), text("2]")] })).toEqual({ ok: true, data: "[1\n2]" });
  });

  it("returns non-text content (images, mixed) as the content array", () => {
    const content = [text("a chart:"), { type: "image", data: "AA", mimeType: "image/png" }];
    expect(unwrapToolResult({ content })).toEqual({ ok: true, data: content });
  });

  it("reads no content at all as an empty text", () => {
    expect(unwrapToolResult({ content: [] })).toEqual({ ok: true, data: "" });
    expect(unwrapToolResult({})).toEqual({ ok: true, data: "" });
  });

  it("tolerates malformed content: typeless blocks, bare strings, non-string text", () => {
    expect(unwrapToolResult({ content: [{ text: "plain" }] })).toEqual({ ok: true, data: "plain" });
    expect(unwrapToolResult({ content: "bare" as unknown as unknown[] })).toEqual({ ok: true, data: "bare" });
    expect(unwrapToolResult({ content: [text(1), text(true)] })).toEqual({ ok: true, data: "1\ntrue" });
    expect(unwrapToolResult({ content: [text({ x: 1 })] })).toEqual({ ok: true, data: [text({ x: 1 })] });
    expect(unwrapToolResult({ content: 5 as unknown as unknown[] })).toEqual({ ok: true, data: 5 });
    expect(unwrapToolResult({ content: [null, 3] })).toEqual({ ok: true, data: [null, 3] });
  });

  it("never throws, whatever a downstream server sends", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (content, structuredContent, isError) => {
        unwrapToolResult({ content, structuredContent, isError } as Parameters<typeof unwrapToolResult>[0]);
        unwrapToolResult({ content: [content, text(content)] });
      }),
    );
  });
});

describe("ResultStash", () => {
  const clock = (start = 0) => {
    let t = start;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it("returns an unguessable id and gives the text back", () => {
    const s = new ResultStash({ ttlMs: 60_000, maxBytes: 100 });
    const a = s.put("local", "alpha")!;
    const b = s.put("local", "beta")!;
    expect(a).toMatch(UUID);
    expect(b).not.toBe(a);
    expect(s.get("local", a)).toBe("alpha");
    expect(s.get("local", b)).toBe("beta");
    expect(s.get("local", "00000000-0000-4000-8000-000000000000")).toBeUndefined();
    expect(s.get("local", "__proto__")).toBeUndefined();
  });

  it("forgets a text once its TTL has passed", () => {
    const c = clock();
    const s = new ResultStash({ ttlMs: 1000, maxBytes: 100, now: c.now });
    const id = s.put("local", "x")!;
    c.advance(999);
    expect(s.get("local", id)).toBe("x");
    c.advance(1);
    expect(s.get("local", id)).toBeUndefined();
    expect(s.size).toBe(0);
    expect(s.bytes).toBe(0);
  });

  it("expires a text even if the clock stepped back between puts", () => {
    const c = clock(1000);
    const s = new ResultStash({ ttlMs: 1000, maxBytes: 100, now: c.now });
    const a = s.put("local", "a")!; // expires at 2000
    c.advance(-1000);
    const b = s.put("local", "b")!; // expires at 1000, behind a newer-looking entry
    c.advance(1500);
    expect(s.get("local", b)).toBeUndefined();
    expect(s.get("local", a)).toBe("a");
  });

  it("drops expired texts when a new one is put", () => {
    const c = clock();
    const s = new ResultStash({ ttlMs: 1000, maxBytes: 100, now: c.now });
    s.put("local", "old");
    c.advance(1500);
    s.put("local", "new");
    expect(s.size).toBe(1);
    expect(s.bytes).toBe(3);
  });

  it("counts UTF-8 bytes and evicts the oldest texts to stay within maxBytes", () => {
    const s = new ResultStash({ ttlMs: 60_000, maxBytes: 10 });
    const a = s.put("local", "😀")!; // 4 bytes
    const b = s.put("local", "ééé")!; // 6 bytes
    expect(s.bytes).toBe(10);
    const c = s.put("local", "xyz")!; // needs 3 more: evicts the emoji only
    expect(s.get("local", a)).toBeUndefined();
    expect(s.get("local", b)).toBe("ééé");
    expect(s.get("local", c)).toBe("xyz");
    expect(s.bytes).toBe(9);
  });

  it("refuses a text larger than maxBytes and keeps what it holds", () => {
    const s = new ResultStash({ ttlMs: 60_000, maxBytes: 4 });
    const a = s.put("local", "abcd")!;
    expect(s.put("local", "😀x")).toBeUndefined();
    expect(s.get("local", a)).toBe("abcd");
  });

  it("rejects a non-positive TTL or a negative maxBytes", () => {
    expect(() => new ResultStash({ ttlMs: 0, maxBytes: 1 })).toThrow(RangeError);
    expect(() => new ResultStash({ ttlMs: 1, maxBytes: -1 })).toThrow(RangeError);
  });
});

describe("ResultStash owners (team mode: nothing one person leaves is visible to another)", async () => {
  it("another owner's get of an id answers as an id never issued, and the owner still reads it", async () => {
    const s = new ResultStash({ ttlMs: 60_000, maxBytes: 100 });
    const id = (await s.for("p:alice").put("alice's rows"))!;
    expect(await s.for("p:bob").get(id)).toBeUndefined();
    expect(await s.for("p:bob").get(id)).toBe(await s.for("p:bob").get("00000000-0000-4000-8000-000000000000"));
    expect(await s.for("local").get(id)).toBeUndefined();
    expect(await s.for("p:alice").get(id)).toBe("alice's rows");
  });
});

describe("capText", async () => {
  const stash = () => new ResultStash({ ttlMs: 60_000, maxBytes: 1_000_000 }).for("local");

  it("passes a text at or under the cap through untouched", async () => {
    const s = stash();
    expect(await capText("héllo", 6, s)).toEqual({ text: "héllo", truncated: false });
    expect(await s.get("00000000-0000-4000-8000-000000000000")).toBeUndefined();
  });

  it("cuts an oversized text to a UTF-8-safe first page and stashes the whole text", async () => {
    const s = stash();
    const text = "ab😀cd😀ef";
    const r = await capText(text, 5, s);
    expect(r).toEqual({ text: "ab", truncated: true, resultId: expect.stringMatching(UUID), totalBytes: 14, shownBytes: 2 });
    if (!r.truncated) return;
    const full = (await s.get(r.resultId!))!;
    expect(full).toBe(text);
    // Continuing at shownBytes pages the rest exactly.
    let rest = "";
    for (let offset = r.shownBytes; offset < r.totalBytes; ) {
      const page = sliceUtf8(full, offset, 5);
      rest += page.text;
      offset = page.end;
    }
    expect(r.text + rest).toBe(text);
  });

  it("shows nothing rather than exceed a cap smaller than the first character", async () => {
    const r = await capText("😀😀", 3, stash());
    expect(r).toMatchObject({ text: "", truncated: true, shownBytes: 0, totalBytes: 8 });
    expect(await capText("ab", 0, stash())).toMatchObject({ text: "", truncated: true, shownBytes: 0 });
  });

  it("omits resultId when the stash refuses the text", async () => {
    const r = await capText("x".repeat(50), 10, new ResultStash({ ttlMs: 60_000, maxBytes: 20 }).for("local"));
    expect(r).toEqual({ text: "x".repeat(10), truncated: true, totalBytes: 50, shownBytes: 10 });
    expect("resultId" in r).toBe(false);
  });

  it("never shows more than the cap, and the shown page is a prefix of the text", async () => {
    await fc.assert(
      fc.asyncProperty(unicodeText, fc.integer({ min: 0, max: 20 }), async (text, cap) => {
        const r = await capText(text, cap, stash());
        if (!r.truncated) {
          expect(r.text).toBe(text);
          return;
        }
        expect(r.shownBytes).toBeLessThanOrEqual(cap);
        expect(utf8Length(r.text)).toBe(r.shownBytes);
        expect(wire(text).startsWith(r.text)).toBe(true);
      }),
    );
  });
});
