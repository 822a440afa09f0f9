// The embedding worker (node:worker_threads): brings up the operator's endpoint or the bundled
// model, keeps the tool vectors (tool-vectors.ts) current with the catalog the main thread
// sends, and answers cosine scores for a search's phrasings. An endpoint that fails at any point
// (an error, a deadline, a wrong width, a bad answer) is dropped for good and the bundled model
// takes over, re-embedding the tools in its own space; until then scores are not offered, nor
// while the tools of a catalog change are embedded (the main thread hears how far after each
// batch). Cosines go back as one transferred Float32Array, in the order of the tools the ready
// state named.
import { parentPort, workerData } from "node:worker_threads";
import { loadBundledEmbedder } from "./bundled.js";
import type { Embedder } from "./embedder.js";
import { connectEndpoint, endpointName } from "./endpoint.js";
import type { FromWorker, ToWorker, WorkerSettings } from "./protocol.js";
import type { SemanticEntry } from "./tool-text.js";
import { ToolVectors } from "./tool-vectors.js";
import { VectorCache } from "./vector-cache.js";

const settings = workerData as WorkerSettings;
const port = parentPort!;
const send = (m: FromWorker) => port.postMessage(m);

interface Active { embedder: Embedder; vectors: ToolVectors; name: string; endpoint: boolean; ready: boolean }
let active: Active | undefined;
let latest: SemanticEntry[] = [];
let endpointDropped: string | undefined;
let failed = false;

async function bringUp(): Promise<void> {
  if (settings.endpoint && endpointDropped === undefined) {
    try {
      const embedder = await connectEndpoint(settings.endpoint);
      return use(embedder, `endpoint ${endpointName(settings.endpoint)}, ${embedder.dims} dims`, true);
    } catch (e) {
      endpointDropped = `embedding endpoint ${endpointName(settings.endpoint)} dropped: ${(e as Error).message}; using the bundled model`;
      send({ type: "state", state: "loading", note: endpointDropped });
    }
  }
  try {
    const embedder = await loadBundledEmbedder();
    use(embedder, `bundled ${embedder.id}, ${embedder.dims} dims`, false);
  } catch (e) {
    failed = true;
    send({ type: "state", state: "failed", note: `the bundled model did not load: ${(e as Error).message}` });
  }
}

function use(embedder: Embedder, name: string, endpoint: boolean): void {
  const cache = new VectorCache(settings.cacheDir, embedder.id, embedder.dims);
  cache.load();
  active = { embedder, vectors: new ToolVectors(embedder, cache), name, endpoint, ready: false };
  send({ type: "state", state: "loading", embedder: name, ...(endpointDropped && { note: endpointDropped }) });
  void rebuild();
}

async function rebuild(): Promise<void> {
  const a = active;
  if (!a) return;
  try {
    // While new or changed tools are embedded the index is not offered: a partial one would lift
    // the tools that already have a vector over the new ones. Search is lexical meanwhile.
    let first = true;
    // Heard first, then after each batch: a ready index says loading when there is anything to
    // embed; each batch but the last says how far it is (the last is followed by ready).
    const counts = await a.vectors.update(latest, ({ done, total, toEmbed }) => {
      const opening = first;
      first = false;
      if (a !== active || toEmbed === 0 || (opening && !a.ready)) return;
      a.ready = false;
      send({ type: "state", state: "loading", embedder: a.name, progress: { done, total }, ...(endpointDropped && { note: endpointDropped }) });
    });
    if (!counts || a !== active) return;
    a.ready = true;
    const set = { generation: a.vectors.generation, addresses: [...a.vectors.tools] };
    send({ type: "state", state: "ready", embedder: a.name, tools: counts.tools, embedded: counts.embedded, cached: counts.cached, set, ...(endpointDropped && { note: endpointDropped }) });
  } catch (e) {
    fault(a, e);
  }
}

/** A failing endpoint is dropped for the bundled model; a failing bundled model ends the semantic layer. */
function fault(a: Active, e: unknown): void {
  if (a !== active) return;
  active = undefined;
  if (a.endpoint && settings.endpoint) {
    endpointDropped = `embedding endpoint ${endpointName(settings.endpoint)} dropped: ${(e as Error).message}; using the bundled model`;
    send({ type: "state", state: "loading", note: endpointDropped });
    void bringUp();
  } else {
    failed = true;
    send({ type: "state", state: "failed", note: `the bundled model failed: ${(e as Error).message}` });
  }
}

port.on("message", (m: ToWorker) => {
  if (m.type === "update") {
    latest = m.entries;
    void rebuild();
    return;
  }
  const a = active;
  if (!a || !a.ready || failed) return send({ type: "scores", id: m.id });
  a.vectors.scores(m.queries).then(
    ({ generation, cosines }) => {
      // A catalog change may have begun while the phrasings were embedded: then nothing is offered.
      if (!a.ready || a !== active || generation !== a.vectors.generation) return send({ type: "scores", id: m.id });
      port.postMessage({ type: "scores", id: m.id, generation, cosines } satisfies FromWorker, [cosines.buffer as ArrayBuffer]);
    },
    (e) => {
      send({ type: "scores", id: m.id });
      fault(a, e);
    },
  );
});

void bringUp();
