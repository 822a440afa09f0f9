#!/usr/bin/env node
// Installs the real MCP servers from npm that the tests, smoke.mjs and the bench start
// (test/servers/package.json, exact pins, own lockfile) into test/servers/node_modules. They are
// built with the SDK 1 line (and the two MCP Apps examples on their own SDK 2 pins), so they live here
// and not in atrium's own package.json/lockfile.
// Runs `npm ci` only when node_modules is missing or was installed from another lockfile (a
// stamp holds the lockfile's hash); otherwise it does nothing. `npm test` and `npm run bench`
// run it first; smoke.mjs calls ensureTestServers() itself.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, realpathSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const stamp = join(here, "node_modules", ".atrium-installed-from");

/** The path of a test server's command (mcp-server-everything, mcp-server-filesystem, mcp-server-memory, mcp-server-basic-vanillajs, mcp-system-monitor-server). */
export const testServerBin = (name) => join(here, "node_modules", ".bin", name);

export function ensureTestServers() {
  const hash = createHash("sha256").update(readFileSync(join(here, "package.json"))).update(readFileSync(join(here, "package-lock.json"))).digest("hex");
  if (existsSync(stamp) && readFileSync(stamp, "utf8").trim() === hash) return;
  process.stderr.write("test/servers: installing the real MCP servers the tests start (npm ci)\n");
  const r = spawnSync("npm", ["ci", "--prefix", here, "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: here, stdio: ["ignore", "inherit", "inherit"], shell: process.platform === "win32" });
  if (r.status !== 0) throw new Error(`npm ci in test/servers failed (${r.error?.message ?? `exit ${r.status}`})`);
  writeFileSync(stamp, hash + "\n");
}

const isScript = (() => {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
})();
if (isScript) ensureTestServers();
