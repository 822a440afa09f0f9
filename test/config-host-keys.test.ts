// A config copied from another host loads: per-server keys that other hosts write for themselves
// (Cline's autoApprove and timeout, Roo Code's alwaysAllow, VS Code's envFile, …) are warnings
// naming the host that writes them and what atrium reads instead, never fatal; a misspelling of
// atrium's own keys stays an error with its did-you-mean. The real CLI loads a Cline settings file.
import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, demoServer } from "./harness/atrium-client.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-host-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const doctor = (config: unknown) => {
  const p = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, JSON.stringify(config));
  return { file: p, ...spawnSync(process.execPath, [atriumBin, "doctor", "--config", p], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "" }, encoding: "utf8", timeout: 60_000 }) };
};

/** Cline's cline_mcp_settings.json, as Cline writes it. */
const cline = {
  mcpServers: {
    desk: { command: process.execPath, args: [demoServer], env: {}, autoApprove: ["list_incidents"], disabled: false, timeout: 60, type: "stdio", transportType: "stdio" },
  },
};

describe("keys other hosts write in a server entry", () => {
  it("a config copied from Cline loads: doctor runs the connector, one warning per Cline key naming Cline, exit 0", () => {
    const r = doctor(cline);
    expect(r.stdout, r.stdout + r.stderr).toMatch(/^ok   desk /m);
    const warnings = r.stdout.split("\n").filter((l) => l.startsWith("warning: "));
    expect(warnings).toHaveLength(3);
    expect(warnings.find((l) => l.includes("mcpServers.desk.autoApprove"))).toMatch(/Cline/);
    expect(warnings.find((l) => l.includes("mcpServers.desk.autoApprove"))).toContain("readOnlyTools");
    expect(warnings.find((l) => l.includes("mcpServers.desk.timeout"))).toMatch(/Cline.*timeoutMs/);
    expect(warnings.find((l) => l.includes("mcpServers.desk.transportType"))).toMatch(/Cline/);
    expect(r.status).toBe(0);
  });

  it("a misspelling of atrium's own key in the same entry stays an error with its did-you-mean", () => {
    const r = doctor({ mcpServers: { desk: { ...cline.mcpServers.desk, readOnlyTool: ["list_incidents"] } } });
    expect(r.stderr).toMatch(/^error: .*mcpServers\.desk\.readOnlyTool: unknown key; did you mean "readOnlyTools"\?/m);
    expect(r.stdout).toBe("");
    expect(r.status).toBe(1);
  });

  it.each([
    ["alwaysAllow", ["x"], /Roo Code/],
    ["disabledTools", ["x"], /Roo Code|Windsurf/],
    ["watchPaths", ["x"], /Roo Code/],
    ["envFile", "${workspaceFolder}/.env", /VS Code/],
    ["dev", { watch: "src/**" }, /VS Code/],
    ["gallery", true, /VS Code/],
    ["version", "1.0.0", /VS Code/],
    ["serverUrl", "https://example.com/mcp", /Windsurf.*"url"/],
    ["httpUrl", "https://example.com/mcp", /Gemini CLI.*"url"/],
    ["trust", true, /Gemini CLI/],
    ["includeTools", ["x"], /Gemini CLI/],
    ["excludeTools", ["x"], /Gemini CLI/],
    ["description", "my server", /Gemini CLI/],
    ["enabled", true, /Goose.*"disabled"/],
  ])("%s is a warning naming the host that writes it", (key, value, host) => {
    const r = validateConfig({ mcpServers: { s: { command: "x", [key]: value } } }, core());
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const w = r.warnings.find((x) => x.path === `mcpServers.s.${key}`);
    expect(w?.message).toMatch(host);
    expect(w?.message).toMatch(/not read by atrium|atrium does not read/);
  });

  it("Cline's and Roo Code's spellings of a Streamable HTTP type are read as http", () => {
    for (const type of ["streamableHttp", "streamable-http", "http"]) {
      const r = validateConfig({ mcpServers: { s: { url: "https://example.com/mcp", type } } }, core());
      expect(r.ok, `${type}: ${JSON.stringify(r)}`).toBe(true);
    }
  });

  it("a key no host writes, far from every atrium key, is still an error", () => {
    const r = validateConfig({ mcpServers: { s: { command: "x", frobnicate: 1 } } }, core());
    expect(r.ok).toBe(false);
  });
});
