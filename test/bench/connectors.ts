// Connector figures: a ten-call batch to the same real server over stdio and over Streamable
// HTTP side by side (server-everything's echo), and the demo connector's own start time next
// to the first program that touches it (the program waits for that connector alone).
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startAtrium, nodeServer, demoServer, npmBin } from "../harness/atrium-client.js";
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

  // The demo connector's own start time (spawn → initialize → tools/list with a bare client)
  // next to the first program that calls it, timed from atrium's initialize response.
  const own: number[] = [], first: number[] = [], bare: number[] = [];
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    const c = new Client({ name: "bench", version: "0" });
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [demoServer] }));
    await c.listTools();
    own.push(performance.now() - t);
    await c.close();

    const a = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer) } }, waitForConnectors: false });
    const t1 = performance.now();
    const r: any = await a.call("execute_code", { code: `async () => (await desk.list_services({})).services.length` });
    first.push(performance.now() - t1);
    if (!r.structuredContent?.ok) throw new Error(`bench program failed: ${JSON.stringify(r.structuredContent)}`);
    await a.close();

    const b = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer) } }, waitForConnectors: false });
    const t2 = performance.now();
    await b.call("execute_code", { code: "async () => 1" });
    bare.push(performance.now() - t2);
    await b.close();
  }
  rows.push(["demo connector's own start (spawn → tools/list, bare SDK client)", stats(own), "ms"]);
  rows.push(["first program after initialize, calling the demo connector", stats(first), "ms"]);
  rows.push(["first program after initialize, touching no connector", stats(bare), "ms"]);
  return { rows, notes };
}
