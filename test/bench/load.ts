// Load figures: 200 programs sent at once (quick ones and ones that wait on a slow tool):
// how many finished, how many were refused executor_overloaded, the worst latency, and the
// server's peak resident memory (VmHWM) read from /proc.
import { readFileSync } from "node:fs";
import { startAtrium, fixture, nodeServer } from "../harness/atrium-client.js";
import { stats, type Stats } from "./stats.js";

type Row = [string, Stats, string];

function peakRssMb(pid: number | null): string {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? `${(Number(m[1]) / 1024).toFixed(0)} MB` : "n/a";
  } catch {
    return "n/a";
  }
}

export async function benchLoad(): Promise<{ rows: Row[]; notes: string[] }> {
  const a = await startAtrium({ config: { mcpServers: { nasty: nodeServer(fixture("nasty-server"), { timeoutMs: 60_000 }) } } });
  const latencies: number[] = [];
  let ok = 0, overloaded = 0, other = 0;
  await Promise.all(Array.from({ length: 200 }, async (_, i) => {
    const code = i % 4 === 0 ? `async () => (await atrium.call("nasty.slow", { ms: 200 })).waited` : `async () => (await nasty.echo({ i: ${i} })).args.i`;
    const t = performance.now();
    const r: any = await a.call("execute_code", { code }, 120_000);
    latencies.push(performance.now() - t);
    if (r.structuredContent?.ok) ok++;
    else if (r.structuredContent?.error?.code === "executor_overloaded") overloaded++;
    else other++;
  }));
  const notes = [`200 programs: ${ok} finished, ${overloaded} refused executor_overloaded (retryable), ${other} other; atrium peak RSS ${peakRssMb(a.transport.pid)}`];
  await a.close();
  return { rows: [["program latency under a 200-program burst", stats(latencies), "ms"]], notes };
}
