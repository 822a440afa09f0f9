// The interoperability matrix (issue 10): {2025-11-25 client, 2026-07-28 client} ×
// {2025-11-25 connector, 2026-07-28 connector} × {stdio, Streamable HTTP}. In every cell:
// search finds the connector's tool, call_tool runs it, execute_code calls it (with progress on
// the wire), a view bound to it is delivered inline to the Apps client, and a cancelled run
// cancels its downstream call — seen from the downstream, whose slow tool records that its own
// request was cancelled.
// The connector is the same SDK 2 fixture in every cell (modern-kit.ts), serving both eras; the
// connector's `protocol` pins which one atrium reaches it with. (Real SDK 1 servers, which speak
// only 2025-11-25, are covered by connectors-real and connectors-revisions.)
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { startAtrium, fixture, nodeServer, programValue, type Atrium } from "./harness/atrium-client.js";
import { startModernHttp, type ModernHttp } from "./fixtures/modern-kit.js";
import { waitFor } from "./harness/until.js";

type Rev = "2025-11-25" | "2026-07-28";
const REVS: Rev[] = ["2025-11-25", "2026-07-28"];
const TRANSPORTS = ["stdio", "http"] as const;

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

for (const clientRev of REVS) {
  for (const connectorRev of REVS) {
    for (const transport of TRANSPORTS) {
      describe(`client ${clientRev} × connector ${connectorRev} × ${transport}`, () => {
        let a: Atrium;
        let http: ModernHttp | undefined;
        let dir: string;
        let log: string;
        /** Inbound methods the downstream saw, in order ("<method> <claimed revision?>"). */
        const inbound = () => (http ? http.methods : lines(log));
        beforeAll(async () => {
          dir = mkdtempSync(join(tmpdir(), "atrium-matrix-"));
          log = join(dir, "downstream.log");
          // The fixture serves both eras; atrium reaches it with the connector's revision only.
          const entry = transport === "stdio"
            ? nodeServer(fixture("modern-server"), { env: { MODERN_LEGACY: "serve", MODERN_LOG: log }, protocol: connectorRev })
            : { url: (http = await startModernHttp({ legacy: "serve", log })).url, protocol: connectorRev };
          a = await startAtrium({ config: { mcpServers: { m: entry } }, apps: true, revision: clientRev });
        }, 60_000);
        afterAll(async () => {
          await a?.close();
          await http?.close();
          rmSync(dir, { recursive: true, force: true });
        });

        it("the connector is reached with its revision", async () => {
          const era = await a.json("call_tool", { address: "m.server_era", args: {}, resultMode: "value" });
          expect(era.data).toBe(connectorRev === "2026-07-28" ? "modern" : "legacy");
        });

        it("search finds the tool and call_tool runs it", async () => {
          const found = await a.json("search_tools", { query: "read note" });
          expect(found.results[0].address).toBe("m.read_note");
          const r = await a.json("call_tool", { address: "m.read_note", args: { id: "n1" }, resultMode: "value" });
          expect(JSON.stringify(r.data)).toContain("first note");
        });

        it("execute_code calls it, with a progress notification per host call", async () => {
          const progress: number[] = [];
          const r = await a.client.request(
            { method: "tools/call", params: { name: "execute_code", arguments: { code: `async () => { const a = await m.read_note({ id: "n1" }); const b = await m.read_note({ id: "n2" }); return [a, b]; }` } } },
            CallToolResultSchema,
            { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
          );
          expect(JSON.stringify(programValue(r))).toMatch(/first note.*second note/);
          // atrium sends both notifications before the answer (mcp/tools/run-tool.ts awaits them), but
          // the SDK client runs notification handlers a tick after it reads them and a response at
          // once, so a notification read in the same chunk as the answer can find its handler gone.
          // The wire order itself is held by test/mcp-execute-code.test.ts with a raw peer.
          expect(progress.length).toBeGreaterThan(0);
          expect(progress).toEqual([1, 2].slice(0, progress.length));
        });

        it("a view bound to the tool is delivered inline to the Apps client", async () => {
          const r: any = await a.call("execute_code", { code: `async () => { atrium.ui("<p>note</p>", { reads: { note: { address: "m.read_note", fixedArgs: { id: "n1" } } } }); return "ok"; }` });
          expect(programValue(r)).toBe("ok");
          expect(r._meta?.["atrium/view"]?.reads).toBeDefined();
        });

        it("a cancelled run cancels its downstream call (the downstream's handler sees its request cancelled)", async () => {
          // A 2025-11-25 HTTP server without sessions (this fixture serves that era statelessly) hears
          // the notifications/cancelled atrium sends but cannot match it to the request in flight:
          // there the notification is the evidence. Everywhere else the slow tool's own request is aborted.
          const statelessLegacy = transport === "http" && connectorRev === "2025-11-25";
          const cancels = () => statelessLegacy
            ? inbound().filter((l) => l.startsWith("notifications/cancelled")).length
            : http ? http.state.cancelled : lines(log).filter((l) => l === "cancelled slow_read").length;
          const starts = () => (http ? http.state.started : lines(log).filter((l) => l === "started slow_read").length);
          const [cancelsBefore, startsBefore] = [cancels(), starts()];
          const ac = new AbortController();
          const pending = a.client.request(
            { method: "tools/call", params: { name: "execute_code", arguments: { code: `async () => { await m.slow_read({ ms: 10000 }); return "late"; }` } } },
            CallToolResultSchema,
            { signal: ac.signal, timeout: 30_000 },
          );
          // Cancelled once the downstream's handler runs and listens for it, not after a pause.
          await waitFor(() => starts() > startsBefore, "slow_read running downstream");
          ac.abort();
          await expect(pending).rejects.toThrow();
          await waitFor(() => cancels() > cancelsBefore, "the downstream hearing the cancel");
        });
      });
    }
  }
}
