// Files atrium ships, found from wherever the running code lives (glue/ under vitest,
// dist/glue/ compiled, dist/bundle/ bundled): walk up to the package root once.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(): string {
  for (let d = dirname(fileURLToPath(import.meta.url)); ; d = dirname(d)) {
    const pkg = join(d, "package.json");
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === "atrium-mcp") return d;
    if (d === dirname(d)) throw new Error("atrium: cannot find its package root");
  }
}

const packageRoot = findRoot();
export const packageVersion: string = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version;
export const binPath = join(packageRoot, "bin/atrium.js");
export const skillsDir = join(packageRoot, "glue/skills");
/** The demo connector: the bundled file when built, else the tsc output. */
export const demoServerPath = [join(packageRoot, "dist/bundle/demo-server.mjs"), join(packageRoot, "dist/glue/demo/server.js")].find(existsSync) ?? join(packageRoot, "dist/glue/demo/server.js");
/** The sandbox worker entry: bundled when built (QuickJS's wasm comes compiled from the pool, not from a path). */
export const sandboxWorkerPath = [join(packageRoot, "dist/bundle/sandbox-worker.mjs"), join(packageRoot, "dist/glue/sandbox/worker.js")].find(existsSync) ?? join(packageRoot, "dist/glue/sandbox/worker.js");
/** QuickJS's release-sync wasm, found by Node's resolution from quickjs-emscripten (nested or hoisted install). */
export const quickjsWasmPath = createRequire(createRequire(join(packageRoot, "package.json")).resolve("quickjs-emscripten")).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
