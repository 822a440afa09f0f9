// `atrium help` is `atrium --help`, and the help names every flag of every command on that
// command's own usage line, so a person never has to guess what `pins accept` or `auth` take.
// `atrium demo --serve --port N` on a busy port stops before the demo runs, with one line.
import { describe, it, expect, afterAll } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { atriumBin } from "./harness/atrium-client.js";
import { COMMANDS, WORDS, shownWord } from "../glue/commands/args.js";

/** What each command (and each of its actions but the default one) takes, read off the parser's tables, as the help must show it: `--config FILE`, `--serve`, `<connector>`, `[tool…]`. */
function commandUsage(): { command: string; action?: string; flags: string[] }[] {
  return Object.entries(COMMANDS).flatMap(([command, table]) => {
    const flags = Object.entries(table as Record<string, { value?: string }>).map(([k, f]) => (f.value ? `--${k} ${f.value}` : `--${k}`));
    const takes = WORDS[command as keyof typeof COMMANDS];
    if (!takes) return [{ command, flags }];
    return Object.entries(takes.actions).map(([action, rest]) => ({ command, ...(action !== takes.default && { action }), flags: [...rest.map(shownWord), ...flags] }));
  });
}

const run = (args: string[]) => spawnSync(process.execPath, [atriumBin, ...args], { cwd: tmpdir(), env: { ...process.env, ATRIUM_CONFIG: "" }, input: "", encoding: "utf8", timeout: 30_000 });

describe("atrium help", () => {
  it("`atrium help` prints the same help as --help on stdout, exit 0", () => {
    const help = run(["help"]);
    expect(help.stderr).toBe("");
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(run(["--help"]).stdout);
  });

  it("--help shows every command's flags and words on that command's own usage lines", () => {
    const lines = run(["--help"]).stdout.split("\n").map((l) => l.trim());
    const usage = commandUsage();
    expect(usage.length).toBeGreaterThan(0);
    for (const { command, action, flags } of usage) {
      const mine = lines.filter((l) => l.startsWith(`atrium ${command}${action ? ` ${action}` : ""}`) || (command === "serve" && l.startsWith("atrium [serve]")));
      expect(mine.length, `a usage line for atrium ${command} ${action ?? ""}`).toBeGreaterThan(0);
      for (const f of flags) expect(mine.some((l) => l.includes(f)), `atrium ${command} ${action ?? ""} shows ${f}`).toBe(true);
    }
  });
});

describe("atrium demo --serve --port N", () => {
  const busy = createServer();
  afterAll(() => busy.close());

  it("on a port in use stops before the demo runs, with one line naming the port and exit 1", async () => {
    busy.listen(0, "127.0.0.1");
    await once(busy, "listening");
    const port = (busy.address() as { port: number }).port;
    const child = spawn(process.execPath, [atriumBin, "demo", "--serve", "--port", String(port)], { cwd: tmpdir(), env: { ...process.env, ATRIUM_CONFIG: "" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString(); });
    const [code] = await once(child, "close");
    expect(stdout).toBe(""); // nothing of the demo ran
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain(`port ${port}`);
    expect(stderr).toContain("--port");
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(code).toBe(1);
  });
});
