// A pending change in words (glue/pins/diff.ts), in process: for the operator, each line of
// diffLines (a first-seen tool whole; a title, the changed middle of a description with its
// context, keys added and removed, nested leaves changed, added and removed, hint flips with
// their direction, other annotations, and the line for a change atrium does not show); for the
// model, each part of changeSummary (never the downstream's own text).
import { describe, expect, it } from "vitest";
import { pinOf, type PinnableTool, type PinnedDefinition } from "../glue/pins/digest.js";
import { changeSummary, diffLines } from "../glue/pins/diff.js";
import { PIN_DIFF_CONTEXT_CHARS, PIN_DIFF_TEXT_CHARS } from "../glue/decisions/generated/spec.js";

const tool = (over: Partial<PinnableTool> = {}): PinnableTool => ({ name: "lookup", description: "Looks up.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true }, ...over });
const def = (over: Partial<PinnableTool> = {}) => pinOf(tool(over)).definition;
const NOT_SHOWN = "a part of the schemas atrium does not show changed (the digest differs)";

describe("the lines of a first-seen tool", () => {
  it("title, description, input keys and both hints", () => {
    expect(diffLines(undefined, def({ title: "L", inputSchema: { properties: { b: {}, a: {} } }, annotations: { readOnlyHint: true, destructiveHint: false } }))).toEqual([
      'title: "L"',
      'description: "Looks up."',
      "input: a, b",
      "readOnlyHint: true, destructiveHint: false",
    ]);
  });

  it("without a title or input keys those lines are left out; an absent hint reads absent, a long one is clamped", () => {
    expect(diffLines(undefined, def({ annotations: { destructiveHint: "y".repeat(100) } }))).toEqual([
      'description: "Looks up."',
      `readOnlyHint: absent, destructiveHint: "${"y".repeat(PIN_DIFF_CONTEXT_CHARS - 2)}…`,
    ]);
  });

  it("a description is clamped to PIN_DIFF_TEXT_CHARS", () => {
    const [line] = diffLines(undefined, def({ description: "z".repeat(PIN_DIFF_TEXT_CHARS + 10) }));
    expect(line).toBe(`description: "${"z".repeat(PIN_DIFF_TEXT_CHARS - 1)}…"`);
  });

  it("a hint JSON cannot write is shown as its String", () => {
    const d = { ...def(), readOnlyHint: Symbol.for("odd") } as PinnedDefinition;
    expect(diffLines(undefined, d).at(-1)).toBe("readOnlyHint: Symbol(odd), destructiveHint: absent");
  });
});

describe("the lines of a change", () => {
  it("a title added, changed or removed", () => {
    expect(diffLines(def(), def({ title: "New" }))).toEqual(['title: "" → "New"']);
    expect(diffLines(def({ title: "Old" }), def())).toEqual(['title: "Old" → ""']);
    expect(diffLines(def({ title: "Old" }), def({ title: "New" }))).toEqual(['title: "Old" → "New"']);
  });

  it("the changed middle of a description: no lead mark when the change is at the start, the common end left out", () => {
    expect(diffLines(def({ description: "abc tail" }), def({ description: "xbc tail" }))).toEqual(['description: - "a"', '             + "x"']);
    expect(diffLines(def({ description: "short" }), def({ description: "shorter" }))).toEqual(['description: - "short"', '             + "shorter"']);
    expect(diffLines(def({ description: "a" }), def({ description: "" }))).toEqual(['description: - "a"', '             + ""']);
  });

  it("a context of exactly PIN_DIFF_CONTEXT_CHARS has no lead mark; one more character has", () => {
    const head = "h".repeat(PIN_DIFF_CONTEXT_CHARS);
    expect(diffLines(def({ description: `${head}A` }), def({ description: `${head}B` }))).toEqual([`description: - "${head}A"`, `             + "${head}B"`]);
    expect(diffLines(def({ description: `x${head}A` }), def({ description: `x${head}B` }))).toEqual([`description: - "…${head}A"`, `             + "…${head}B"`]);
  });

  it("a repeated character at the join is counted once: the change is not taken from both ends", () => {
    expect(diffLines(def({ description: "aa" }), def({ description: "aaa" }))).toEqual(['description: - "aa"', '             + "aaa"']);
    expect(diffLines(def({ description: "xaay" }), def({ description: "xay" }))).toEqual(['description: - "xaa"', '             + "xa"']);
  });

  it("input and output schema keys: added first, then removed", () => {
    const was = def({ inputSchema: { properties: { a: {}, b: {} } }, outputSchema: { properties: { o: {} } } });
    const now = def({ inputSchema: { properties: { b: {}, c: {}, d: {} } }, outputSchema: { properties: {} } });
    const lines = diffLines(was, now);
    expect(lines.slice(0, 2)).toEqual(["input schema: +c +d -a", "output schema: -o"]);
  });

  it("a leaf changed, added and removed, on the side it is on", () => {
    const was = def({ inputSchema: { a: "1", b: "2" } });
    const now = def({ inputSchema: { a: "1", b: "3", c: "4" } });
    expect(diffLines(was, now)).toEqual(['input schema b: "2" → "3"', 'input schema +c: "4"']);
    expect(diffLines(now, was)).toEqual(['input schema b: "3" → "2"', 'input schema -c: "4"']);
    expect(diffLines(def({ outputSchema: { a: 1 } }), def({ outputSchema: { a: 2 } }))).toEqual(["output schema a: 1 → 2"]);
    // The same path on the other side is another leaf.
    expect(diffLines(def({ inputSchema: undefined, outputSchema: { a: 1 } }), def({ inputSchema: { a: 1 }, outputSchema: undefined }))).toEqual(["input schema +a: 1", "output schema -a: 1"]);
  });

  it("a pin kept before leaves were kept shows no leaf lines", () => {
    const was = { ...def({ inputSchema: { a: 1 } }), schemaLeaves: undefined };
    expect(diffLines(was, def({ inputSchema: { a: 2 } }))).toEqual([NOT_SHOWN]);
    expect(diffLines(def({ inputSchema: { a: 1 } }), { ...def({ inputSchema: { a: 2 } }), schemaLeaves: undefined })).toEqual([NOT_SHOWN]);
  });

  it("hint flips with their direction: toward may write, toward read-only, both ways, or none named", () => {
    const a = (x: unknown) => def({ annotations: x });
    expect(diffLines(a({ readOnlyHint: true }), a({ readOnlyHint: false }))).toEqual(["annotations: readOnlyHint true → false (toward may write: approval-only at once)"]);
    expect(diffLines(a({ readOnlyHint: false }), a({ readOnlyHint: true }))).toEqual(["annotations: readOnlyHint false → true (toward read-only)"]);
    expect(diffLines(a({ readOnlyHint: true, destructiveHint: true }), a({ readOnlyHint: false, destructiveHint: false }))).toEqual(["annotations: readOnlyHint true → false, destructiveHint true → false (both ways)"]);
    expect(diffLines(a({ destructiveHint: true }), a({}))).toEqual(["annotations: destructiveHint true → absent"]);
  });

  it("another annotation changed: both texts, clamped", () => {
    const a = (x: unknown) => def({ annotations: x });
    expect(diffLines(a({ title: "a" }), a({ title: "b" }))).toEqual(['annotations: {"title":"a"} → {"title":"b"}']);
    const long = diffLines(a({ title: "q".repeat(PIN_DIFF_TEXT_CHARS) }), a({ title: "r" }))[0]!;
    expect(long).toBe(`annotations: ${`{"title":"${"q".repeat(PIN_DIFF_TEXT_CHARS)}`.slice(0, PIN_DIFF_TEXT_CHARS - 1)}… → {"title":"r"}`);
  });

  it("nothing atrium shows changed: one line says so", () => {
    expect(diffLines(def(), def())).toEqual([NOT_SHOWN]);
  });
});

describe("the change as the model is told it", () => {
  it("a tool without an accepted definition, and its flags", () => {
    expect(changeSummary(undefined, def(), [])).toBe("no accepted definition");
    expect(changeSummary(undefined, def(), [{ id: "a", reason: "r1" }, { id: "b", reason: "r2" }])).toBe("no accepted definition; flagged: r1; flagged: r2");
  });

  it("each part that changed, in atrium's words", () => {
    const was = def({ title: "A", description: "one", inputSchema: { properties: { a: {}, b: {} } }, outputSchema: { properties: { o: {} } }, annotations: { readOnlyHint: true, destructiveHint: false } });
    const now = def({ title: "B", description: "two", inputSchema: { properties: { b: {}, c: {}, d: {} } }, outputSchema: { properties: { o: {}, p: {} } }, annotations: { readOnlyHint: false, destructiveHint: true } });
    expect(changeSummary(was, now, [{ id: "x", reason: "why" }])).toBe(
      "its title changed; its description changed; its input schema gained 2 key(s) and lost 1 key(s); its output schema gained 1 key(s); readOnlyHint true → false; destructiveHint false → true; flagged: why",
    );
    expect(changeSummary(now, was, [])).toContain("its input schema gained 1 key(s) and lost 2 key(s); its output schema lost 1 key(s)");
  });

  it("nested parts per side, unless that side's keys are already named", () => {
    expect(changeSummary(def({ outputSchema: { a: 1, b: 1 } }), def({ outputSchema: { a: 2, b: 2 } }), [])).toBe("its output schema changed in 2 nested part(s)");
    expect(changeSummary(def({ inputSchema: { properties: { a: {} } } }), def({ inputSchema: { properties: { b: {} } } }), [])).toBe("its input schema gained 1 key(s) and lost 1 key(s)");
    expect(changeSummary(def({ inputSchema: { properties: { a: {} } }, outputSchema: { x: 1 } }), def({ inputSchema: { properties: { b: {} } }, outputSchema: { x: 2 } }), [])).toBe("its input schema gained 1 key(s) and lost 1 key(s); its output schema changed in 1 nested part(s)");
  });

  it("only other annotations, or nothing shown: said so", () => {
    expect(changeSummary(def({ annotations: { title: "a" } }), def({ annotations: { title: "b" } }), [])).toBe("its annotations changed");
    expect(changeSummary(def(), def(), [])).toBe("its schemas changed");
  });
});
