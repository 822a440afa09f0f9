// The sandbox pool for a config: its own small module so `serve` can start the workers warming
// before it loads the MCP SDK and the rest of the server.
import type { SandboxConfig } from "../config/schema.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../support/paths.js";
import { SandboxPool } from "./pool.js";

export function startSandboxPool(sandbox: SandboxConfig): SandboxPool {
  return new SandboxPool({ size: sandbox.workers, queue: sandbox.queue, heapBytes: sandbox.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath });
}
