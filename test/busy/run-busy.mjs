#!/usr/bin/env node
// Runs the tests on a busy machine: `npm test` (or the command after `--`) with CPU hogs beside
// it, and optionally `npm ci` of another project in a loop (a temporary copy of this package.json
// and lockfile, scripts off), so a test that leans on the wall clock fails here rather than on a
// loaded CI machine. Exits with the command's status; the hogs and the install always end with it
// (a hog also ends by itself once this runner is gone).
//
//   node test/busy/run-busy.mjs                      npm test beside 4 hogs
//   node test/busy/run-busy.mjs --hogs 6 --npm-ci    6 hogs and npm ci in a loop
//   node test/busy/run-busy.mjs -- npx vitest run test/views.test.ts
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const USAGE = "usage: node test/busy/run-busy.mjs [--hogs N] [--npm-ci] [-- command args...]   (default: 4 hogs, npm test)";

function parse(argv) {
  const opts = { hogs: 4, npmCi: false, command: ["npm", "test"] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      if (i + 1 < argv.length) opts.command = argv.slice(i + 1);
      break;
    }
    if (a === "--npm-ci") opts.npmCi = true;
    else if (a === "--hogs" && /^\d+$/.test(argv[i + 1] ?? "")) opts.hogs = Number(argv[++i]);
    else if (a === "-h" || a === "--help") {
      console.log(USAGE);
      process.exit(0);
    } else {
      console.error(`run-busy: unknown argument ${a}\n${USAGE}`);
      process.exit(2);
    }
  }
  return opts;
}

// A hog spins on one core and looks up now and then (about every 100 ms of spinning) whether the
// runner that started it is still its parent: killed runner, no orphaned hogs.
const HOG = `const parent = process.ppid; for (let i = 1; ; i++) if (i % 5e7 === 0 && process.ppid !== parent) process.exit(0);`;

const opts = parse(process.argv.slice(2));
const helpers = new Set();
let installDir;
let stopping = false;

function start(command, args, options) {
  const child = spawn(command, args, options);
  helpers.add(child);
  child.on("exit", () => helpers.delete(child));
  return child;
}

/** Ends every hog and the install loop (by the pids this runner started), and the install's temp folder. */
function stopHelpers() {
  stopping = true;
  for (const child of helpers) {
    try {
      // The install runs in its own process group (npm starts children): end the whole group.
      if (child.atriumGroup) process.kill(-child.pid, "SIGKILL");
      else child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  helpers.clear();
  if (installDir) rmSync(installDir, { recursive: true, force: true });
}
process.on("exit", stopHelpers);

for (let i = 0; i < opts.hogs; i++) start(process.execPath, ["-e", HOG], { stdio: "ignore" });

function installLoop() {
  if (stopping) return;
  const child = start("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: installDir, stdio: "ignore", detached: true });
  child.atriumGroup = true;
  child.on("exit", (code) => {
    if (code !== 0 && !stopping) console.error(`run-busy: npm ci of the copy exited ${code} (no registry?); starting it again`);
    setTimeout(installLoop, 1000);
  });
}
if (opts.npmCi) {
  installDir = mkdtempSync(join(tmpdir(), "atrium-busy-install-"));
  for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(repo, f), join(installDir, f));
  installLoop();
}

console.error(`run-busy: ${opts.hogs} CPU hog(s)${opts.npmCi ? " and npm ci in a loop" : ""} beside: ${opts.command.join(" ")}`);
const [command, ...args] = opts.command;
const run = spawn(command, args, { cwd: process.cwd(), stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    run.kill(signal);
  });
}
run.on("error", (e) => {
  console.error(`run-busy: could not start ${command}: ${e.message}`);
  stopHelpers();
  process.exit(127);
});
run.on("exit", (code, signal) => {
  stopHelpers();
  console.error(`run-busy: ${opts.command.join(" ")} ${signal ? `ended by ${signal}` : `exited ${code}`}`);
  process.exit(code ?? 1);
});
