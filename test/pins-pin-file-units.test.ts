// The pin file (glue/pins/pin-file.ts), in process: the connector key is the id and the sha256 of
// where it runs with package versions left out (a URL, a text that is not a JSON list of strings,
// as it is); the record under the exact key comes before one found by id; where a connector runs;
// an empty set with or without its unreadable mark; a missing file reads as empty and writes
// nothing; a set too large for the file is refused unwritten; a file that cannot be used is
// set aside under its time, or, when it cannot be moved, said so; parsePins refuses every field
// of the wrong type.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectorKey, emptyPins, parsePins, PinFile, recordFor, whereOf, type PinData } from "../glue/pins/pin-file.js";
import { pinOf } from "../glue/pins/digest.js";
import { PIN_FILE_BYTES_MAX } from "../glue/decisions/generated/spec.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "atrium-pin-file-"));
  dirs.push(d);
  return d;
}
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe("the key of a connector", () => {
  it("is its id and the sha256 of where it runs; a URL or a text that is not a JSON list of strings as it is", () => {
    expect(connectorKey({ id: "a", where: "https://x.example/mcp" })).toBe(`a:${sha("https://x.example/mcp")}`);
    expect(connectorKey({ id: "a", where: "[not json" })).toBe(`a:${sha("[not json")}`);
    expect(connectorKey({ id: "a", where: '[1,"pkg@1.0.0"]' })).toBe(`a:${sha('[1,"pkg@1.0.0"]')}`);
    expect(connectorKey({ id: "a", where: '["pkg@1.0.0",2]' })).toBe(`a:${sha('["pkg@1.0.0",2]')}`);
    expect(connectorKey({ id: "a", where: '{"0":"pkg@1.0.0"}' })).toBe(`a:${sha('{"0":"pkg@1.0.0"}')}`);
    // Only a text that starts with "[" is read as a command line (whereOf writes none with a space before it).
    expect(connectorKey({ id: "a", where: ' ["npx","pkg@1.0.0"]' })).toBe(`a:${sha(' ["npx","pkg@1.0.0"]')}`);
  });

  it("a command line is keyed as its canonical JSON with each package's version dropped", () => {
    expect(connectorKey({ id: "a", where: '[ "npx", "-y", "pkg@1.0.0" ]' })).toBe(`a:${sha('["npx","-y","pkg"]')}`);
    expect(connectorKey({ id: "a", where: '["uvx","mcp-git==0.6.2","@s/p@latest"]' })).toBe(`a:${sha('["uvx","mcp-git","@s/p"]')}`);
  });
});

describe("finding a connector's record", () => {
  it("the record under its exact key first, else one with its id whose where keys the same", () => {
    const where = JSON.stringify(["npx", "pkg@2.0.0"]);
    const key = connectorKey({ id: "c", where });
    const old = { key: "c:old", id: "c", where: JSON.stringify(["npx", "pkg@1.0.0"]), tools: [] };
    const exact = { key, id: "c", where, tools: [] };
    const data: PinData = { ...emptyPins(), connectors: [old, exact] };
    expect(recordFor(data, { id: "c", where })).toBe(exact);
    expect(recordFor({ ...emptyPins(), connectors: [old] }, { id: "c", where })).toBe(old);
    expect(recordFor({ ...emptyPins(), connectors: [{ ...old, where: JSON.stringify(["npx", "other@1.0.0"]) }] }, { id: "c", where })).toBeUndefined();
    // Another connector run from the same place is not this one's record.
    expect(recordFor({ ...emptyPins(), connectors: [{ ...old, id: "d" }] }, { id: "c", where })).toBeUndefined();
  });
});

describe("where a connector runs, and an empty set", () => {
  it("a command line as JSON, a URL as it is", () => {
    expect(whereOf({ kind: "stdio", command: "node", args: ["a.js", "--x"] })).toBe('["node","a.js","--x"]');
    expect(whereOf({ kind: "http", url: "https://x.example/mcp" })).toBe("https://x.example/mcp");
  });

  it("an empty set carries the unreadable mark only when given one", () => {
    expect(emptyPins()).toEqual({ format: "atrium-pins", version: 1, connectors: [] });
    expect("unreadableSince" in emptyPins("")).toBe(false);
    expect(emptyPins("2026-01-01T00:00:00.000Z")).toEqual({ format: "atrium-pins", version: 1, unreadableSince: "2026-01-01T00:00:00.000Z", connectors: [] });
  });
});

