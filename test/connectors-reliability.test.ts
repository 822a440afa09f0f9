// Downstream servers that attack by volume or by silence: a flood of notifications, a 50 MB
// answer (over downstream_line_bytes), a server that dies during initialize and one that never answers it. atrium keeps
// serving every other connector, and each failure is a typed, explained error.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { startAtrium, fixture, nodeServer, type Atrium } from "./harness/atrium-client.js";

const err = (r: any) => r.structuredContent?.error;
let a: Atrium;
beforeAll(async () => {
  a = await startAtrium({
    config: {
      mcpServers: {
        nasty: nodeServer(fixture("nasty-server"), { timeoutMs: 60_000 }),
        dies: nodeServer(fixture("nasty-server"), { env: { FIXTURE_DIE_IN_INIT: "1" } }),
        mute: nodeServer(fixture("nasty-server"), { env: { FIXTURE_MUTE_INIT: "1" }, startTimeoutMs: 1000 }),
      },
      atrium: { connectors: { startRetries: 0 } },
    },
  });
});
afterAll(async () => { await a?.close(); });

describe("downstream attacks by volume or silence", () => {
  it("a server that dies during initialize is failed with its exit code and stderr; the others serve", async () => {
    const e = err(await a.call("call_tool", { address: "dies.echo" }));
    expect(e).toMatchObject({ code: "unavailable", retryable: false });
    expect(e.message).toContain("exited with code 4 before it answered initialize");
    expect(e.message).toContain("dying during initialize");
    expect((await a.json("call_tool", { address: "nasty.echo", args: { ok: 1 }, resultMode: "value" })).ok).toBe(true);
  });

  it("a server that never answers initialize is failed at its start deadline", async () => {
    const e = err(await a.call("call_tool", { address: "mute.echo" }));
    expect(e.code).toBe("unavailable");
    expect(e.message).toContain("within 1000 ms (startTimeoutMs)");
  });

  it("a flood of 10,000 notifications during a call: the call answers and atrium keeps serving", async () => {
    const r = await a.json("call_tool", { address: "nasty.flood", args: { count: 10_000 }, resultMode: "value" });
    expect(r).toEqual({ ok: true, data: { sent: 10_000 } });
    expect((await a.json("call_tool", { address: "nasty.echo", args: { after: "flood" }, resultMode: "value" })).ok).toBe(true);
  });

  it("a 50 MB answer is dropped while it is read: result_too_large on every path, and the same connector keeps serving", async () => {
    const e = err(await a.call("call_tool", { address: "nasty.huge50" }));
    expect(e).toMatchObject({ code: "result_too_large", retryable: false });
    expect(e.message).toContain("downstream_line_bytes");
    const code = await a.value(`async () => { try { await atrium.call("nasty.huge50", {}); return "ran"; } catch (e) { return e.code; } }`);
    expect(code).toBe("result_too_large");
    // Not restarted: the connector that sent it answers at once and is still "ready".
    expect((await a.json("call_tool", { address: "nasty.echo", args: { after: "huge" }, resultMode: "value" })).ok).toBe(true);
    expect((await a.json("search_tools", { query: "", limit: 1 })).unavailable?.some((u: any) => u.connector === "nasty")).toBeFalsy();
    expect(a.stderr()).not.toContain("restarting");
  });
});
