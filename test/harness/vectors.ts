// Reading the semantic layer's numbers from tests and the benches (glue/embeddings/ keeps only what
// the server uses): a compact vector as the floats it stands for, and a scoring's cosines by address.
import type { Int8Vector } from "../../glue/embeddings/embedder.js";
import type { ToolCosines } from "../../glue/embeddings/tool-vectors.js";

/** The float vector a compact one stands for. */
export function dequantize(v: Int8Vector): Float32Array {
  return Float32Array.from(v.codes, (c) => c * v.scale);
}

/** address → cosine, for the tools that have one. */
export function cosinesByAddress(c: ToolCosines): Map<string, number> {
  const out = new Map<string, number>();
  c.addresses.forEach((a, i) => Number.isNaN(c.cosines[i]!) || out.set(a, c.cosines[i]!));
  return out;
}