describe("the file", () => {
  it("is pins.json in its directory; none yet reads as an empty set, with no warning and nothing written", () => {
    const dir = join(tempDir(), "state");
    const warned: string[] = [];
    const f = new PinFile(dir, (l) => warned.push(l));
    expect(f.path).toBe(join(dir, "pins.json"));
    expect(f.where).toBe(f.path);
    expect(f.load()).toEqual(emptyPins());
    expect(warned).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it("a set over PIN_FILE_BYTES_MAX is refused and the file left as it was", () => {
    const dir = join(tempDir(), "state");
    const f = new PinFile(dir);
    f.save(emptyPins());
    const big = { ...emptyPins(), connectors: [{ key: "k", id: "c", where: "x".repeat(PIN_FILE_BYTES_MAX), tools: [] }] };
    expect(() => f.save(big)).toThrow(`the pins would take more than ${PIN_FILE_BYTES_MAX} bytes; ${f.path} was not written`);
    expect(f.load()).toEqual(emptyPins());
  });

  it("a set of exactly PIN_FILE_BYTES_MAX bytes is written and read back", () => {
    const dir = join(tempDir(), "state");
    const f = new PinFile(dir);
    const at = (n: number) => ({ ...emptyPins(), connectors: [{ key: "k", id: "c", where: "x".repeat(n), tools: [] }] });
    const base = Buffer.byteLength(JSON.stringify(at(0), null, 1));
    const full = at(PIN_FILE_BYTES_MAX - base);
    expect(Buffer.byteLength(JSON.stringify(full, null, 1))).toBe(PIN_FILE_BYTES_MAX);
    f.save(full);
    expect(f.load()).toEqual(full);
  });

  it("without a warn function the warning goes to stderr; a link's warning names what atrium holds there and the remedy", () => {
    const dir = join(tempDir(), "state");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const other = join(dir, "elsewhere.json");
    writeFileSync(other, "{}");
    symlinkSync(other, join(dir, "pins.json"));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => { written.push(String(chunk)); return true; });
    try {
      new PinFile(dir).load();
    } finally {
      spy.mockRestore();
    }
    expect(written).toHaveLength(1);
    expect(written[0]).toContain(`(${join(dir, "pins.json")} is a symbolic link; atrium reads pins only from a regular file of its own (remove it; atrium pins the tools again, quarantined))`);
    expect(written[0]!.endsWith("(atrium pins).\n")).toBe(true);
  });

  it("a file set aside is named after the time of the new set's mark, and the warning says where it went", () => {
    const dir = join(tempDir(), "state");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "pins.json"), "{", { mode: 0o600 });
    const warned: string[] = [];
    const f = new PinFile(dir, (l) => warned.push(l));
    const data = f.load();
    const aside = `${f.path}.bad-${data.unreadableSince!.replace(/[:.]/g, "-")}`;
    expect(readdirSync(dir).sort()).toEqual(["pins.json", aside.slice(dir.length + 1)].sort());
    expect(warned).toEqual([`atrium: the pin file ${f.path} could not be used (it is not an atrium pin file (corrupt or foreign)); it was set aside as ${aside}. Every tool without an accepted pin is quarantined until the operator accepts it (atrium pins).`]);
  });

  it("a file that cannot be read or moved (its directory is a file): said so, and the mark is kept in memory", () => {
    const notDir = join(tempDir(), "state");
    writeFileSync(notDir, "");
    const warned: string[] = [];
    const f = new PinFile(notDir, (l) => warned.push(l));
    const data = f.load();
    expect(data.unreadableSince).toBeTypeOf("string");
    expect(data.connectors).toEqual([]);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(new RegExp(`^atrium: the pin file ${f.path.replace(/[.]/g, "\\.")} could not be used \\(.*ENOTDIR.*\\); it could not be moved aside\\. Every tool`));
  });

  it("watch calls back when the file changes", async () => {
    const dir = join(tempDir(), "state");
    const f = new PinFile(dir);
    f.save(emptyPins());
    const changed = new Promise<void>((resolve) => f.watch(resolve));
    // Written again until the watch has noticed (its first look at the file may come after a first write).
    const writing = setInterval(() => f.save({ ...emptyPins(), connectors: [{ key: "k", id: "c", where: "w", tools: [] }] }), 100);
    await changed;
    clearInterval(writing);
    expect(f.load().connectors).toHaveLength(1);
  });
});

