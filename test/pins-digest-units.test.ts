// What a pin is made of (glue/pins/digest.ts), in process: the digest is the sha256 of the
// definition's canonical JSON and the body digest the same without annotations; the kept copy
// clamps title and description to PIN_PENDING_TEXT_CHARS, keeps the input and output keys sorted
// (at most PIN_SCHEMA_KEYS_MAX), the two hints only when listed, the annotations as canonical JSON
// ("null" when absent), and the schemas' leaves: depth first in sorted key order, paths with "."
// and "[i]", input before output, each clamped to PIN_SCHEMA_LEAF_CHARS, at most PIN_SCHEMA_LEAVES_MAX.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pinOf, type PinnableTool } from "../glue/pins/digest.js";
import { PIN_PENDING_TEXT_CHARS, PIN_SCHEMA_KEYS_MAX, PIN_SCHEMA_LEAF_CHARS, PIN_SCHEMA_LEAVES_MAX } from "../glue/decisions/generated/spec.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const tool = (over: Partial<PinnableTool> = {}): PinnableTool => ({ name: "lookup", description: "Looks up.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true }, ...over });

describe("the digests", () => {
  it("are the sha256 of the canonical JSON of the definition, and of the definition without its annotations", () => {
    const p = pinOf(tool({ title: "L", outputSchema: { b: 1, a: 2 } }));
    expect(p.bodyDigest).toBe(sha('{"description":"Looks up.","inputSchema":{"type":"object"},"name":"lookup","outputSchema":{"a":2,"b":1},"title":"L"}'));
    expect(p.digest).toBe(sha('{"annotations":{"readOnlyHint":true},"description":"Looks up.","inputSchema":{"type":"object"},"name":"lookup","outputSchema":{"a":2,"b":1},"title":"L"}'));
  });
});

describe("the kept copy of a definition", () => {
  it("keeps title, description, sorted input and output keys, the hints as listed and the annotations as canonical JSON", () => {
    const d = pinOf(tool({ title: "Lookup", inputSchema: { type: "object", properties: { b: {}, a: {} } }, outputSchema: { properties: { z: {}, y: {} } }, annotations: { title: "x", destructiveHint: false, readOnlyHint: "yes" } })).definition;
    expect(d).toMatchObject({ title: "Lookup", description: "Looks up.", inputKeys: ["a", "b"], outputKeys: ["y", "z"], readOnlyHint: "yes", destructiveHint: false, annotations: '{"destructiveHint":false,"readOnlyHint":"yes","title":"x"}' });
  });

  it("leaves out a title and hints that are not listed; absent annotations read \"null\"", () => {
    const d = pinOf(tool({ annotations: undefined })).definition;
    expect("title" in d).toBe(false);
    expect("readOnlyHint" in d).toBe(false);
    expect("destructiveHint" in d).toBe(false);
    expect(d.annotations).toBe("null");
    const onlyOne = pinOf(tool({ annotations: { destructiveHint: true } })).definition;
    expect("readOnlyHint" in onlyOne).toBe(false);
    expect(onlyOne.destructiveHint).toBe(true);
    expect("destructiveHint" in pinOf(tool({ annotations: ["readOnlyHint"] })).definition).toBe(false);
    // A hint listed as undefined is still listed.
    expect("readOnlyHint" in pinOf(tool({ annotations: { readOnlyHint: undefined } })).definition).toBe(true);
  });

  it("clamps the title, description and annotations to PIN_PENDING_TEXT_CHARS", () => {
    const long = "x".repeat(PIN_PENDING_TEXT_CHARS + 5);
    const d = pinOf(tool({ title: long, description: long, annotations: { t: long } })).definition;
    expect(d.title).toBe(`${"x".repeat(PIN_PENDING_TEXT_CHARS - 1)}…`);
    expect(d.description).toBe(d.title);
    expect(d.annotations.length).toBe(PIN_PENDING_TEXT_CHARS);
  });

  it("keeps schema keys only of an object's object properties, at most PIN_SCHEMA_KEYS_MAX, each clamped", () => {
    expect(pinOf(tool({ inputSchema: { properties: ["a"] } })).definition.inputKeys).toEqual([]);
    expect(pinOf(tool({ inputSchema: "a" })).definition.inputKeys).toEqual([]);
    expect(pinOf(tool({ inputSchema: { properties: null } })).definition.inputKeys).toEqual([]);
    const many = Object.fromEntries(Array.from({ length: PIN_SCHEMA_KEYS_MAX + 3 }, (_, i) => [`k${String(i).padStart(3, "0")}`, {}]));
    const keys = pinOf(tool({ inputSchema: { properties: many } })).definition.inputKeys;
    expect(keys).toHaveLength(PIN_SCHEMA_KEYS_MAX);
    expect(keys[0]).toBe("k000");
    expect(keys.at(-1)).toBe(`k${String(PIN_SCHEMA_KEYS_MAX - 1).padStart(3, "0")}`);
    const longKey = "k".repeat(PIN_PENDING_TEXT_CHARS + 1);
    expect(pinOf(tool({ inputSchema: { properties: { [longKey]: {} } } })).definition.inputKeys).toEqual([`${"k".repeat(PIN_PENDING_TEXT_CHARS - 1)}…`]);
  });
});

