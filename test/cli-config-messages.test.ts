// Config problems as a person reads them: every error line starts "error: ", every warning line
// "warning: ", each exactly once, and nothing else (the doctor report, the summary) inherits a
// label. A host's own config (Claude Desktop's, with its other top-level keys) is the usual case.
import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, demoServer, nodeServer } from "./harness/atrium-client.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-cli-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (args: string[]) => spawnSync(process.execPath, [atriumBin, ...args], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "" }, input: "", encoding: "utf8", timeout: 30_000 });
const write = (name: string, value: unknown) => { const p = join(dir, name); writeFileSync(p, JSON.stringify(value)); return p; };
const lines = (s: string) => s.split("\n").filter(Boolean);

describe("config messages", () => {
  it("a host config's warnings are labelled once each, and the doctor report after them carries no label", () => {
    const cfg = write("claude_desktop_config.json", { globalShortcut: "Ctrl+Space", theme: "dark", mcpServers: { desk: nodeServer(demoServer) } });
    const r = run(["doctor", "--config", cfg]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/^atrium \d+\.\d+\.\d+ doctor$/);
    expect(out.filter((l) => l.startsWith("warning: "))).toEqual([
      `warning: ${cfg}: globalShortcut: unknown key, ignored (atrium reads only "mcpServers" and "atrium")`,
      `warning: ${cfg}: theme: unknown key, ignored (atrium reads only "mcpServers" and "atrium")`,
    ]);
    expect(r.stdout).not.toMatch(/warning: (warning: |atrium |ok |$)/m);
  });

  it("an invalid entry in a host config is printed as an error, not as a warning, and stops everything", () => {
    const cfg = write("host-bad.json", { globalShortcut: "Ctrl+Space", mcpServers: { desk: { command: "node", args: [1] } } });
    const r = run(["doctor", "--config", cfg]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(lines(r.stderr)).toEqual([
      `error: ${cfg}: mcpServers.desk.args[0]: expected a string, got number`,
      `warning: ${cfg}: globalShortcut: unknown key, ignored (atrium reads only "mcpServers" and "atrium")`,
      "atrium: the config has 1 error(s); nothing was started.",
    ]);
  });

  it("serve prints a host config's warnings on stderr, labelled once each, and keeps stdout for JSON-RPC", () => {
    const cfg = write("host-serve.json", { globalShortcut: "Ctrl+Space", mcpServers: { desk: nodeServer(demoServer) } });
    const r = run(["serve", "--config", cfg]);
    expect(r.stdout).toBe("");
    expect(lines(r.stderr)).toEqual([`warning: ${cfg}: globalShortcut: unknown key, ignored (atrium reads only "mcpServers" and "atrium")`]);
  });
});
