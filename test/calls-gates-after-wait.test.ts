// Gates judged again after every wait (issue 19, items 4 and 12), with a real atrium over stdio
// and a hostile downstream of our own (test/fixtures/shifty-server.ts) that changes its tool while
// the person is being asked, and answers a held call on its way out when a reload stops it; and a
// reload that removes the connector while the question is open. What
// counts is the downstream's own record of whether its write ran, and the call's typed answer.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixture, startAtrium, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

let open: Atrium[] = [];
let logs: string[] = [];
afterEach(async () => {
  await Promise.all(open.map((a) => a.close()));
  open = [];
  for (const d of logs) rmSync(d, { recursive: true, force: true });
  logs = [];
});
/** Where the downstream records each write it really ran. */
function writesLog(): string {
  const d = mkdtempSync(join(tmpdir(), "atrium-shifty-"));
  logs.push(d);
  return join(d, "writes.log");
}

const shifty = (log: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [fixture("shifty-server"), log], timeoutMs: 120_000, ...extra });
const purges = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
const err = (r: any) => r.structuredContent?.error;

describe("every gate that can change while a call waits for its approval is judged again after the answer", () => {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) it(`a tool quarantined while its approval question is open does not run when the person approves (${revision})`, async () => {
    const log = writesLog();
    let a: Atrium | undefined;
    a = await startAtrium({
      revision,
      capabilities: { elicitation: { form: {} } },
      beforeConnect: (client) => {
        client.setRequestHandler("elicitation/create", async () => {
          // While the question is open the server changes purge; atrium quarantines it (pins).
          await a!.call("call_tool", { address: "s.shift", args: {} });
          await waitFor(async () => err(await a!.call("call_tool", { address: "s.purge", args: {} }))?.code === "quarantined", "purge quarantined");
          return { action: "accept", content: { choice: "run_once" } } as never;
        });
      },
      config: { mcpServers: { s: shifty(log) } },
    });
    open.push(a);
    const r = await a.value(`async () => { try { await atrium.call("s.purge", {}); return "ran"; } catch (e) { return e.code + ":" + e.details.reason; } }`);
    expect(r).toBe("quarantined:changed");
    expect(purges(log)).toBe(0);
  });

  it("a connector a reload removes while the question is open: the approved call answers unknown_address and nothing runs", async () => {
    const log = writesLog();
    const other = { command: process.execPath, args: [fixture("gate-server"), "G"] };
    let a: Atrium | undefined;
    a = await startAtrium({
      capabilities: { elicitation: { form: {} } },
      beforeConnect: (client) => {
        client.setRequestHandler("elicitation/create", async () => {
          writeFileSync(join(a!.dir, "atrium.json"), JSON.stringify({ mcpServers: { g: other } }));
          await waitFor(() => /config reloaded from .*: removed s/.test(a!.stderr()), "the reload removed s");
          return { action: "accept", content: { choice: "run_once" } } as never;
        });
      },
      config: { mcpServers: { s: shifty(log), g: other } },
    });
    open.push(a);
    const r = await a.value(`async () => { try { await atrium.call("s.purge", {}); return "ran"; } catch (e) { return e.code; } }`);
    expect(r).toBe("unknown_address");
    expect(purges(log)).toBe(0);
  });
});

describe("a reload that removes a readOnlyTools promotion while a call is in flight", () => {
  it("ends the call unavailable, retryable, even when the server answers on its way out; the tool is behind approval after", async () => {
    const log = writesLog();
    const a = await startAtrium({ config: { mcpServers: { s: shifty(log, { readOnlyTools: ["hold"] }) } } });
    open.push(a);
    const held = join(a.dir, "held");
    const pending = a.call("call_tool", { address: "s.hold", args: { path: held } }, 120_000);
    await waitFor(() => existsSync(`${held}.waiting`), "the call reached s");
    writeFileSync(join(a.dir, "atrium.json"), JSON.stringify({ mcpServers: { s: shifty(log) } }));
    const e = err(await pending);
    expect(e).toMatchObject({ code: "unavailable", retryable: true });
    expect(e.message).toContain("was restarted by a config reload; call it again");
    await waitFor(async () => err(await a.call("call_tool", { address: "s.hold", args: { path: held } }))?.code === "destructive_tool_requires_approval", "hold behind approval");
  });
});
