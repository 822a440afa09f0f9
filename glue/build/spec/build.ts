// Compiles the AssemblyScript core in-process through asc's API. Used by the
// one-command rebuild (`npm run spec`), the reproducibility check and the
// mutation run, so all three compile with exactly the same flags.
import asc from "assemblyscript/asc";
import { readFileSync, existsSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { createHash } from "node:crypto";
import { packageRoot } from "../../support/package-root.js";

/** The repository root is the package root (it holds asconfig.json, spec/, assembly/, wasm/). */
export const repoRoot = packageRoot;
const CORE_ENTRY = "assembly/core.ts";
export const CORE_WASM = "wasm/core.wasm";
export const BUILD_RECORD = "wasm/build.json";
/** The flags every build uses; asconfig.json holds the rest (optimisation, runtime). */
export const ASC_ARGS = [CORE_ENTRY, "--config", "asconfig.json", "--target", "release"];

export interface CompileResult { binary: Uint8Array | null; diagnostics: string }

/**
 * Compile the core. `overrides` maps a repo-relative source path to replacement
 * text (the mutation run uses it); everything else is read from disk.
 */
export async function compileCore(overrides: ReadonlyMap<string, string> = new Map(), extraArgs: string[] = []): Promise<CompileResult> {
  let binary: Uint8Array | null = null;
  let diagnostics = "";
  const sink = { write(chunk: string | Uint8Array) { diagnostics += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(); return true; } };
  const { error } = await asc.main([...ASC_ARGS, "--outFile", "core.wasm", ...extraArgs], {
    stdout: sink as never,
    stderr: sink as never,
    readFile(name: string, baseDir: string) {
      const abs = resolve(repoRoot, baseDir, name);
      const rel = relative(repoRoot, abs);
      const over = overrides.get(rel);
      if (over !== undefined) return over;
      return existsSync(abs) ? readFileSync(abs, "utf8") : null;
    },
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith(".wasm")) binary = typeof contents === "string" ? Buffer.from(contents) : contents;
    },
    listFiles(dir: string, baseDir: string) {
      const abs = resolve(repoRoot, baseDir, dir);
      return existsSync(abs) ? readdirSync(abs).filter((f) => f.endsWith(".ts")) : null;
    },
  });
  if (error) diagnostics += `\n${error.message}`;
  return { binary: error ? null : binary, diagnostics };
}

/** Every AssemblyScript source of the core, repo-relative, sorted (the digest's input). */
export function coreSources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts")) out.push(p);
    }
  };
  walk("assembly");
  return out.sort();
}

export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

export function sourceDigest(): string {
  const h = createHash("sha256");
  for (const f of coreSources()) h.update(f + "\0" + readFileSync(join(repoRoot, f), "utf8") + "\0");
  h.update("asconfig.json\0" + readFileSync(join(repoRoot, "asconfig.json"), "utf8"));
  return h.digest("hex");
}

export function ascVersion(): string {
  return JSON.parse(readFileSync(join(repoRoot, "node_modules/assemblyscript/package.json"), "utf8")).version;
}
