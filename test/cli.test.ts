// The atrium command line: version and help (on stdout, anywhere on the line), config lookup
// order, a bad config stops everything with messages naming the path, doctor explains
// failures on stdout, the terminal banner.
import { describe, it, expect, afterAll } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, repo, fixture, nodeServer, demoServer } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (args: string[], opts: { env?: Record<string, string>; cwd?: string; input?: string } = {}) =>
  spawnSync(process.execPath, [atriumBin, ...args], { cwd: opts.cwd ?? dir, env: { ...process.env, ATRIUM_CONFIG: "", ...opts.env }, input: opts.input ?? "", encoding: "utf8", timeout: 30_000 });
const write = (name: string, value: unknown) => { const p = join(dir, name); writeFileSync(p, typeof value === "string" ? value : JSON.stringify(value)); return p; };

describe("atrium command line", () => {
  it("--version prints the package version on stdout", () => {
    const r = run(["--version"]);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version);
    expect(r.status).toBe(0);
  });

  it("--help is the command's output: it goes to stdout, exit 0, nothing on stderr", () => {
    const r = run(["--help"]);
    expect(r.stdout).toContain("atrium doctor");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("--help and --version work after a command and next to its flags", () => {
    expect(run(["doctor", "--config", "nowhere.json", "-h"]).stdout).toContain("usage:");
    expect(run(["demo", "--serve", "--help"]).stdout).toContain("usage:");
    expect(run(["serve", "-v"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("an unknown command is refused with the help text", () => {
    const r = run(["frobnicate"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown command frobnicate");
  });

  it("a bad config names every offending path, exits non-zero and starts nothing", () => {
    const bad = write("bad.json", { mcpServers: { github: { command: "x", args: ["ok", 2] }, "Bad Id": { command: "y" }, mem: { comand: "z" } } });
    const r = run(["--config", bad]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`error: ${bad}: mcpServers.github.args[1]: expected a string, got number`);
    expect(r.stderr).toContain(`error: ${bad}: mcpServers["Bad Id"]: invalid connector id`);
    expect(r.stderr).toMatch(/^error: .*mcpServers\.mem\.comand: unknown key.*"command"/m);
    expect(r.stderr).toContain("nothing was started");
    expect(r.stdout).toBe("");
  });

  it("config lookup: --config wins over ATRIUM_CONFIG, which wins over ./atrium.json", () => {
    const flag = write("flag.json", { mcpServers: { fromflag: nodeServer(demoServer) } });
    const env = write("env.json", { mcpServers: { fromenv: nodeServer(demoServer) } });
    write("atrium.json", { mcpServers: { fromcwd: nodeServer(demoServer) } });
    expect(run(["doctor", "--config", flag], { env: { ATRIUM_CONFIG: env } }).stdout).toContain("ok   fromflag");
    expect(run(["doctor"], { env: { ATRIUM_CONFIG: env } }).stdout).toContain("ok   fromenv");
    expect(run(["doctor"]).stdout).toContain("ok   fromcwd");
    rmSync(join(dir, "atrium.json"));
    expect(run(["doctor"]).stdout).toContain("embedded demo");
  });

  it("a config file named by ATRIUM_CONFIG that does not exist is an error, not the demo", () => {
    const r = run(["doctor"], { env: { ATRIUM_CONFIG: join(dir, "missing.json") } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("ATRIUM_CONFIG");
  });

  it("doctor reports health, counts and the reason a connector failed, with its stderr", () => {
    const cfg = write("doctor.json", {
      mcpServers: {
        ann: nodeServer(fixture("annotations-server"), { readOnlyTools: ["ro_absent__de_true"] }),
        broken: nodeServer(fixture("nasty-server"), { env: { FIXTURE_CRASH_ON_START: "1" } }),
        off: { command: "nowhere", disabled: true },
      },
    });
    const r = run(["doctor", "--config", cfg]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("ok   ann");
    expect(r.stdout).toMatch(/11 tools: 2 read-only, 9 approval-required/);
    expect(r.stdout).toContain("ro_absent__de_true: listed in readOnlyTools but marked destructive");
    expect(r.stdout).toContain("FAIL broken");
    expect(r.stdout).toContain("refusing to start");
    expect(r.stdout).toContain("off  off");
    expect(r.stdout).toContain("1 connector(s) failed");
  });

  it("in a terminal, serve prints what it serves and the host snippet on stderr", async () => {
    // script(1) gives atrium a terminal; its stdin stays open until the banner is out (then
    // closing it ends atrium), however long the start takes.
    const child = spawn("script", ["-qc", `${process.execPath} ${atriumBin}`, "/dev/null"], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "" }, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
    const exited = new Promise((r) => child.on("exit", r));
    try {
      await waitFor(() => out.includes('"mcpServers"') && out.includes("}"), "the banner with the host snippet");
    } finally {
      child.stdin.end();
      await exited;
    }
    expect(out).toContain("is serving MCP on stdio");
    expect(out).toMatch(/connectors: 1, tools: 5 \(4 read-only, 1 approval-required\)/);
    expect(out).toContain('"mcpServers"');
  });

  it("without a terminal, serve writes nothing but protocol on stdout", () => {
    const r = run([], { input: "" });
    expect(r.stdout).toBe("");
  });
});
