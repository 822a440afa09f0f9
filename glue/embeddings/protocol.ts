// The messages between the main thread (semantic-index.ts) and the embedding worker (worker.ts).
import type { EndpointSettings } from "./endpoint.js";
import type { SemanticEntry } from "./tool-text.js";

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

export type FromWorker =
  /** `embedder` says which model serves; `note` why the operator's endpoint was dropped, or why it all failed. */
  | { type: "state"; state: "loading" | "ready" | "failed"; embedder?: string; note?: string; tools?: number; embedded?: number; cached?: number }
  | { type: "scores"; id: number; scores?: Map<string, number> };
