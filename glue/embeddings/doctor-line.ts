// The line `atrium doctor` writes about search's semantic layer: off, the bundled model (its
// files checked, not loaded: serve loads it in the background), or the operator's endpoint, which
// doctor asks for one vector; an endpoint that fails is reported as dropped, with the reason and
// the bundled model that serve uses instead, and counts as a problem.
import type { SearchConfig } from "../config/schema.js";
import { bundledModelFiles } from "./bundled.js";
import { connectEndpoint, endpointName } from "./endpoint.js";

export async function semanticReport(search: SearchConfig): Promise<{ lines: string[]; problem: boolean }> {
  if (!search.semantic) return { lines: ["search: lexical only (atrium.search.semantic is false)"], problem: false };
  const bundled = bundledModelFiles();
  const fallback = bundled.ok ? `the bundled model (${bundled.id})` : "lexical ranking only";
  if (search.embedder) {
    try {
      const e = await connectEndpoint(search.embedder);
      return { lines: [`search: lexical + semantic, by the embedding endpoint ${endpointName(search.embedder)}: answered ${e.dims}-dimension vectors`], problem: false };
    } catch (e) {
      return {
        lines: [`search: ! the embedding endpoint ${endpointName(search.embedder)} is dropped: ${(e as Error).message}`, `     atrium serve falls back to ${fallback}; fix or remove atrium.search.embedder`],
        problem: true,
      };
    }
  }
  if (!bundled.ok) return { lines: [`search: ! lexical only: ${bundled.reason}`], problem: true };
  return { lines: [`search: lexical + semantic, by the bundled model ${bundled.id} (loaded in the background after atrium serve starts)`], problem: false };
}
