// Messages between the main thread and a sandbox worker: a run and its outcome here, host calls in
// host-ops.ts. Payloads cross as JSON strings so nothing but data ever reaches the guest.
import type { MessagePort } from "node:worker_threads";
import type { ErrorBody } from "../support/errors.js";
import type { HostCall, HostResult } from "./host-ops.js";

export interface RunLimits {
  cpuMs: number;
  heapBytes: number;
  stackBytes: number;
  logChars: number;
  /** The worker sends no ui or emit payload larger than this (emit_bytes is counted on the main thread). */
  emitBytes: number;
  // Bounds the worker checks on one request or one text before it leaves the sandbox; each is
  // the run's value when given, else the budget's default.
  /** The run's host_calls: the worker does not count it (the main thread does), it only tells a call
   * the budget could still grant (sent without waiting) from one it may refuse (answered at the call). */
  hostCalls?: number;
  callPayloadBytes?: number;
  returnChars?: number;
  errorTextChars?: number;
  searchQueryChars?: number;
  requestDepth?: number;
}

export interface AliasTool { ident: string; address: string | null; candidates: string[] }
export interface AliasConnector { ident: string; connectorId: string; tools: AliasTool[]; ambiguousWith: string[] }

export interface RunJob { type: "run"; runId: number; code: string; limits: RunLimits; aliases: AliasConnector[] }
export type ToWorker = RunJob | HostResult;

/** What a worker is started with: its heap, the compiled QuickJS module, and the channel a host
 * call's answer comes back on while the worker waits for it (a flag it waits on, a port it reads). */
export interface WorkerData { heapBytes: number; wasmModule: WebAssembly.Module; wake: SharedArrayBuffer; answers: MessagePort }

export interface GuestError {
  /** True only for errors the host raised (an unforgeable mark set by the prelude). */
  host: boolean;
  name: string;
  message: string;
  stack?: string;
  body?: ErrorBody;
  /** Where a program's own error was thrown (or its text stopped parsing), 1-based, as the author wrote it (program-position.ts). */
  line?: number;
  column?: number;
  /** The program's failure was a thrown null: QuickJS's out-of-memory when it cannot build its error (or the program's own throw null). */
  thrownNull?: boolean;
}

export interface RunOutcome {
  ok: boolean;
  /** JSON of the return value when ok; only its first return_chars characters when it is longer. */
  json?: string;
  /** The full length of the return value's JSON, when `json` holds only its beginning. */
  jsonChars?: number;
  error?: GuestError;
  /** Why the sandbox stopped the run itself: the CPU budget, memory, a dead-end await, a syntax
   * error, or the sandbox's own failure to prepare the run (never the program's fault). */
  stopped?: "cpu" | "memory" | "deadlock" | "syntax" | "internal";
  logs: string;
  logsDropped: number;
  cpuMs: number;
  /** The worker should be replaced (its module may be unhealthy). */
  recycle: boolean;
}
export interface RunDone { type: "done"; runId: number; outcome: RunOutcome }
export interface WorkerReady { type: "ready" }
export type FromWorker = HostCall | RunDone | WorkerReady;
