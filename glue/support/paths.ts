// Files atrium ships, resolved from the package root (package-root.ts).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { packageRoot } from "./package-root.js";

export const packageVersion: string = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version;
export const binPath = join(packageRoot, "bin/atrium.js");
export const skillsDir = join(packageRoot, "glue/skills");
/** The demo connector: the bundled file when built, else the tsc output. */
export const demoServerPath = [join(packageRoot, "dist/bundle/demo-server.mjs"), join(packageRoot, "dist/glue/demo/server.js")].find(existsSync) ?? join(packageRoot, "dist/glue/demo/server.js");
/** The sandbox worker entry: bundled when built (QuickJS's wasm comes compiled from the pool, not from a path). */
export const sandboxWorkerPath = [join(packageRoot, "dist/bundle/sandbox-worker.mjs"), join(packageRoot, "dist/glue/sandbox/worker.js")].find(existsSync) ?? join(packageRoot, "dist/glue/sandbox/worker.js");
/** QuickJS's release-sync wasm, found by Node's resolution from quickjs-emscripten (nested or hoisted install). */
export const quickjsWasmPath = createRequire(createRequire(join(packageRoot, "package.json")).resolve("quickjs-emscripten")).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
/** The embedding worker entry (glue/embeddings/worker.ts): bundled when built, else the tsc output. */
export const embedWorkerPath = [join(packageRoot, "dist/bundle/embed-worker.mjs"), join(packageRoot, "dist/glue/embeddings/worker.js")].find(existsSync) ?? join(packageRoot, "dist/glue/embeddings/worker.js");
