// The README's configs work as written: every `jsonc` block that holds an atrium.json (a
// top-level "mcpServers") is read and validated as atrium reads a config file, with no error and
// no warning. A key renamed or a bound moved in the code fails here, not on a reader's machine.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const blocks = [...readme.matchAll(/```jsonc\n([\s\S]*?)```/g)]
  .map((m) => m[1].split("\n").filter((l) => !/^\s*\/\//.test(l)).join("\n"))
  .filter((text) => /^\s*\{\s*"mcpServers"/.test(text));

describe("README: the configs it shows are valid as written", () => {
  it("finds the team-mode configs (loopback and with an issuer)", () => {
    expect(blocks.filter((b) => b.includes('"http"')).length).toBeGreaterThanOrEqual(2);
    expect(blocks.some((b) => b.includes('"auth"') && b.includes('"access"'))).toBe(true);
  });
  it("finds the data-flow guard's files + fetch config", () => {
    expect(blocks.some((b) => b.includes('"data": "private"') && b.includes('"egress": true'))).toBe(true);
  });
  it.each(blocks.map((b, i) => [i, b] as const))("block %i validates with no error or warning", (_i, text) => {
    const r = validateConfig(JSON.parse(text), core());
    expect(r.ok ? [] : r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });
});
