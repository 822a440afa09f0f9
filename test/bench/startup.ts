// Start-up figures over real stdio: spawn → atrium's initialize answer (the bundled CLI, demo
// config; nothing waits for connectors, the sandbox workers or the search model, which all start
// after the answer), beside the demo connector's own start with a bare SDK client (to its
// initialize answer, and to its tools/list), and the first program after initialize, calling the
// demo connector or touching none (each waits for the connector it names and a sandbox worker).
// Runs interleaved, so a machine that gets busier slows every row alike. ATRIUM_BENCH_BEFORE=<the
// folder of another atrium build> adds its initialize and first programs to the same rounds.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startAtrium, nodeServer, demoServer } from "../harness/atrium-client.js";
import { stats, type Stats } from "./stats.js";

type Row = [string, Stats, string];

const RUNS = 25;

export async function benchStartup(): Promise<{ rows: Row[]; notes: string[] }> {
  const demo = { mcpServers: { desk: nodeServer(demoServer) } };
  const init: number[] = [], ownInit: number[] = [], ownList: number[] = [], first: number[] = [], bare: number[] = [];
  const beforeDir = process.env.ATRIUM_BENCH_BEFORE;
  const before = { init: [] as number[], first: [] as number[], bare: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    if (beforeDir) await atriumRound(join(beforeDir, "bin/atrium.js"), before);
    await atriumRound(undefined, { init, first, bare });

    const t0 = performance.now();
    const c = new Client({ name: "bench", version: "0" });
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [demoServer] }));
    ownInit.push(performance.now() - t0);
    await c.listTools();
    ownList.push(performance.now() - t0);
    await c.close();
  }
  const rows: Row[] = [
    ["spawn → initialize response (demo config)", stats(init), "ms"],
    ["demo connector's own start: spawn → initialize response (bare SDK client)", stats(ownInit), "ms"],
    ["demo connector's own start: spawn → tools/list (bare SDK client)", stats(ownList), "ms"],
    ["first program after initialize, calling the demo connector", stats(first), "ms"],
    ["first program after initialize, touching no connector", stats(bare), "ms"],
  ];
  const notes = [
    `atrium's initialize / the demo connector's own initialize, medians: ${(stats(init).median / stats(ownInit).median).toFixed(2)}×; / its own spawn → tools/list: ${(stats(init).median / stats(ownList).median).toFixed(2)}×`,
  ];
  if (beforeDir) {
    rows.push([`before (${beforeDir}): spawn → initialize response`, stats(before.init), "ms"]);
    rows.push([`before: first program after initialize, calling the demo connector`, stats(before.first), "ms"]);
    rows.push([`before: first program after initialize, touching no connector`, stats(before.bare), "ms"]);
    notes.push(`before's initialize / the demo connector's own initialize, medians: ${(stats(before.init).median / stats(ownInit).median).toFixed(2)}×; this build's / before's: ${(stats(init).median / stats(before.init).median).toFixed(2)}×`);
  }
  return { rows, notes };

  /** One round of an atrium build (`bin`; this repo's by default): spawn → initialize, then a fresh one's first program with and without the connector. */
  async function atriumRound(bin: string | undefined, into: { init: number[]; first: number[]; bare: number[] }): Promise<void> {
    const t = performance.now();
    const a = await startAtrium({ config: demo, waitForConnectors: false, bin }); // resolves when the initialize response is in
    into.init.push(performance.now() - t);
    await a.close();

    const b = await startAtrium({ config: demo, waitForConnectors: false, bin });
    const t1 = performance.now();
    const r: any = await b.call("execute_code", { code: `async () => (await desk.list_services({})).services.length` });
    into.first.push(performance.now() - t1);
    if (!r.structuredContent?.ok) throw new Error(`bench program failed: ${JSON.stringify(r.structuredContent)}`);
    await b.close();

    const n = await startAtrium({ config: demo, waitForConnectors: false, bin });
    const t2 = performance.now();
    await n.call("execute_code", { code: "async () => 1" });
    into.bare.push(performance.now() - t2);
    await n.close();
  }
}