describe("the schema leaves", () => {
  it("are depth first in sorted key order, with dotted paths and [i] for array items, input before output", () => {
    const d = pinOf(tool({ inputSchema: { type: "object", properties: { b: { enum: ["x", 2] }, a: { type: "string" } } }, outputSchema: { type: "array" } })).definition;
    expect(d.schemaLeaves).toEqual([
      ["input", "properties.a.type", '"string"'],
      ["input", "properties.b.enum[0]", '"x"'],
      ["input", "properties.b.enum[1]", "2"],
      ["input", "type", '"object"'],
      ["output", "type", '"array"'],
    ]);
  });

  it("an empty object or array is a leaf; a schema that is a value is one leaf at the empty path; an absent schema has none", () => {
    expect(pinOf(tool({ inputSchema: { a: {}, b: [], c: null } })).definition.schemaLeaves).toEqual([["input", "a", "{}"], ["input", "b", "[]"], ["input", "c", "null"]]);
    expect(pinOf(tool({ inputSchema: true })).definition.schemaLeaves).toEqual([["input", "", "true"]]);
    expect(pinOf(tool({ inputSchema: undefined, outputSchema: undefined })).definition.schemaLeaves).toEqual([]);
    // A value JSON cannot write (an in-process listing) is kept as its String.
    expect(pinOf(tool({ inputSchema: { a: undefined } })).definition.schemaLeaves).toEqual([["input", "a", "undefined"]]);
  });

  it("each path and value is clamped to PIN_SCHEMA_LEAF_CHARS", () => {
    const k = "p".repeat(PIN_SCHEMA_LEAF_CHARS + 1);
    const [[, path, value]] = pinOf(tool({ inputSchema: { [k]: "v".repeat(PIN_SCHEMA_LEAF_CHARS) } })).definition.schemaLeaves!;
    expect(path).toBe(`${"p".repeat(PIN_SCHEMA_LEAF_CHARS - 1)}…`);
    expect(value).toBe(`"${"v".repeat(PIN_SCHEMA_LEAF_CHARS - 2)}…`);
  });

  it("at most PIN_SCHEMA_LEAVES_MAX in all: the input schema's first, the output schema's after them", () => {
    const wide = (n: number) => Array.from({ length: n }, (_, i) => i);
    const full = pinOf(tool({ inputSchema: wide(PIN_SCHEMA_LEAVES_MAX + 1), outputSchema: { type: "object" } })).definition.schemaLeaves!;
    expect(full).toHaveLength(PIN_SCHEMA_LEAVES_MAX);
    expect(full.at(-1)).toEqual(["input", `[${PIN_SCHEMA_LEAVES_MAX - 1}]`, String(PIN_SCHEMA_LEAVES_MAX - 1)]);
    const shared = pinOf(tool({ inputSchema: wide(PIN_SCHEMA_LEAVES_MAX - 1), outputSchema: { a: 1, b: 2 } })).definition.schemaLeaves!;
    expect(shared).toHaveLength(PIN_SCHEMA_LEAVES_MAX);
    expect(shared.at(-1)).toEqual(["output", "a", "1"]);
  });
});
