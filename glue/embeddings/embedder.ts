// The one shape every sentence embedder has (the bundled model, an operator's endpoint), and the
// vector arithmetic search needs: unit length, so cosine similarity is a dot product.

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

/** The cosine of two unit vectors of one width. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
