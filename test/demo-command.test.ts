// `atrium demo`: the scripted session runs against a real atrium over stdio and ends with the
// service-desk view written to an HTML file (sandboxed, offline) whose data matches the summary;
// the atrium it starts keeps its state in the command's state directory.
import { describe, it, expect } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin } from "./harness/atrium-client.js";

describe("atrium demo", () => {
  it("walks discovery, one program, a refusal, and writes the service-desk view", () => {
    const out = mkdtempSync(join(tmpdir(), "atrium-demo-test-"));
    try {
      const r = spawnSync(process.execPath, [atriumBin, "demo", "--out", out], { encoding: "utf8", timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/tools\/list: the model sees 7 tools/);
      expect(r.stdout).toMatch(/desk\.list_incidents\s+read_only/);
      expect(r.stdout).toMatch(/execute_code: one program made 6 host calls/);
      expect(r.stdout).toContain("refused: destructive_tool_requires_approval");
      const summary = JSON.parse(/returned only the summary the model reads:\n\s+(\{.*\})/.exec(r.stdout)![1]);
      expect(summary.activeIncidents).toBeGreaterThan(0);
      const files = readdirSync(out).filter((f) => f.endsWith(".html"));
      expect(files).toHaveLength(1);
      expect(r.stdout).toContain(join(out, files[0]));
      const html = readFileSync(join(out, files[0]), "utf8");
      expect(html).toContain('sandbox="allow-scripts"');
      expect(html).toContain("Service desk — active incidents");
      expect(html).toContain(`&quot;activeIncidents&quot;:${summary.activeIncidents}`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("the demo's atrium keeps its state where the command's does ($ATRIUM_STATE_DIR), never in the home folder", () => {
    const work = mkdtempSync(join(tmpdir(), "atrium-demo-state-"));
    try {
      const state = join(work, "state");
      const home = join(work, "home");
      const r = spawnSync(process.execPath, [atriumBin, "demo", "--out", join(work, "out")], { encoding: "utf8", timeout: 60_000, env: { ...process.env, HOME: home, XDG_STATE_HOME: "", ATRIUM_STATE_DIR: state } });
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(join(state, "pins.json"))).toBe(true);
      expect(existsSync(home)).toBe(false);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
