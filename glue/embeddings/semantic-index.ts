// The semantic layer as search sees it, on the main thread: it starts the embedding worker
// (worker.ts) only when asked, after atrium serves, sends it the catalog's tools whenever they
// change, and asks it for cosine scores. Until the vectors are in, `scores` answers undefined and
// search ranks lexically (the status says how far the embedding is); nothing here throws into
// search: a failure is logged once, and from then on search stays lexical. The cosines arrive as
// one Float32Array in the order of the tools the worker named when it became ready.
import { Worker } from "node:worker_threads";
import { EMBED_QUERIES_MAX, EMBED_QUERY_CHARS_MAX, EMBED_QUERY_WAIT_MS, EMBED_WORKER_OLD_GENERATION_MB } from "../decisions/generated/spec.js";
import type { SearchConfig } from "../config/schema.js";
import { embedWorkerPath } from "../support/paths.js";
import type { FromWorker, SemanticState, ToWorker, VectorSet, WorkerSettings } from "./protocol.js";
import type { SemanticEntry } from "./tool-text.js";
import type { Progress, ToolCosines } from "./tool-vectors.js";
import { vectorCacheDir } from "./vector-cache.js";

export interface SemanticStatus {
  state: SemanticState;
  /** Which model serves (once one loaded). */
  embedder?: string;
  /** Why the operator's endpoint was dropped, or why the layer failed. */
  note?: string;
  /** Tools with a vector, and how many of them the last update embedded (the rest came from the cache). */
  tools?: number;
  embedded?: number;
  /** While loading: tools with a vector now, of all. */
  progress?: Progress;
}

export interface SemanticOptions {
  /** The catalog's tools now (pulled at start and after each change). */
  entries: () => SemanticEntry[];
  /** Where a line for the operator goes (atrium's stderr). */
  log?: (line: string) => void;
  /** Tests: another cache directory than the state directory's, or another worker build. */
  cacheDir?: string;
  workerPath?: string;
}

export class SemanticIndex {
  private worker?: Worker;
  private current: SemanticStatus;
  private readonly pending = new Map<number, (scores: ToolCosines | undefined) => void>();
  private offered?: VectorSet;
  private nextId = 0;
  private changeQueued = false;
  private readonly logged = new Set<string>();
  private readonly listeners = new Set<(s: SemanticStatus) => void>();

  constructor(private readonly config: SearchConfig, private readonly opts: SemanticOptions) {
    this.current = { state: config.semantic ? "idle" : "off" };
  }

  status(): SemanticStatus {
    return { ...this.current };
  }

  /** Calls `listener` on every change of state (tests and the log watch it). */
  onStatus(listener: (s: SemanticStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the worker (once; never when search.semantic is false). The model loads in it, off this thread. */
  start(): void {
    if (this.current.state !== "idle") return;
    const settings: WorkerSettings = {
      ...(this.config.embedder && { endpoint: this.config.embedder }),
      cacheDir: this.opts.cacheDir ?? vectorCacheDir(),
    };
    try {
      // stdout: true keeps whatever the model runtime prints off atrium's stdout (the protocol's).
      // Those streams are never read (reading a worker's stdio holds the process open): what the
      // runtime prints waits in the worker, unwritten.
      const worker = new Worker(this.opts.workerPath ?? embedWorkerPath, {
        workerData: settings, stdout: true, stderr: true, resourceLimits: { maxOldGenerationSizeMb: EMBED_WORKER_OLD_GENERATION_MB },
      });
      worker.on("message", (m: FromWorker) => this.receive(m));
      worker.on("error", (e) => this.fail(`the embedding worker failed: ${e.message}`));
      worker.on("exit", () => this.fail("the embedding worker stopped"));
      worker.unref(); // never what keeps atrium running (after the listeners: a message listener added later holds it again)
      this.worker = worker;
      this.set({ state: "loading" });
      this.post({ type: "update", entries: this.opts.entries() });
    } catch (e) {
      this.fail(`the embedding worker did not start: ${(e as Error).message}`);
    }
  }

  /** The catalog changed: its tools go to the worker once this turn of the event loop is over. */
  catalogChanged(): void {
    if (!this.worker || this.changeQueued) return;
    this.changeQueued = true;
    setImmediate(() => {
      this.changeQueued = false;
      this.post({ type: "update", entries: this.opts.entries() });
    });
  }

  /** Sends the tools now (what catalogChanged does a turn later). */
  update(entries: SemanticEntry[]): void {
    this.post({ type: "update", entries });
  }

  /**
   * Every tool's cosine with the best-matching phrasing (in the order of the tools the worker
   * named when it became ready; NaN where none); undefined
   * (at once) while the vectors are not ready (the model loads, or new or changed tools are
   * embedded), and the promise answers undefined when the worker
   * does not answer within EMBED_QUERY_WAIT_MS or fails. Never rejects. Phrasings are cut here
   * (EMBED_QUERIES_MAX of them, EMBED_QUERY_CHARS_MAX each) before they cross to the worker;
   * one without a letter or digit scores nothing (an empty map when none has one).
   */
  scores(queries: readonly string[]): Promise<ToolCosines | undefined> | undefined {
    if (!this.worker || this.current.state !== "ready") return undefined;
    const phrasings = queries.slice(0, EMBED_QUERIES_MAX).map((q) => (typeof q === "string" ? q.slice(0, EMBED_QUERY_CHARS_MAX) : ""));
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, undefined), EMBED_QUERY_WAIT_MS);
      timer.unref();
      this.pending.set(id, (scores) => {
        clearTimeout(timer);
        resolve(scores);
      });
      this.post({ type: "scores", id, queries: phrasings });
    });
  }

  /** Ends the worker (tests; atrium's exit ends it anyway). */
  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    for (const id of [...this.pending.keys()]) this.settle(id, undefined);
    if (w) await w.terminate();
  }

  private post(m: ToWorker): void {
    try {
      this.worker?.postMessage(m);
    } catch (e) {
      this.fail(`the embedding worker could not be reached: ${(e as Error).message}`);
    }
  }

  private settle(id: number, scores: ToolCosines | undefined): void {
    const done = this.pending.get(id);
    this.pending.delete(id);
    done?.(scores);
  }

  private receive(m: FromWorker): void {
    if (m.type === "scores") {
      const set = this.offered;
      return this.settle(m.id, m.cosines && set && m.generation === set.generation && m.cosines.length === set.addresses.length ? { generation: set.generation, addresses: set.addresses, cosines: m.cosines } : undefined);
    }
    if (m.note) this.logOnce(m.note);
    if (m.set) this.offered = m.set;
    this.set({
      state: m.state,
      ...((m.embedder ?? this.current.embedder) && { embedder: m.embedder ?? this.current.embedder }),
      ...((m.note ?? this.current.note) && { note: m.note ?? this.current.note }),
      ...(m.tools !== undefined && { tools: m.tools, embedded: m.embedded }),
      ...(m.progress && { progress: m.progress }),
    });
  }

  private fail(note: string): void {
    if (!this.worker || this.current.state === "failed") return;
    this.worker = undefined;
    for (const id of [...this.pending.keys()]) this.settle(id, undefined);
    this.logOnce(`${note}; search ranks lexically`);
    this.set({ ...this.current, state: "failed", note });
  }

  private logOnce(line: string): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    (this.opts.log ?? ((l: string) => process.stderr.write(`atrium: semantic search: ${l}\n`)))(line);
  }

  private set(s: SemanticStatus): void {
    this.current = s;
    for (const l of this.listeners) l(this.status());
  }
}
