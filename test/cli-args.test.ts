// Every command refuses a flag it does not take, a flag without its value, a value for a switch,
// a flag given twice and a stray word: exit 2, a message on stderr naming the flag and the
// command's flags, nothing on stdout, nothing started. Real processes of the built CLI.
import { describe, it, expect } from "vitest";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { atriumBin } from "./harness/atrium-client.js";

const run = (args: string[]) => spawnSync(process.execPath, [atriumBin, ...args], { cwd: tmpdir(), env: { ...process.env, ATRIUM_CONFIG: "" }, input: "", encoding: "utf8", timeout: 30_000 });

const refused: [string[], RegExp][] = [
  [["demo", "--config", "x.json"], /^atrium demo: unknown flag --config \(demo takes --out DIR, --serve, --port N/],
  [["demo", "--port", "5"], /^atrium demo: --port applies only with --serve/],
  [["demo", "--serve", "--port", "99999"], /^atrium demo: --port must be a port number from 0 to 65535, got "99999"/],
  [["demo", "--serve=yes"], /^atrium demo: --serve takes no value/],
  [["demo", "--out"], /^atrium demo: --out needs a value: --out DIR/],
  [["serve", "--bogus"], /^atrium serve: unknown flag --bogus \(serve takes --config FILE/],
  [["--bogus"], /^atrium serve: unknown flag --bogus/],
  [["serve", "-x"], /^atrium serve: unknown flag -x/],
  [["doctor", "--out", "x"], /^atrium doctor: unknown flag --out \(doctor takes --config FILE/],
  [["doctor", "--config"], /^atrium doctor: --config needs a value: --config FILE/],
  [["doctor", "--config", "--out", "x"], /^atrium doctor: --config needs a value/],
  [["doctor", "--config="], /^atrium doctor: --config needs a value/],
  [["doctor", "--config", "a.json", "--config", "b.json"], /^atrium doctor: --config is given more than once/],
  [["doctor", "extra"], /^atrium doctor: unexpected argument "extra"/],
];

describe("atrium command-line flags", () => {
  it.each(refused)("refuses %j with exit 2 and a message naming the flag", (args, message) => {
    const r = run(args);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain("see atrium --help");
    expect(r.stdout).toBe("");
    expect(r.status).toBe(2);
  });

  it("accepts --config=FILE as well as --config FILE", () => {
    const r = run(["doctor", "--config=/nonexistent/atrium.json"]);
    expect(r.stderr).toContain("cannot read /nonexistent/atrium.json (named by --config)");
    expect(r.status).toBe(1);
  });
});
