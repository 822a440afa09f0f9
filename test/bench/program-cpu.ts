// atrium's own CPU per three-call program, and programs a second, with 20 programs in flight over
// real stdio (demo connector). The CPU is read from /proc (user + system, every thread of the
// atrium process: the sandbox workers are its threads; the demo connector is a child process, not
// counted), so it holds on a busy machine better than the wall clock does.
import { readFileSync } from "node:fs";
import { startAtrium, nodeServer, demoServer } from "../harness/atrium-client.js";
import { stats, type Stats } from "./stats.js";

type Row = [string, Stats, string];
const IN_FLIGHT = 20;
const PER_ROUND = 400;
const ROUNDS = 5;
/** Clock ticks a second in /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;
/** The demo connector; no search model (these programs never search, and its load is not a program's). */
export const PROFILED_CONFIG = { mcpServers: { desk: nodeServer(demoServer) }, atrium: { search: { semantic: false } } };
export const THREE_CALLS = `async () => { const a = await desk.get_incident({ id: "INC-1041" }); const b = await desk.get_incident({ id: "INC-1042" }); const s = await desk.list_services({}); return [a.id, b.id, s.services.length]; }`;

/** The process's CPU so far, in milliseconds (user + system, every thread). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command's closing parenthesis, utime and stime are the 12th and 13th fields.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
}

export async function benchProgramCpu(): Promise<{ rows: Row[]; notes: string[] }> {
  const a = await startAtrium({ config: PROFILED_CONFIG });
  const pid = a.transport.pid!;
  const run = async () => {
    const r: any = await a.call("execute_code", { code: THREE_CALLS });
    if (!r.structuredContent?.ok) throw new Error(`bench program failed: ${JSON.stringify(r.structuredContent)}`);
  };
  /** `n` programs, `IN_FLIGHT` at a time: atrium's CPU per program and programs a second. */
  const round = async (n: number) => {
    let next = 0;
    const cpu0 = cpuMsOf(pid), t0 = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (next++ < n) await run(); }));
    return { cpuMs: (cpuMsOf(pid) - cpu0) / n, perS: (n * 1000) / (performance.now() - t0) };
  };
  await round(IN_FLIGHT * 5); // steady state
  const cpu: number[] = [], rate: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const r = await round(PER_ROUND);
    cpu.push(r.cpuMs);
    rate.push(r.perS);
  }
  await a.close();
  return {
    rows: [
      [`atrium CPU per three-call program, ${IN_FLIGHT} in flight`, stats(cpu), "ms"],
      [`three-call programs a second, ${IN_FLIGHT} in flight`, stats(rate), "/s"],
    ],
    notes: [`${ROUNDS} rounds of ${PER_ROUND} programs; median and p95 over rounds (a program: two get_incident and one list_services, awaited in turn)`],
  };
}
