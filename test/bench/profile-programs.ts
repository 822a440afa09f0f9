// `npm run bench:profile -- [programs] [rows] [perf]`: where atrium's CPU goes on three-call
// programs (program-cpu.ts), 20 in flight over real stdio. By default atrium runs under
// `node --cpu-prof` (every thread writes its own profile when the process ends, start-up included)
// and this prints each thread's functions by self time. V8's profiler samples on the wall clock:
// on a busy machine a thread descheduled inside a call (a postMessage, a write) is charged for the
// wait. With `perf` last, Linux `perf record` attaches once atrium has run WARM programs and samples
// only while a thread is on a CPU (JIT frames named through --perf-basic-prof): CPU by thread, the
// main thread by area and by function, the sandbox workers by function.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { atriumBin, connectorsSettled, startAtrium } from "../harness/atrium-client.js";
import { waitFor } from "../harness/until.js";
import { PROFILED_CONFIG, THREE_CALLS, cpuMsOf } from "./program-cpu.js";

const PROGRAMS = Number(process.argv[2] ?? 2000);
const IN_FLIGHT = 20;
const TOP = Number(process.argv[3] ?? 25);
const PERF = process.argv[4] === "perf";
/** Programs run before perf attaches (so start-up and the JIT's first compiles are not in its profile). */
const WARM = 200;

/** Where the main thread's time goes, by what it does: a sample is charged to the leaf-most frame that matches one of these. */
const AREAS: [string, RegExp][] = [
  ["activity log", /\/activity\/|(^|[^a-z])log(-[\w-]+)?\.m?js|privateDir/],
  ["secret redaction", /secrets\/|scanPass|findSecrets|redactFields|redactToolResult|mapStrings|readJson|secretlint|report[A-Z]\w+/],
  ["calls/invoke.ts (gates, trace)", /invokeTraced|judge|pinGate|flowOf|payloadWithin|CallTrace|around|callsInFlight/],
  ["catalog (address, entries)", /locate|resolveWritten|viewOf|catalog\//],
  ["sandbox/bridge.ts", /RunBridge|callOne|downstreamValue|bridge/],
  ["sandbox/pool.ts", /start-pool|sandbox\/pool/],
  ["thread messages (worker ports)", /messageport|event_target|internal\/worker|postMessage|MessagePort/],
  ["zod (the SDK's validation)", /_zod|safeParse|zod/],
  ["MCP SDK (server, client, stdio)", /listenRouter|@modelcontextprotocol|server(-[\w-]+)?\.mjs|dist(-[\w-]+)?\.mjs|stdio(-[\w-]+)?\.mjs|deserializeMessage/],
  ["pipes (stdin, stdout, connectors)", /line-reader|bounded-stdio|stream_base|streams\/|node:net|onStreamRead|Socket/],
  ["JSON", /Json(Stringifier|Parser)|JSON/],
  ["garbage collection", /Scavenge|MarkCompact|Heap::|GCTracer|Sweeper/],
];

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const dir = mkdtempSync(join(tmpdir(), "atrium-profile-"));

/** `n` three-call programs, IN_FLIGHT at a time, through `call`. */
async function programs(call: (name: string, args: Record<string, unknown>) => Promise<unknown>, n: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next++ < n) {
      const r = (await call("execute_code", { code: THREE_CALLS })) as { structuredContent?: { ok?: boolean } };
      if (!r.structuredContent?.ok) throw new Error(`program failed: ${JSON.stringify(r.structuredContent)}`);
    }
  }));
}
/** Runs the measured programs; prints atrium's CPU per program and programs a second. */
async function measured(call: (name: string, args: Record<string, unknown>) => Promise<unknown>, pid: number): Promise<void> {
  const cpu0 = cpuMsOf(pid), t0 = performance.now();
  await programs(call, PROGRAMS);
  const cpu = cpuMsOf(pid) - cpu0, wall = performance.now() - t0;
  console.log(`${PROGRAMS} three-call programs, ${IN_FLIGHT} in flight: atrium CPU ${(cpu / PROGRAMS).toFixed(2)} ms a program, ${((PROGRAMS * 1000) / wall).toFixed(0)} programs/s`);
}
const gone = (p: number) => { try { process.kill(p, 0); return false; } catch { return true; } };

if (PERF) {
  // Steady state only: perf attaches once atrium has run WARM programs, and leaves before it closes.
  const a = await startAtrium({ config: PROFILED_CONFIG, env: { NODE_OPTIONS: "--perf-basic-prof" } });
  const pid = a.transport.pid!;
  await programs(a.call, WARM);
  const data = join(dir, "perf.data");
  const perf = spawn("perf", ["record", "-F", "997", "-g", "-p", String(pid), "-o", data], { stdio: "ignore" });
  await waitFor(() => existsSync(data), "perf recording");
  await measured(a.call, pid);
  perf.kill("SIGINT");
  await once(perf, "exit");
  await a.close();
  perfSummary(data, pid);
  console.log(`\nprofile in ${dir}`);
  process.exit(0);
}

