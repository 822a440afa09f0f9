// End-to-end figures over real stdio: tools/list bytes, search_tools on a 10,000-tool catalog,
// call_tool round trip against the demo connector (spawn → initialize: startup.ts).
import { startAtrium, fixture, nodeServer, demoServer } from "../harness/atrium-client.js";
import { buildSearchIndex, searchIndex } from "../../glue/catalog/search-index.js";
import type { CatalogEntry } from "../../glue/catalog/entry.js";
import { stats, type Stats } from "./stats.js";

type Row = [string, Stats, string];

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<Stats> {
  const s: number[] = [];
  for (let i = 0; i < n; i++) { const t = performance.now(); await fn(i); s.push(performance.now() - t); }
  return stats(s);
}

export async function benchServer(): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const demo = { mcpServers: { desk: nodeServer(demoServer) } };

  const a = await startAtrium({ config: demo });
  const listed = await a.client.listTools();
  notes.push(`tools/list: ${Buffer.byteLength(JSON.stringify(listed))} bytes for ${listed.tools.length} meta-tools`);
  await a.json("search_tools", { query: "" });
  rows.push(["call_tool round trip (demo get_incident)", await timed(200, () => a.call("call_tool", { address: "desk.get_incident", args: { id: "INC-1042" }, resultMode: "value" })), "ms"]);
  // The same query, ranked by words alone and then by words and meaning once the bundled model's
  // vectors are in (each answer says which: `ranking`).
  const lexical = await startAtrium({ config: { ...demo, atrium: { search: { semantic: false } } } });
  rows.push(["search_tools round trip (demo catalog, lexical)", await timed(200, () => lexical.call("search_tools", { query: "service metrics" })), "ms"]);
  await lexical.close();
  const until = Date.now() + 60_000;
  while ((await a.json("search_tools", { query: "service metrics" })).ranking !== "hybrid" && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  const hybrid = (await a.json("search_tools", { query: "service metrics" })).ranking === "hybrid";
  rows.push([`search_tools round trip (demo catalog, ${hybrid ? "hybrid" : "hybrid not ready in 60 s: lexical"})`, await timed(200, () => a.call("search_tools", { query: "service metrics" })), "ms"]);
  await a.close();

  const big = await startAtrium({ config: { mcpServers: { many: nodeServer(fixture("many-tools-server"), { env: { FIXTURE_TOOL_COUNT: "10000" } }) } } });
  const t = performance.now();
  const first = await big.json("search_tools", { query: "" });
  notes.push(`10,000-tool catalog: first search (waits for listing + index build) ${(performance.now() - t).toFixed(0)} ms, total ${first.total}`);
  const queries = ["list issues", "create pull request", "search code", "get user profile", "delete file", "metrics latency", "send message channel", "calendar event"];
  rows.push(["search_tools over stdio, 10,000 tools", await timed(200, (i) => big.call("search_tools", { query: queries[i % queries.length] })), "ms"]);
  await big.close();

  const entries: CatalogEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
    address: `c${i % 20}.tool_${i}_${["list", "get", "create", "delete", "search"][i % 5]}_${["issue", "file", "user", "event", "metric", "message"][i % 6]}`,
    connectorId: `c${i % 20}`, name: `tool_${i}`, description: `Does thing ${i} with ${["issues", "files", "users", "events", "metrics", "messages"][i % 6]} in a realistic way`,
    inputSchema: { type: "object" }, safety: i % 3 ? "read_only" : "approval", reason: "annotated_read_only", maxResultBytes: 50_000, appVisibility: 0, appWrites: false,
  }));
  const b0 = performance.now();
  const index = buildSearchIndex(entries);
  notes.push(`search index build, 10,000 entries in-process: ${(performance.now() - b0).toFixed(0)} ms`);
  const ss: number[] = [];
  for (let i = 0; i < 2000; i++) { const t1 = performance.now(); searchIndex(index, { query: queries[i % queries.length] }); ss.push(performance.now() - t1); }
  rows.push(["search query in-process, 10,000 entries", stats(ss), "ms"]);
  return { rows, notes };
}
