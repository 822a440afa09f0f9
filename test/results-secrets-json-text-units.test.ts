// A JSON document as the secret scan reads and rewrites it (glue/results/secrets/json-text.ts), in
// process: only a text that is a JSON object or array is read as one; without a backslash it is
// read as it is; each escaped string token is read decoded, with where it sits in the document and
// in the reading; escaped quotes (an odd run of backslashes) do not end a token; a rewrite replaces
// only the values the redaction names (by their span in the reading, shifted past decoded tokens)
// and never a field's name, and gives undefined when it replaces nothing.
import { describe, expect, it } from "vitest";
import { readJson, rewriteJson } from "../glue/results/secrets/json-text.js";

describe("reading a JSON text", () => {
  it("only an object or array that parses is read as JSON", () => {
    for (const t of ["x{}", '"a"', "12", "[1", "{", "", "null", '"[a]"', '"{\\/}"']) expect(readJson(t)).toBeUndefined();
    expect(readJson(' \n{"a":1}')).toEqual({ text: ' \n{"a":1}', decoded: [] });
    expect(readJson("[1]")).toEqual({ text: "[1]", decoded: [] });
  });

  it("each token with an escape is read decoded, with its place in the document and in the reading", () => {
    const doc = String.raw`{"a":"x\/y","b":"plain","c\u0041":"q\"r"}`;
    const r = readJson(doc)!;
    expect(r.text).toBe('{"a":"x/y","b":"plain","cA":"q"r"}');
    expect(r.decoded).toEqual([
      { from: 5, to: 11, at: 5, length: 5 },
      { from: 24, to: 33, at: 23, length: 4 },
      { from: 34, to: 40, at: 28, length: 5 },
    ]);
    for (const d of r.decoded) expect(r.text.slice(d.at, d.at + d.length)).toBe(`"${JSON.parse(doc.slice(d.from, d.to)) as string}"`);
  });

  it("an even run of backslashes before a quote ends the token; an odd run does not", () => {
    const doc = String.raw`["a\\", "b\\\"c", "d"]`;
    const r = readJson(doc)!;
    expect(r.text).toBe(String.raw`["a\", "b\"c", "d"]`);
    expect(r.decoded.map((d) => doc.slice(d.from, d.to))).toEqual([String.raw`"a\\"`, String.raw`"b\\\"c"`]);
  });

  it("tokens after the last escape are copied as they are", () => {
    const doc = String.raw`["\n", "x", "y"]`;
    expect(readJson(doc)).toEqual({ text: '["\n", "x", "y"]', decoded: [{ from: 1, to: 5, at: 1, length: 3 }] });
  });
});

describe("rewriting a JSON text", () => {
  const upper = (reading: string) => (start: number, end: number) => {
    const s = reading.slice(start, end);
    return s.startsWith("s") ? s.toUpperCase() : undefined;
  };

  it("replaces only the values the redaction names, by the JSON of their new text; names never", () => {
    const doc = '{"s1": "sa", "k": "other", "arr": ["sb", 2]}';
    const r = readJson(doc)!;
    const spans: string[] = [];
    const out = rewriteJson(doc, r, (a, b) => { spans.push(r.text.slice(a, b)); return upper(r.text)(a, b); });
    expect(out).toBe('{"s1": "SA", "k": "other", "arr": ["SB", 2]}');
    expect(spans).toEqual(["sa", "other", "sb"]);
  });

  it("nothing replaced: undefined", () => {
    const doc = '{"a": "x"}';
    expect(rewriteJson(doc, readJson(doc)!, () => undefined)).toBeUndefined();
  });

  it("spans are read in the decoded reading, shifted past each decoded token", () => {
    const doc = String.raw`{"a\u0062": "x\/y", "c": "s\"t", "d": "sz"}`;
    const r = readJson(doc)!;
    expect(r.text).toBe('{"ab": "x/y", "c": "s"t", "d": "sz"}');
    const spans: string[] = [];
    const out = rewriteJson(doc, r, (a, b) => { spans.push(r.text.slice(a, b)); return upper(r.text)(a, b); });
    expect(spans).toEqual(["x/y", 's"t', "sz"]);
    expect(out).toBe(String.raw`{"a\u0062": "x\/y", "c": "S\"T", "d": "SZ"}`);
    expect(JSON.parse(out!)).toEqual({ ab: "x/y", c: 'S"T', d: "SZ" });
  });

  it("a name is known by the colon after it, past any JSON white space", () => {
    const doc = '{"sname" \t\r\n : "sval"}';
    expect(rewriteJson(doc, readJson(doc)!, upper(doc))).toBe('{"sname" \t\r\n : "SVAL"}');
  });
});
