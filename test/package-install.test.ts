// The published package: `npm pack` of the built repo, installed into an empty folder the way a
// user would (`npm install atrium-mcp-x.y.z.tgz`), must run from that folder alone: the CLI,
// the embedded demo connector, the decision core, the QuickJS sandbox and the usage guide.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { repo } from "./harness/atrium-client.js";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const work = mkdtempSync(join(tmpdir(), "atrium-package-"));
const project = join(work, "project");
const installedBin = join(project, "node_modules/.bin/atrium");
let packed: { filename: string; files: { path: string }[] };
let manifestBefore: string;

const sh = (args: string[], cwd: string, timeout = 180_000) => {
  const r = spawnSync(npm, args, { cwd, encoding: "utf8", timeout, env: { ...process.env, npm_config_update_notifier: "false" } });
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
};
/** Runs the installed command from the empty project folder (no atrium.json, no ATRIUM_CONFIG: the demo). */
const atrium = (args: string[]) =>
  spawnSync(installedBin, args, { cwd: project, encoding: "utf8", timeout: 60_000, env: { ...process.env, ATRIUM_CONFIG: "" } });

beforeAll(() => {
  // The tests run after `npm run build`, so the pack reuses dist/ (its prepack strips the clone's
  // scripts, prepare included, from the shipped package.json; postpack puts them back).
  manifestBefore = readFileSync(join(repo, "package.json"), "utf8");
  packed = JSON.parse(sh(["pack", "--json", "--pack-destination", work], repo).replace(/^[^[]*/, ""))[0];
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "atrium-install-check", version: "0.0.0", private: true }));
  sh(["install", join(work, packed.filename), "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], project);
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the npm package", () => {
  it("ships the built CLI, the core and the guide, and no test sources", () => {
    const files = packed.files.map((f) => f.path);
    for (const f of ["bin/atrium.js", "dist/bundle/atrium.mjs", "dist/bundle/demo-server.mjs", "dist/bundle/sandbox-worker.mjs", "wasm/core.wasm", "glue/skills/usage.md", "README.md", "package.json"]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.startsWith("test/") || f.startsWith("spec/") || f.startsWith("assembly/") || f.startsWith("dist/test/") || f.endsWith(".ts"))).toEqual([]);
  });

  it("ships a package.json without the clone's scripts (no prepare: nothing runs at install), and leaves the clone's as it was", () => {
    const shipped = JSON.parse(readFileSync(join(project, "node_modules/atrium-mcp/package.json"), "utf8"));
    expect(shipped.scripts).toBeUndefined();
    expect(shipped.bin).toEqual({ atrium: "bin/atrium.js" });
    expect(readFileSync(join(repo, "package.json"), "utf8")).toBe(manifestBefore);
    expect(JSON.parse(manifestBefore).scripts.prepare).toBeDefined();
    expect(existsSync(join(repo, "package.json.unpacked"))).toBe(false);
  });

  it("installed from the tarball, `atrium --version` prints the package version", () => {
    expect(existsSync(installedBin)).toBe(true);
    const r = atrium(["--version"]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe(packed.filename.replace(/^atrium-mcp-/, "").replace(/\.tgz$/, ""));
    expect(r.status).toBe(0);
  });

  it("installed from the tarball, `atrium doctor` with no config finds the embedded demo connector healthy", () => {
    const r = atrium(["doctor"]);
    expect(r.stdout, r.stderr).toContain("embedded demo");
    expect(r.stdout).toMatch(/^ok +desk /m);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("installed from the tarball, a served session runs a program against the demo connector and reads the usage guide", async () => {
    const transport = new StdioClientTransport({ command: installedBin, args: [], cwd: project, stderr: "pipe", env: { ...process.env, ATRIUM_CONFIG: "" } as Record<string, string> });
    let stderr = "";
    transport.stderr?.on("data", (c: Buffer) => { stderr += c.toString(); });
    const client = new Client({ name: "package-check", version: "0.0.0" });
    await client.connect(transport).catch((e) => { throw new Error(`the installed atrium did not start: ${e}\n${stderr}`); });
    try {
      const run = (await client.callTool({ name: "execute_code", arguments: { code: `async () => (await desk.get_incident({ id: "INC-1042" })).id` } })).structuredContent as any;
      expect(run.ok, JSON.stringify(run)).toBe(true);
      expect(run.value).toBe("INC-1042");
      const guide = (await client.callTool({ name: "skills", arguments: { name: "usage" } })) as any;
      expect(guide.isError).toBeFalsy();
      expect(guide.content[0].text.length).toBeGreaterThan(100);
    } finally {
      await client.close();
    }
  }, 60_000);
});
