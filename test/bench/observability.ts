// What observability costs a request: three real `atrium serve --http` with the demo connector,
// side by side — metrics and tracing off (atrium.http.metrics false, no OTLP endpoint), metrics
// only (the default), and metrics with tracing (an OTLP endpoint: a local receiver that takes
// every batch) — answering the same requests in turn, so drift of the machine falls on all three.
// Figures only (median, p95), never asserted.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { nodeServer, demoServer } from "../harness/atrium-client.js";
import { startHttpAtrium, connectHttp, type HttpAtrium, type HttpClient } from "../harness/atrium-http.js";
import { stats, type Stats } from "./stats.js";
import { once, settled, type Measure } from "./http-calls.js";

const RUNS = 200;
const WARM = 10;
const MEASURES: Measure[] = [
  { label: "execute_code one host call", tool: "execute_code", args: { code: `async () => (await desk.get_incident({ id: "INC-1042" })).id` } },
  { label: "search_tools (lexical)", tool: "search_tools", args: { query: "service metrics" } },
];

export async function benchObservability(): Promise<{ rows: [string, Stats, string][]; notes: string[] }> {
  let batches = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => { batches++; res.writeHead(200, { "content-type": "application/json" }).end("{}"); });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const config = (metrics: boolean) => ({ mcpServers: { desk: nodeServer(demoServer) }, atrium: { log: { enabled: false }, search: { semantic: false }, http: { metrics } } });
  const variants: { label: string; config: ReturnType<typeof config>; env: Record<string, string> }[] = [
    { label: "off", config: config(false), env: {} },
    { label: "metrics", config: config(true), env: {} },
    { label: "metrics + traces", config: config(true), env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } },
  ];
  const servers: HttpAtrium[] = [];
  const clients: HttpClient[] = [];
  try {
    for (const v of variants) {
      const atrium = await startHttpAtrium({ config: v.config, env: v.env });
      servers.push(atrium);
      const client = await connectHttp(atrium.url, { revision: "2026-07-28" });
      clients.push(client);
      await settled(client.call);
    }
    const rows: [string, Stats, string][] = [];
    let failures = 0;
    for (const m of MEASURES) {
      const samples: number[][] = variants.map(() => []);
      for (let i = 0; i < WARM + RUNS; i++) {
        for (let k = 0; k < variants.length; k++) {
          const r = await once(clients[k].call, m);
          if (r.code) failures++;
          else if (i >= WARM) samples[k].push(r.ms);
        }
      }
      variants.forEach((v, k) => rows.push([`${m.label}, ${v.label}`, stats(samples[k]), "ms"]));
    }
    return { rows, notes: [`HTTP 2026-07-28, one client each, requests in turn; ${failures} failed answers; the receiver took ${batches} span batches`] };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map((s) => s.stop()));
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}
