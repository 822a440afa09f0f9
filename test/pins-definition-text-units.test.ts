// The text the suspicious-pattern screen reads (glue/pins/definition-text.ts): title, description,
// then every key (as itself and as words) and string of the input schema, output schema and
// annotations in that order, depth first, one per line; numbers, booleans and null are not text;
// at most PIN_SCREEN_CHARS_MAX characters, cut exactly at the bound, nothing read past it, and the
// cut reported as `over`.
import { describe, expect, it } from "vitest";
import { definitionText } from "../glue/pins/definition-text.js";
import { PIN_SCREEN_CHARS_MAX } from "../glue/decisions/generated/spec.js";

const MAX = PIN_SCREEN_CHARS_MAX;

describe("the screened text of a definition", () => {
  it("reads title, description, then input schema, output schema, annotations, each key before its value, arrays in order", () => {
    const d = definitionText({
      title: "T",
      description: "D",
      inputSchema: { type: "object", minimum: 3, nullable: null, flag: true, properties: { fileName: { type: "string", enum: ["a", "b"] } } },
      outputSchema: { x: "o" },
      annotations: { title: "ann" },
    });
    expect(d.text.split("\n")).toEqual([
      "T", "D",
      "type", "type", "minimum", "minimum", "nullable", "nullable", "flag", "flag", "properties", "properties",
      "object",
      "fileName", "file name",
      "type", "type", "enum", "enum", "string", "a", "b",
      "x", "x", "o",
      "title", "title", "ann",
    ]);
    expect(d.names).toEqual(["type", "minimum", "nullable", "flag", "properties", "file name", "type", "enum", "x", "title"]);
    expect(d.over).toBe(false);
  });

  it("gives each key as lower-case words: camelCase humps, runs of _ - . become one space, trimmed", () => {
    const names = (key: string) => definitionText({ description: "", inputSchema: { [key]: 1 } }).names;
    expect(names("content_from_reading-ssh.id_rsa")).toEqual(["content from reading ssh id rsa"]);
    expect(names("readFileNow")).toEqual(["read file now"]);
    expect(names("a1B")).toEqual(["a1 b"]);
    expect(names("a__-.b")).toEqual(["a b"]);
    expect(names("_a_")).toEqual(["a"]);
    expect(names("ABC")).toEqual(["abc"]);
  });

  it("an absent title is an empty first line; a text that fills the bound exactly is whole and not over", () => {
    const description = "d".repeat(MAX - 1); // "" + "\n" + description: exactly MAX characters
    const d = definitionText({ description, inputSchema: undefined });
    expect(d).toEqual({ text: `\n${description}`, names: [], over: false });
  });

  it("past the bound: the text is cut to exactly PIN_SCREEN_CHARS_MAX characters and marked over", () => {
    const d = definitionText({ description: "d".repeat(MAX), inputSchema: {} });
    expect(d.over).toBe(true);
    expect(d.text).toBe(`\n${"d".repeat(MAX - 1)}`);
    expect(d.text.length).toBe(MAX);
  });

  it("a text after one that filled the bound exactly adds nothing but its line, and is over", () => {
    const description = "d".repeat(MAX - 1);
    const d = definitionText({ description, inputSchema: { abc: "value" } });
    expect(d).toEqual({ text: `\n${description}\n`, names: [], over: true });
  });

  it("a title past the bound: nothing else is read", () => {
    const d = definitionText({ title: "t".repeat(MAX + 1), description: "never read", inputSchema: { k: "v" } });
    expect(d).toEqual({ text: "t".repeat(MAX), names: [], over: true });
  });

  it("a description past the bound: no schema is read", () => {
    const d = definitionText({ title: "T", description: "d".repeat(MAX), inputSchema: { k: "v" } });
    expect(d.text).toBe(`T\n${"d".repeat(MAX - 2)}`);
    expect(d.names).toEqual([]);
  });

  it("a key that does not fit stops the reading: it is not a name, and no later key or value is read", () => {
    const head = "d".repeat(MAX - 20);
    const d = definitionText({ description: head, inputSchema: { aa: "x", ["k".repeat(30)]: "y", zz: "z" } });
    expect(d.over).toBe(true);
    expect(d.names).toEqual(["aa"]);
    expect(d.text.length).toBe(MAX);
    expect(d.text).toBe(`\n${head}\naa\naa\n${"k".repeat(MAX - (1 + head.length + 1 + 3 + 3))}`);
  });

  it("a key whose words do not fit stops the reading too", () => {
    const head = "d".repeat(MAX - 12);
    // "" + head + "abcDef" fits (1 + MAX-12 + 7 = MAX-4); its words "abc def" (7) do not.
    const d = definitionText({ description: head, inputSchema: { abcDef: "value", more: "x" } });
    expect(d.over).toBe(true);
    expect(d.names).toEqual([]);
    expect(d.text).toBe(`\n${head}\nabcDef\nabc`);
  });

  it("a string value that does not fit stops the reading", () => {
    const head = "d".repeat(MAX - 10);
    const d = definitionText({ description: head, inputSchema: ["aaaa", "b".repeat(20), "c"] });
    expect(d).toEqual({ text: `\n${head}\naaaa\n${"b".repeat(MAX - (1 + head.length + 1 + 5))}`, names: [], over: true });
  });
});
