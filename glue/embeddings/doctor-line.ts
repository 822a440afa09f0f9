// The line `atrium doctor` writes about search's semantic layer: off, the bundled model (its
// files checked, not loaded: serve loads it in the background), or the operator's endpoint, which
// doctor asks for one vector; an endpoint that fails is reported as dropped, with the reason and
// the bundled model that serve uses instead, and counts as a problem. Then how far the catalog's
// tools are embedded for the model that serves: the ones whose vector is in the on-disk cache
// (atrium serve writes it as it goes, every EMBED_CACHE_SAVE_TOOLS tools).
import { EMBED_TOOLS_MAX } from "../decisions/generated/spec.js";
import type { SearchConfig } from "../config/schema.js";
import { bundledModelFiles } from "./bundled.js";
import { connectEndpoint, endpointName } from "./endpoint.js";
import type { SemanticEntry } from "./tool-text.js";
import { cachedCount, vectorCacheDir, vectorKey } from "./vector-cache.js";

/** `entries`: the catalog's tools as the semantic layer embeds them; `cacheDir`: tests only. */
export async function semanticReport(search: SearchConfig, catalog: readonly SemanticEntry[], cacheDir = vectorCacheDir()): Promise<{ lines: string[]; problem: boolean }> {
  const entries = catalog.slice(0, EMBED_TOOLS_MAX); // the tools that get a vector
  if (!search.semantic) return { lines: ["search: lexical only (atrium.search.semantic is false)"], problem: false };
  const bundled = bundledModelFiles();
  const fallback = bundled.ok ? `the bundled model (${bundled.id})` : "lexical ranking only";
  const progress = (modelId: string) => progressLine(entries, cachedCount(cacheDir, modelId, entries.map((e) => vectorKey(modelId, e.text))));
  if (search.embedder) {
    try {
      const e = await connectEndpoint(search.embedder);
      return { lines: [`search: lexical + semantic, by the embedding endpoint ${endpointName(search.embedder)}: answered ${e.dims}-dimension vectors`, progress(e.id)], problem: false };
    } catch (e) {
      return {
        lines: [`search: ! the embedding endpoint ${endpointName(search.embedder)} is dropped: ${(e as Error).message}`, `     atrium serve falls back to ${fallback}; fix or remove atrium.search.embedder`, ...(bundled.ok ? [progress(bundled.id)] : [])],
        problem: true,
      };
    }
  }
  if (!bundled.ok) return { lines: [`search: ! lexical only: ${bundled.reason}`], problem: true };
  return { lines: [`search: lexical + semantic, by the bundled model ${bundled.id} (loaded in the background after atrium serve starts)`, progress(bundled.id)], problem: false };
}

const count = (n: number) => n.toLocaleString("en-US");

function progressLine(entries: readonly SemanticEntry[], done: number): string {
  const all = `     semantic: ${count(done)}/${count(entries.length)} tools embedded`;
  return done >= entries.length ? all : `${all}; atrium serve embeds the rest in the background, and search ranks by words alone until every tool has a vector`;
}
