// `node smoke.mjs`, which the README advertises, runs as part of `npm test` so it cannot rot: the
// whole surface end to end over real stdio against the real npm servers (test/servers/).
import { describe, it, expect } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repo } from "./harness/atrium-client.js";

describe("smoke.mjs (README: `node smoke.mjs` runs the whole surface)", () => {
  it("passes every check on a built clone and exits 0", () => {
    const r = spawnSync(process.execPath, [join(repo, "smoke.mjs")], { cwd: repo, encoding: "utf8", timeout: 170_000, env: { ...process.env, ATRIUM_CONFIG: "" } });
    expect(r.stdout, r.stdout + r.stderr).toContain("all checks passed");
    expect(r.stdout).not.toMatch(/^FAIL/m);
    expect(r.status).toBe(0);
  }, 180_000);
});
