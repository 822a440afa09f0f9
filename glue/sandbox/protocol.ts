// Messages between the main thread and a sandbox worker. Payloads cross as JSON strings so
// nothing but data ever reaches the guest.
import type { ErrorBody } from "../support/errors.js";

export interface RunLimits {
  cpuMs: number;
  heapBytes: number;
  stackBytes: number;
  logChars: number;
  emitBytes: number;
  emitBlocks: number;
  // Limits the worker enforces before anything crosses to the main thread. Each is the run's
  // effective value when given; when absent the worker uses the budget's default (limits an
  // operator cannot set) or the top of its operator range (limits an operator can set, so the
  // worker is never stricter than the bridge, which enforces the exact value again).
  hostCalls?: number;
  batchCalls?: number;
  callPayloadBytes?: number;
  returnChars?: number;
  errorTextChars?: number;
  searchQueryChars?: number;
  requestDepth?: number;
}

export interface AliasTool { ident: string; address: string | null; candidates: string[] }
export interface AliasConnector { ident: string; connectorId: string; tools: AliasTool[]; ambiguousWith: string[] }

/** Address → class, as of the run's start; sent only when the worker's copy is stale. */
export type CatalogClasses = Record<string, "read_only" | "approval">;
export interface RunJob { type: "run"; runId: number; code: string; limits: RunLimits; aliases: AliasConnector[]; catalogVersion: number; catalog?: CatalogClasses }
export interface HostResult { type: "hostResult"; runId: number; callId: number; ok: boolean; json: string; catalog?: CatalogClasses }
export type ToWorker = RunJob | HostResult;

export interface HostCall { type: "host"; runId: number; callId: number; op: "search" | "describe" | "call" | "batch"; json: string }
export interface EmittedBlock { block: Record<string, unknown>; bytes: number }

export interface GuestError {
  /** True only for errors the host raised (an unforgeable mark set by the prelude). */
  host: boolean;
  name: string;
  message: string;
  stack?: string;
  body?: ErrorBody;
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
  emitted: EmittedBlock[];
  emittedBytes: number;
  /** The accepted view, if the program called atrium.ui and it passed every check. */
  view?: { html: string; reads?: Record<string, unknown>; bytes: number };
  cpuMs: number;
  /** The worker should be replaced (its module may be unhealthy). */
  recycle: boolean;
}
export interface RunDone { type: "done"; runId: number; outcome: RunOutcome }
export interface WorkerReady { type: "ready" }
export type FromWorker = HostCall | RunDone | WorkerReady;
