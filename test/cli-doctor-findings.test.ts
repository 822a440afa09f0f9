// What `atrium doctor` reports beyond health, observed with real servers: a quarantined tool is a
// problem (exit 1) with the command that reviews it; a server that fails the same way at each
// start shows its stderr line once, with a count, and the cause first ("exited with code 3"),
// the protocol probe in plain words after it.
import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, fixture } from "./harness/atrium-client.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-doctor-findings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const doctor = (config: unknown, state = join(dir, "state")) => {
  const p = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, JSON.stringify(config));
  return spawnSync(process.execPath, [atriumBin, "doctor", "--config", p], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "", ATRIUM_STATE_DIR: state }, encoding: "utf8", timeout: 60_000 });
};

describe("atrium doctor findings", () => {
  it("a connector whose tools are quarantined is a problem: warn, the quarantined tools, `atrium pins`, exit 1", () => {
    const defs = join(dir, "defs.json");
    const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" }, annotations: { readOnlyHint: true } });
    writeFileSync(defs, JSON.stringify([tool("lookup", "Looks up a word."), tool("stats", "Counts the words.")]));
    const config = { mcpServers: { dict: { command: process.execPath, args: [fixture("pins-server"), defs] } } };
    const state = join(dir, "state-quarantine");
    const first = doctor(config, state);
    expect(first.status, first.stdout).toBe(0); // first sight: pinned, trusted
    writeFileSync(defs, JSON.stringify([tool("lookup", "Looks up a word, then its synonyms."), tool("stats", "Counts the words and letters.")]));
    const r = doctor(config, state);
    expect(r.stdout).toMatch(/^warn dict /m);
    expect(r.stdout).toMatch(/quarantined, no path runs them: lookup, stats/);
    expect(r.stdout).toContain("atrium pins");
    expect(r.stdout).not.toContain("all connectors healthy");
    expect(r.stdout).toMatch(/1 connector\(s\) with quarantined tools: review with `atrium pins`/);
    expect(r.status).toBe(1);
  });

  it("a server that exits with code 3 at every start: the cause first, the probe in plain words, its stderr line once with a count", () => {
    const script = join(dir, "exit3.mjs");
    writeFileSync(script, `process.stderr.write("Error: MEMORY_FILE_PATH is not set\\n"); process.exit(3);\n`);
    const r = doctor({ mcpServers: { bad: { command: process.execPath, args: [script] } } });
    expect(r.status).toBe(1);
    const lines = r.stdout.split("\n");
    const problem = lines[lines.findIndex((l) => l.startsWith("FAIL bad ")) + 1];
    expect(problem).toMatch(/^ {5}failed to start: the process exited with code 3/);
    expect(problem).not.toContain("probe");
    expect(lines.filter((l) => l.includes("MEMORY_FILE_PATH is not set"))).toHaveLength(1);
    expect(r.stdout).toMatch(/Error: MEMORY_FILE_PATH is not set {2}\(× [2-9]\d*\)/);
  });
});

describe("a pinned connector whose package version changed in the config", () => {
  it("is the same connector: its tools are judged against the old pins, a changed one quarantined, an unchanged one trusted", () => {
    const defs = join(dir, "versioned-defs.json");
    const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" }, annotations: { readOnlyHint: true } });
    // The fixture ignores its third argument: it stands for the package a host config names (`npx -y pkg@1.0.0`).
    const config = (version: string) => ({ mcpServers: { dict: { command: process.execPath, args: [fixture("pins-server"), defs, `dict-mcp@${version}`] } } });
    const state = join(dir, "state-version");
    writeFileSync(defs, JSON.stringify([tool("lookup", "Looks up a word."), tool("stats", "Counts the words.")]));
    expect(doctor(config("1.0.0"), state).status).toBe(0);
    writeFileSync(defs, JSON.stringify([tool("lookup", "Looks up a word, then sends it to a server."), tool("stats", "Counts the words.")]));
    const r = doctor(config("1.1.0"), state);
    expect(r.stdout).toMatch(/^warn dict /m);
    expect(r.stdout).toMatch(/quarantined, no path runs them: lookup;/);
    expect(r.stdout).not.toMatch(/quarantined, no path runs them: .*stats/);
    expect(r.status).toBe(1);
  });
});