describe("reading a pin file's text", () => {
  const accepted = pinOf({ name: "t", description: "d", inputSchema: {}, annotations: {} });
  const pending = { ...accepted, state: "changed", flags: [], firstSeen: "2026-01-01T00:00:00.000Z" };
  const good = { format: "atrium-pins", version: 1, unreadableSince: "2026-01-01T00:00:00.000Z", connectors: [{ key: "k", id: "c", where: "w", tools: [{ name: "t", accepted, pending, rejected: "abc" }, { name: "u" }] }] };
  const withTool = (t: Record<string, unknown>) => JSON.stringify({ ...good, connectors: [{ ...good.connectors[0], tools: [t] }] });
  const withConnector = (c: Record<string, unknown>) => JSON.stringify({ ...good, connectors: [c] });

  it("a well-formed file is read as it is, every optional field with it", () => {
    expect(parsePins(JSON.stringify(good))).toEqual(good);
    for (const state of ["changed", "new_tool", "suspicious", "store_unreadable"]) expect(parsePins(withTool({ name: "t", pending: { ...pending, state } }))).toBeDefined();
  });

  it("refuses a document that is not an object of this format and version, with connectors a list", () => {
    for (const text of ["[]", "null", '"x"', JSON.stringify({ ...good, format: "other" }), JSON.stringify({ ...good, version: "1" }), JSON.stringify({ ...good, connectors: {} }), JSON.stringify({ ...good, unreadableSince: 5 })]) {
      expect(parsePins(text)).toBeUndefined();
    }
  });

  it("refuses a connector with a field missing or of the wrong type", () => {
    const c = good.connectors[0]!;
    for (const bad of [{ ...c, key: 1 }, { ...c, id: null }, { ...c, where: [] }, { ...c, tools: {} }, { ...c, tools: ["t"] }]) {
      expect(parsePins(withConnector(bad))).toBeUndefined();
    }
    expect(parsePins(JSON.stringify({ ...good, connectors: [c, "x"] }))).toBeUndefined();
  });

  it("refuses a tool with a malformed name, accepted pin, pending change or rejected digest", () => {
    const def = accepted.definition;
    for (const bad of [
      { name: 1 },
      { name: "t", accepted: "x" },
      { name: "t", accepted: { ...accepted, digest: 1 } },
      { name: "t", accepted: { ...accepted, bodyDigest: 1 } },
      { name: "t", accepted: { ...accepted, definition: "d" } },
      { name: "t", accepted: { ...accepted, definition: { ...def, description: 1 } } },
      { name: "t", accepted: { ...accepted, definition: { ...def, inputKeys: "a" } } },
      { name: "t", accepted: { ...accepted, definition: { ...def, outputKeys: "a" } } },
      { name: "t", accepted: { ...accepted, definition: { ...def, annotations: {} } } },
      { name: "t", pending: accepted },
      { name: "t", pending: { ...pending, state: "matches" } },
      { name: "t", pending: { ...pending, state: 1 } },
      { name: "t", pending: { ...pending, flags: "none" } },
      { name: "t", pending: { ...pending, firstSeen: 0 } },
      { name: "t", pending: { ...pending, digest: 0 } },
      { name: "t", rejected: 1 },
    ]) {
      expect(parsePins(withTool(bad))).toBeUndefined();
    }
  });
});
