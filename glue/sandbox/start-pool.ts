// The sandbox pool for a config: its own small module so `serve` can make it before it loads the
// MCP SDK and the rest of the server, its workers warming once `warmAfter` settles (serve: once
// initialize is answered, so they never compete with it for the CPU).
import type { SandboxConfig } from "../config/schema.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../support/paths.js";
import { SandboxPool } from "./pool.js";

export function startSandboxPool(sandbox: SandboxConfig, warmAfter?: Promise<unknown>): SandboxPool {
  return new SandboxPool({ size: sandbox.workers, queue: sandbox.queue, heapBytes: sandbox.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath, warmAfter });
}
