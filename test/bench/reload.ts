// Live reload figures: from writing atrium.json to the added connector answering its first call
// through atrium, and to a removed connector's address being refused, over real stdio. Both
// include the watcher's quiet time (CONFIG_RELOAD_DEBOUNCE_MS) and, for an addition, the new
// server's start.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAtrium, fixture, nodeServer } from "../harness/atrium-client.js";
import { stats, type Stats } from "./stats.js";
import { CONFIG_RELOAD_DEBOUNCE_MS } from "../../glue/decisions/generated/spec.js";

type Row = [string, Stats, string];
const RUNS = 10;

export async function benchReload(): Promise<{ rows: Row[]; notes: string[] }> {
  const gate = (label: string) => nodeServer(fixture("gate-server"), { args: [fixture("gate-server"), label] });
  const one = { mcpServers: { a: gate("A") } };
  const two = { mcpServers: { a: gate("A"), b: gate("B") } };
  const a = await startAtrium({ config: one });
  const file = join(a.dir, "atrium.json");
  const code = async () => ((await a.call("call_tool", { address: "b.whoami", args: {} })).structuredContent as any)?.error?.code as string | undefined;
  const added: number[] = [], removed: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      writeFileSync(file, JSON.stringify(two));
      while ((await code()) !== undefined);
      added.push(performance.now() - t);
      t = performance.now();
      writeFileSync(file, JSON.stringify(one));
      while ((await code()) !== "unknown_address");
      removed.push(performance.now() - t);
    }
  } finally {
    await a.close();
  }
  return {
    rows: [
      ["edit adds a connector → its first call answers", stats(added), "ms"],
      ["edit removes a connector → its address is refused", stats(removed), "ms"],
    ],
    notes: [`both include the ${CONFIG_RELOAD_DEBOUNCE_MS} ms quiet time after the write (CONFIG_RELOAD_DEBOUNCE_MS)`],
  };
}
