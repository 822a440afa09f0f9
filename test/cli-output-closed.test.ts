// Every atrium command ends quietly when the reader of its stdout goes away (`atrium demo | head -5`,
// `atrium pins | head -1`): no unhandled EPIPE, no stack trace, exit status 141 as a Unix tool
// ended by SIGPIPE. The reader is a real child process whose end of the pipe is closed before the
// command writes: the stdout pipe's reader (a shell) has closed its end when atrium starts, so every write
// atrium makes meets a closed pipe, whatever the machine's speed. `atrium log` is covered too, and a real
// `atrium demo | head -5` in bash (pipefail) shows the user's view: five lines, nothing on stderr.
import { describe, it, expect, afterAll } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { once } from "node:events";
import type { Writable } from "node:stream";
import { atriumBin, demoServer } from "./harness/atrium-client.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-output-closed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = join(dir, "atrium.json");
writeFileSync(config, JSON.stringify({ mcpServers: { desk: { command: process.execPath, args: [demoServer] } } }));
// An activity log with events for `atrium log` to print (the state directory is this test's own).
const state = join(dir, "state");
mkdirSync(join(state, "activity"), { recursive: true });
writeFileSync(join(state, "activity", "activity.log"), `${JSON.stringify({ ts: new Date().toISOString(), event: "connector_state", connector: "desk", state: "ready" })}\n`);

/** Runs `atrium …args` with its stdout piped into a reader that has already closed its end. */
async function intoClosedPipe(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  // The reader closes its stdin (the pipe's read end), says so, and stays alive holding nothing,
  // so the pipe's write end (ours) stays usable to hand to atrium.
  const reader = spawn("sh", ["-c", "exec 0<&-; echo closed; exec sleep 600"], { stdio: ["pipe", "pipe", "ignore"] });
  await once(reader.stdout!, "data");
  const pipe = reader.stdin as Writable; // the write end; nobody holds the read end any more
  const child = spawn(process.execPath, [atriumBin, ...args], { cwd: dir, stdio: ["ignore", pipe, "pipe"], env: { ...process.env, ATRIUM_CONFIG: "", ATRIUM_STATE_DIR: state, ...extraEnv } });
  reader.kill();
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => { stderr += c.toString(); });
  const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null]; // after its stderr closed
  return { code, signal, stderr };
}

describe("a command whose reader closes its stdout early", () => {
  it.each([
    ["demo", ["demo", "--out", dir]],
    ["pins", ["pins", "--config", config]],
    ["log", ["log"]],
    ["doctor", ["doctor", "--config", config]],
    ["help", ["--help"]],
    ["version", ["--version"]],
  ])("%s ends quietly with status 141 (no EPIPE, no stack trace)", async (_name, args) => {
    const r = await intoClosedPipe(args);
    expect(r.stderr).toBe("");
    expect(r.signal).toBeNull();
    expect(r.code).toBe(141);
  });

  it("demo ends its own atrium child before it exits on a closed stdout (nothing it started outlives it)", async () => {
    // The demo writes its session's config under TMPDIR; its child `atrium serve --config …` names that folder.
    const tmp = join(dir, "tmp-demo");
    mkdirSync(tmp);
    const r = await intoClosedPipe(["demo", "--out", dir], { TMPDIR: tmp });
    expect(r.code).toBe(141);
    expect(processesNaming(tmp)).toEqual([]);
  });

  it("`atrium demo | head -5` in a shell prints five lines and nothing on stderr; atrium ends 0 or, when head left first, 141", () => {
    const r = spawnSync("bash", ["-c", `set -o pipefail; "${process.execPath}" "${atriumBin}" demo --out "${dir}" | head -5`], { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, ATRIUM_CONFIG: "", ATRIUM_STATE_DIR: state } });
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(5);
    expect(r.stderr).toBe("");
    expect([0, 141]).toContain(r.status);
  });
});

/** Live processes whose command line names `path` (read from /proc, so the answer is the kernel's at this moment). */
function processesNaming(path: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let cmd = "";
    try { cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "); } catch { continue; }
    if (cmd.includes(path)) found.push(`${pid}: ${cmd}`);
  }
  return found;
}
