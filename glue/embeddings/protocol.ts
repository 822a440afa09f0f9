// The messages between the main thread (semantic-index.ts) and the embedding worker (worker.ts).
import type { EndpointSettings } from "./endpoint.js";
import type { SemanticEntry } from "./tool-text.js";
import type { Progress } from "./tool-vectors.js";

export interface WorkerSettings {
  /** The operator's endpoint, tried first; absent: the bundled model. */
  endpoint?: EndpointSettings;
  /** Where tool vectors are cached; absent: memory only. */
  cacheDir?: string;
}

export type ToWorker =
  | { type: "update"; entries: SemanticEntry[] }
  | { type: "scores"; id: number; queries: string[] };

export type SemanticState = "off" | "idle" | "loading" | "ready" | "failed";

/** The tools of one set of vectors, in the order of every cosines array computed on it. */
export interface VectorSet { generation: number; addresses: string[] }

export type FromWorker =
  /**
   * `embedder` says which model serves; `note` why the operator's endpoint was dropped, or why it
   * all failed; `progress` how far the tools are embedded (loading); `set` the tools of the
   * vectors now offered (ready).
   */
  | { type: "state"; state: "loading" | "ready" | "failed"; embedder?: string; note?: string; tools?: number; embedded?: number; cached?: number; progress?: Progress; set?: VectorSet }
  /** `cosines` (transferred, not copied) are of the set with `generation`; absent: not offered now. */
  | { type: "scores"; id: number; generation?: number; cosines?: Float32Array };
