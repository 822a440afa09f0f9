// Connector figures: a ten-call batch to the same real server over stdio and over Streamable
// HTTP side by side (server-everything's echo). The demo connector's own start beside the first
// programs: startup.ts.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { startAtrium, npmBin } from "../harness/atrium-client.js";
import { stats, type Stats } from "./stats.js";

type Row = [string, Stats, string];

const freePort = () => new Promise<number>((resolve) => { const s = createServer().listen(0, "127.0.0.1", () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); }); });

async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [npmBin("mcp-server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  await new Promise<void>((resolve) => child.stderr!.on("data", (c) => { if (String(c).includes("listening")) resolve(); }));
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

export async function benchConnectors(): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const { url, child } = await startEverythingHttp();
  try {
    const a = await startAtrium({
      config: {
        mcpServers: {
          local: { command: npmBin("mcp-server-everything"), args: ["stdio"] },
          remote: { url },
        },
      },
    });
    const batch = (id: string) => `async () => (await atrium.batch(Array.from({ length: 10 }, (_, i) => ({ address: "${id}.echo", args: { message: "m" + i } })))).filter((r) => r.ok).length`;
    const time = async (code: string, n: number) => {
      const s: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        const r: any = await a.call("execute_code", { code });
        s.push(performance.now() - t);
        if (r.structuredContent?.value !== 10) throw new Error(`bench batch failed: ${JSON.stringify(r.structuredContent)}`);
      }
      return stats(s);
    };
    await time(batch("local"), 5);
    await time(batch("remote"), 5);
    // Interleaved so both see the same machine load.
    const local: number[] = [], remote: number[] = [];
    for (let i = 0; i < 40; i++) {
      for (const [id, into] of [["local", local], ["remote", remote]] as const) {
        const t = performance.now();
        await a.call("execute_code", { code: batch(id) });
        into.push(performance.now() - t);
      }
    }
    const ls = stats(local), rs = stats(remote);
    rows.push(["ten-call batch, server-everything over stdio", ls, "ms"]);
    rows.push(["ten-call batch, server-everything over Streamable HTTP", rs, "ms"]);
    notes.push(`Streamable HTTP / stdio, ten-call batch medians: ${(rs.median / ls.median).toFixed(2)}×`);
    await a.close();
  } finally {
    child.kill();
  }

  return { rows, notes };
}
