// The one shape every sentence embedder has (the bundled model, an operator's endpoint), and the
// vector arithmetic search needs: unit length, so cosine similarity is a dot product; and the
// compact form tool vectors are kept in (int8 codes and one scale per vector, a quarter of float32).
import { EMBED_CODE_MAX } from "../decisions/generated/spec.js";

/** Turns texts into vectors of one width; each model's vectors are comparable only with its own. */
export interface Embedder {
  /** Names the model (and where it runs): the disk cache keys vectors by it. */
  readonly id: string;
  /** Width of every vector this embedder returns. */
  readonly dims: number;
  /** One vector per text, in order; rejects when the model or the endpoint fails. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** The vector scaled to length 1 in place (a zero vector stays zero). */
export function unitLength(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

/** A vector kept compactly: component i is about codes[i] × scale (codes within ±EMBED_CODE_MAX). */
export interface Int8Vector { readonly codes: Int8Array; readonly scale: number }

/** The vector as int8 codes scaled to its largest component (a zero vector: zero codes, scale 0). */
export function quantize(v: Float32Array): Int8Vector {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const codes = new Int8Array(v.length);
  if (!(max > 0)) return { codes, scale: 0 };
  const scale = max / EMBED_CODE_MAX;
  for (let i = 0; i < v.length; i++) codes[i] = Math.round(v[i]! / scale);
  return { codes, scale };
}

