// The committed wasm must be exactly what the sources build: rebuild into a temporary
// folder and compare bytes, and check that the generated tables match spec/.
import { describe, it, expect } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { compileCore, repoRoot, sha256, sourceDigest, CORE_WASM, BUILD_RECORD } from "../glue/build/spec/build.js";
import { readSpec } from "../glue/build/spec/parse.js";
import { generateAssembly, generateGlue, AS_GENERATED, TS_GENERATED } from "../glue/build/spec/generate.js";

describe("reproducible core build", () => {
  it("generated constant tables are current with spec/", () => {
    const spec = readSpec();
    expect(readFileSync(join(repoRoot, AS_GENERATED), "utf8")).toBe(generateAssembly(spec));
    expect(readFileSync(join(repoRoot, TS_GENERATED), "utf8")).toBe(generateGlue(spec));
  });
  it("rebuilding into a temporary folder gives the committed bytes and digests", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-core-"));
    try {
      const { binary, diagnostics } = await compileCore();
      expect(binary, diagnostics).not.toBeNull();
      writeFileSync(join(dir, "core.wasm"), binary!);
      const rebuilt = readFileSync(join(dir, "core.wasm"));
      const committed = readFileSync(join(repoRoot, CORE_WASM));
      expect(sha256(rebuilt)).toBe(sha256(committed));
      const record = JSON.parse(readFileSync(join(repoRoot, BUILD_RECORD), "utf8"));
      expect(record.wasmDigest).toBe(`sha256:${sha256(committed)}`);
      expect(record.sourceDigest).toBe(`sha256:${sourceDigest()}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
