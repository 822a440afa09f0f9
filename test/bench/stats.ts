// Median and p95 over repeated samples; the bench prints figures, never asserts them.
export interface Stats { median: number; p95: number; n: number }

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p95: at(0.95), n: s.length };
}

export function table(title: string, rows: [string, Stats, string][]): string {
  const w = Math.max(...rows.map((r) => r[0].length));
  const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  return [`${title}`, `  ${"measure".padEnd(w)}  ${"median".padStart(9)}  ${"p95".padStart(9)}  unit   runs`, ...rows.map(([name, st, unit]) => `  ${name.padEnd(w)}  ${fmt(st.median).padStart(9)}  ${fmt(st.p95).padStart(9)}  ${unit.padEnd(5)}  ${st.n}`)].join("\n");
}
