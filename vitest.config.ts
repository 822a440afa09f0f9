import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A private state directory per test file (pins, tokens, view files): never the real home.
    setupFiles: ["test/setup-state-dir.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every atrium a test starts keeps its state (activity log, view files, tokens) out of the real
    // home; a test that needs its own state directory sets ATRIUM_STATE_DIR itself.
    env: { ATRIUM_STATE_DIR: mkdtempSync(join(tmpdir(), "atrium-tests-state-")) },
  },
});
