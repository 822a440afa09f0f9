// `npm run bench:compare -- <other checkout>`: this build against another built checkout (its
// `npm run build` done), side by side on one machine, so a busy machine's drift falls on both.
// Two atriums are up at once (demo connector): programs alternate between them one by one for
// the execute_code rows (no-op, one host call, ten-call batch: medians and p95), and windows
// alternate which one carries 20 three-call programs in flight for atrium's own CPU per program
// and programs a second (medians over the windows, and of this build's over the other's per pair).
import { PROFILED_CONFIG, THREE_CALLS, cpuMsOf } from "./program-cpu.js";
import { stats } from "./stats.js";

const other = process.argv[2];
if (!other) throw new Error("usage: npm run bench:compare -- <path of another built checkout>");
const here = new URL("../../..", import.meta.url).pathname;
const PROGRAMS = 200;
const PAIRS = 12;
const WINDOW_MS = 5000;
const IN_FLIGHT = 20;

interface Side { name: string; call(name: string, args: Record<string, unknown>): Promise<any>; pid: number; close(): Promise<void> }
/** An atrium of the checkout at `root`, started by that checkout's own harness (its bin, its demo connector), with this bench's config. */
async function start(root: string, name: string): Promise<Side> {
  const { startAtrium, nodeServer, demoServer } = await import(`${root}/dist/test/harness/atrium-client.js`);
  const a = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer) }, atrium: { ...PROFILED_CONFIG.atrium, sandbox: { hostCalls: 200 } } } });
  return { name, call: a.call, pid: a.transport.pid, close: () => a.close() };
}
const ok = (r: any) => { if (!r.structuredContent?.ok) throw new Error(`bench program failed: ${JSON.stringify(r.structuredContent)}`); };
const once = async (s: Side, code: string) => { const t = performance.now(); ok(await s.call("execute_code", { code })); return performance.now() - t; };
const median = (xs: number[]) => stats(xs).median;

const sides = [await start(here, "this build"), await start(other, "the other")];
const programs: [string, string][] = [
  ["no-op", "async () => 1"],
  ["one host call", `async () => (await desk.get_incident({ id: "INC-1042" })).id`],
  ["ten-call batch", `async () => (await atrium.batch(Array.from({ length: 10 }, (_, i) => ({ address: "desk.get_incident", args: { id: "INC-" + (1041 + i) } })))).length`],
];
console.log(`execute_code over real stdio, ${PROGRAMS} programs each, alternating (ms):`);
for (const [name, code] of programs) {
  const t: number[][] = [[], []];
  for (let i = 0; i < PROGRAMS + 10; i++) for (const k of i % 2 ? [1, 0] : [0, 1]) { const ms = await once(sides[k]!, code); if (i >= 10) t[k]!.push(ms); }
  const [a, b] = t.map(stats);
  console.log(`  ${name}: this build ${a!.median.toFixed(2)} (p95 ${a!.p95.toFixed(1)}), the other ${b!.median.toFixed(2)} (p95 ${b!.p95.toFixed(1)}); ratio ${(a!.median / b!.median).toFixed(2)}`);
}

/** One window of IN_FLIGHT three-call programs on one side: its CPU per program and programs a second. */
async function window(s: Side, ms: number) {
  let stop = false, done = 0;
  const cpu0 = cpuMsOf(s.pid), t0 = performance.now();
  const timer = setTimeout(() => { stop = true; }, ms);
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (!stop) { ok(await s.call("execute_code", { code: THREE_CALLS })); done++; } }));
  clearTimeout(timer);
  return { cpu: (cpuMsOf(s.pid) - cpu0) / done, rate: (done * 1000) / (performance.now() - t0) };
}
for (const s of sides) await window(s, WINDOW_MS);
const w = sides.map(() => ({ cpu: [] as number[], rate: [] as number[] }));
for (let p = 0; p < PAIRS; p++) for (const k of p % 2 ? [1, 0] : [0, 1]) { const r = await window(sides[k]!, WINDOW_MS); w[k]!.cpu.push(r.cpu); w[k]!.rate.push(r.rate); }
const ratio = (m: "cpu" | "rate") => median(w[0]![m].map((x, i) => x / w[1]![m][i]!));
console.log(`three-call programs, ${IN_FLIGHT} in flight, ${PAIRS} alternating windows of ${WINDOW_MS / 1000} s:`);
for (const [k, s] of sides.entries()) console.log(`  ${s.name}: atrium's own CPU ${median(w[k]!.cpu).toFixed(2)} ms a program, ${median(w[k]!.rate).toFixed(0)} programs a second`);
console.log(`  this build over the other, median of the pairs: CPU ${ratio("cpu").toFixed(2)}, programs a second ${ratio("rate").toFixed(2)}`);
for (const s of sides) await s.close();