writeFileSync(join(dir, "atrium.json"), JSON.stringify(PROFILED_CONFIG));
// --cpu-prof is refused in NODE_OPTIONS, so atrium is started here rather than by the harness.
const transport = new StdioClientTransport({ command: process.execPath, args: ["--cpu-prof", `--cpu-prof-dir=${dir}`, atriumBin, "--config", join(dir, "atrium.json")], cwd: dir, env: { ATRIUM_STATE_DIR: join(dir, "state") } });
const client = new Client({ name: "atrium-profile", version: "0.0.0" });
await client.connect(transport);
const call = (name: string, args: Record<string, unknown> = {}) => client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { timeout: 60_000 });
await connectorsSettled(call);
await measured(call, transport.pid!);
await client.close();
// The profiles are written as the process exits.
await waitFor(() => gone(transport.pid!), "atrium's profiles");

for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()) {
  const p = JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]!)!;
    const dt = p.timeDeltas[i + 1] ?? 0;
    const { functionName, url, lineNumber } = n.callFrame;
    if (functionName === "(idle)") continue;
    const key = `${functionName || "(anonymous)"} ${url.split("/").slice(-1)[0]}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  console.log(`\n${file}: ${(total / 1000).toFixed(0)} ms sampled (idle left out)`);
  for (const [k, us] of [...self].sort((x, y) => y[1] - x[1]).slice(0, TOP)) console.log(`  ${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}
console.log(`\nprofiles in ${dir}`);

/** perf's samples of one atrium: CPU by thread, the main thread by area and by nearest JS function, the sandbox workers by nearest JS function. */
function perfSummary(data: string, pid: number): void {
  const text = execFileSync("perf", ["script", "-i", data, "-F", "tid,ip,sym"], { encoding: "utf8", maxBuffer: 1 << 30 });
  const byThread = new Map<number, string[][]>();
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").map((l) => l.trim()).filter(Boolean);
    const tid = Number(lines.shift());
    if (!Number.isFinite(tid)) continue;
    const frames = lines.map((l) => l.replace(/^[0-9a-f]+ /, ""));
    byThread.set(tid, [...(byThread.get(tid) ?? []), frames]);
  }
  const total = [...byThread.values()].reduce((n, s) => n + s.length, 0);
  const workers = [...byThread].filter(([, s]) => s.some((f) => f.some((x) => x.includes("sandbox-worker")))).map(([t]) => t);
  const kind = (t: number) => (t === pid ? "main" : workers.includes(t) ? "sandbox worker" : "V8 and libuv helpers");
  const perKind = new Map<string, number>();
  for (const [t, s] of byThread) perKind.set(kind(t), (perKind.get(kind(t)) ?? 0) + s.length);
  const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1).padStart(5)} %`;
  console.log(`\nCPU by thread (${total} samples at 997 Hz):`);
  for (const [k, n] of [...perKind].sort((x, y) => y[1] - x[1])) console.log(`  ${pct(n, total)}  ${k}`);
  const name = (f: string) => f.replace(/^JS:[*^~+]?/, "").replace(/file:\/\/\/\S*\/(dist\/bundle|dist\/glue|node_modules)\//, "").replace(/-[\w-]{8}\.mjs/, ".mjs");
  const nearest = (samples: string[][]) => {
    const m = new Map<string, number>();
    for (const f of samples) { const js = f.find((x) => x.startsWith("JS:")); const k = js ? name(js) : "(no JS frame)"; m.set(k, (m.get(k) ?? 0) + 1); }
    return [...m].sort((x, y) => y[1] - x[1]).slice(0, TOP);
  };
  const main = byThread.get(pid) ?? [];
  const areas = new Map<string, number>();
  for (const f of main) {
    let k = "other (the event loop's own, node internals)";
    for (const x of f) { const hit = AREAS.find(([, re]) => re.test(x)); if (hit) { k = hit[0]; break; } }
    areas.set(k, (areas.get(k) ?? 0) + 1);
  }
  console.log(`\nmain thread by area (${main.length} samples):`);
  for (const [k, n] of [...areas].sort((x, y) => y[1] - x[1])) console.log(`  ${pct(n, main.length)}  ${k}`);
  console.log(`\nmain thread by nearest JS function (its native callees included):`);
  for (const [k, n] of nearest(main)) console.log(`  ${pct(n, main.length)}  ${k}`);
  const inWorkers = workers.flatMap((t) => byThread.get(t)!);
  console.log(`\nsandbox workers by nearest JS function (${inWorkers.length} samples; QuickJS's own wasm functions are unnamed):`);
  for (const [k, n] of nearest(inWorkers)) console.log(`  ${pct(n, inWorkers.length)}  ${k}`);
}
