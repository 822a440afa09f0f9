// `npm run bench:profile [programs] [rows] [perf]`: where atrium's CPU goes on three-call programs
// (program-cpu.ts), 20 in flight over real stdio. atrium runs under `node --cpu-prof` (every thread
// writes its own profile when the process ends) and this prints each thread's functions by self
// time, the most first. V8's profiler samples on the wall clock: on a busy machine a thread that is
// descheduled inside a call (a postMessage, a write) is charged for the wait. With `perf` last,
// atrium runs under Linux `perf record` instead (samples only while a thread is on a CPU; JIT
// frames named through --perf-basic-prof), and the summary is perf's own, by thread and symbol.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { atriumBin, connectorsSettled } from "../harness/atrium-client.js";
import { waitFor, waitForValue } from "../harness/until.js";
import { PROFILED_CONFIG, THREE_CALLS, cpuMsOf } from "./program-cpu.js";

const PROGRAMS = Number(process.argv[2] ?? 2000);
const IN_FLIGHT = 20;
const TOP = Number(process.argv[3] ?? 25);
const PERF = process.argv[4] === "perf";

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const dir = mkdtempSync(join(tmpdir(), "atrium-profile-"));
writeFileSync(join(dir, "atrium.json"), JSON.stringify(PROFILED_CONFIG));
// --cpu-prof is refused in NODE_OPTIONS, so atrium is started here rather than by the harness.
const atriumArgs = [atriumBin, "--config", join(dir, "atrium.json")];
const transport = PERF
  ? new StdioClientTransport({ command: "perf", args: ["record", "-F", "997", "-g", "-o", join(dir, "perf.data"), "--", process.execPath, "--perf-basic-prof", ...atriumArgs], cwd: dir, env: { ATRIUM_STATE_DIR: join(dir, "state"), PATH: process.env.PATH ?? "" } })
  : new StdioClientTransport({ command: process.execPath, args: ["--cpu-prof", `--cpu-prof-dir=${dir}`, ...atriumArgs], cwd: dir, env: { ATRIUM_STATE_DIR: join(dir, "state") } });
const client = new Client({ name: "atrium-profile", version: "0.0.0" });
await client.connect(transport);
const call = (name: string, args: Record<string, unknown> = {}) => client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { timeout: 60_000 });
await connectorsSettled(call);
/** atrium's pid: perf's child when perf runs it. */
const pid = PERF ? await waitForValue(() => { try { return Number(readFileSync(`/proc/${transport.pid}/task/${transport.pid}/children`, "utf8").trim().split(" ")[0]) || undefined; } catch { return undefined; } }, "atrium under perf") : transport.pid!;
let next = 0;
const cpu0 = cpuMsOf(pid), t0 = performance.now();
await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
  while (next++ < PROGRAMS) {
    const r: any = await call("execute_code", { code: THREE_CALLS });
    if (!r.structuredContent?.ok) throw new Error(`program failed: ${JSON.stringify(r.structuredContent)}`);
  }
}));
const cpu = cpuMsOf(pid) - cpu0, wall = performance.now() - t0;
console.log(`${PROGRAMS} three-call programs, ${IN_FLIGHT} in flight: atrium CPU ${(cpu / PROGRAMS).toFixed(2)} ms a program, ${((PROGRAMS * 1000) / wall).toFixed(0)} programs/s`);
await client.close();
// The profiles are written as the process exits.
const gone = (p: number) => { try { process.kill(p, 0); return false; } catch { return true; } };
await waitFor(() => gone(pid) && gone(transport.pid!), "atrium's profiles");
if (PERF) {
  const report = (sort: string) => execFileSync("perf", ["report", "-i", join(dir, "perf.data"), "--no-children", "--sort", sort, "--stdio", "--percent-limit", "0.3"], { encoding: "utf8", maxBuffer: 1 << 26 })
    .split("\n").filter((l) => l && !l.startsWith("#") && /^\s+\d/.test(l)).slice(0, TOP).join("\n");
  console.log(`\nby thread:\n${report("tid")}\n\nby symbol (self, every thread):\n${report("sym")}\n\nprofile in ${dir}`);
  process.exit(0);
}

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
