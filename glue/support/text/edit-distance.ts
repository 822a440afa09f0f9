// How many edits turn one short name into another, for "did you mean" hints (config keys,
// tool names). Quadratic in the lengths: callers pass names, never unbounded text.

/** Optimal string alignment distance: a swapped pair of letters counts as one edit. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const pi = i - 1, pj = j - 1; // the previous row and column
      const cost = a[pi] === b[pj] ? 0 : 1;
      d[i][j] = Math.min(d[pi][j] + 1, d[i][pj] + 1, d[pi][pj] + cost);
      // a[pi - 1] a[pi] swapped is b[pj - 1] b[pj]: one edit from two rows and columns back
      if (pi > 0 && pj > 0 && a[pi] === b[pj - 1] && a[pi - 1] === b[pj]) d[i][j] = Math.min(d[i][j], d[pi - 1][pj - 1] + 1);
    }
  }
  return d[a.length][b.length];
}
