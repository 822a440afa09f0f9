// execute_code figures over real stdio: no-op, one host call, a ten-call batch, 100
// sequential host calls, and two programs in parallel (first programs: connectors.ts).
import { startAtrium, nodeServer, demoServer } from "../harness/atrium-client.js";
import { stats, type Stats } from "./stats.js";

type Row = [string, Stats, string];
const config = { mcpServers: { desk: nodeServer(demoServer) }, atrium: { sandbox: { hostCalls: 200 } } };

export async function benchPrograms(): Promise<Row[]> {
  const rows: Row[] = [];
  const a = await startAtrium({ config });
  const time = async (n: number, code: string) => {
    const s: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const r: any = await a.call("execute_code", { code });
      s.push(performance.now() - t);
      if (!r.structuredContent?.ok) throw new Error(`bench program failed: ${JSON.stringify(r.structuredContent)}`);
    }
    return stats(s);
  };
  await time(5, "async () => 1"); // steady state
  rows.push(["execute_code no-op", await time(100, "async () => 1"), "ms"]);
  rows.push(["execute_code, one host call", await time(100, `async () => (await desk.get_incident({ id: "INC-1042" })).id`), "ms"]);
  rows.push(["execute_code, ten-call batch", await time(50, `async () => (await atrium.batch(Array.from({ length: 10 }, (_, i) => ({ address: "desk.get_incident", args: { id: "INC-" + (1041 + i) } })))).length`), "ms"]);
  rows.push(["execute_code, 100 sequential host calls", await time(10, `async () => { let n = 0; for (let i = 0; i < 100; i++) n += (await desk.list_services({})).services.length; return n; }`), "ms"]);
  const par: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    await Promise.all([1, 2].map(() => a.call("execute_code", { code: `async () => (await desk.list_incidents({ limit: 5 })).incidents.length` })));
    par.push(performance.now() - t);
  }
  rows.push(["two programs in parallel (both done)", stats(par), "ms"]);
  await a.close();
  return rows;
}
