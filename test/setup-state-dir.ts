// Every test file gets its own atrium state directory (pins, tokens, view files), so a spawned
// atrium or `atrium doctor` that inherits process.env never writes to the real home, and one
// file's pins never judge another file's connectors. Removed after the file's tests.
import { afterAll } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const dir = mkdtempSync(join(tmpdir(), "atrium-test-state-"));
process.env.ATRIUM_STATE_DIR = join(dir, "state");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
