// The activity log end to end: a spawned atrium over stdio with real downstream servers, a session
// that takes every path — a direct call, a program's calls, a view's read (as the shell sends it),
// a downstream app's call, an approval given and one declined, a connector crash and restart, a
// connector that fails to start — with one unique secret fed through arguments, results, program
// source, view HTML, an approval reason, a connector's env and an Authorization header. The log
// file must name every event and hold the secret nowhere. And a log directory that cannot be
// written never stops serving: one warning on stderr.
import { describe, it, expect } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { startAtrium, fixture, nodeServer, programValue } from "./harness/atrium-client.js";
import { waitFor as until } from "./harness/until.js";

const SECRET = `sk-live-${Math.random().toString(36).slice(2)}-activity`;

/** Every activity line under `state`, parsed; and the raw text of every file there. */
function activity(state: string): { lines: Record<string, any>[]; text: string } {
  const dir = join(state, "activity");
  if (!existsSync(dir)) return { lines: [], text: "" };
  const text = readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("");
  return { lines: text.split("\n").filter(Boolean).map((l) => JSON.parse(l)), text };
}


describe("the activity log of a whole session", () => {
  it("records every path and event kind, and none of the session's secrets", async () => {
    const work = mkdtempSync(join(tmpdir(), "atrium-activity-e2e-"));
    const writes = join(work, "writes.log");
    const answers = [{ action: "accept", content: { choice: "run_once" } }, { action: "decline" }];
    let asked = 0;
    const a = await startAtrium({
      apps: true,
      capabilities: { elicitation: { form: {} } },
      beforeConnect: (client) => client.setRequestHandler("elicitation/create", async () => answers[asked++] as never),
      config: {
        mcpServers: {
          n: nodeServer(fixture("nasty-server"), { env: { API_TOKEN: SECRET } }),
          w: nodeServer(fixture("writes-server"), { args: [fixture("writes-server"), writes] }),
          board: nodeServer(fixture("apps-server"), { env: { FIXTURE_CALL_LOG: join(work, "board.log") } }),
          remote: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: `Bearer ${SECRET}` } },
        },
        atrium: { connectors: { startRetries: 0 } },
      },
    });
    const state = join(a.dir, "state");
    try {
      // A direct call whose arguments and result carry the secret.
      const direct = await a.call("call_tool", { address: "n.echo", args: { token: SECRET } });
      expect(JSON.stringify(direct)).toContain(SECRET);

      // A program: the secret in its source, a call's arguments and result, the view's HTML and
      // fixed args, and the reason of a write the person approves; then a write the person declines.
      const v = programValue(await a.call("execute_code", {
        code: `async () => {
          const e = await n.echo({ s: ${JSON.stringify(SECRET)} });
          atrium.ui("<p>${SECRET}</p>", { reads: { e: { address: "n.echo", fixedArgs: { k: ${JSON.stringify(SECRET)} } } } });
          await atrium.call("w.add_record", { note: ${JSON.stringify(SECRET)} }, { reason: ${JSON.stringify(SECRET)} });
          let declined = "";
          try { await w.set_flag({ flag: ${JSON.stringify(SECRET)} }); } catch (err) { declined = err.code; }
          return { echoed: e.args.s === ${JSON.stringify(SECRET)}, declined };
        }`,
      }));
      expect(v).toEqual({ echoed: true, declined: "approval_declined" });

      // A view's read, as the shell sends it (call_tool in value mode, marked in _meta).
      const read = await a.client.request({ method: "tools/call", params: { name: "call_tool", arguments: { address: "n.echo", args: { k: SECRET }, resultMode: "value" }, _meta: { "atrium/viewRead": true } } }, CallToolResultSchema);
      expect(read.isError).toBeFalsy();

      // A downstream app's own call.
      const app = await a.call("call_app_tool", { connector: "board", tool: "list_items" });
      expect(app.isError).toBeFalsy();

      // A crash in the middle of a call; the connector restarts.
      await a.call("call_tool", { address: "n.crash", args: { why: SECRET } });
      await until(() => activity(state).lines.some((l) => l.event === "connector_restart" && l.connector === "n"), "n to restart");
      // (And the secret-free write stayed exactly one.)
      expect(readFileSync(writes, "utf8").trim().split("\n")).toHaveLength(1);
    } finally {
      await a.client.close().catch(() => {});
    }
    // atrium has exited (stdin closed): what was queued is on disk.
    await until(() => activity(state).lines.some((l) => l.event === "connector_stopped"), "the stop events");
    const { lines, text } = activity(state);
    rmSync(a.dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });

    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice("sk-live-".length)); // not even the random part
    const sessions = new Set(lines.map((l) => l.session));
    expect(sessions.size).toBe(1);

    const calls = lines.filter((l) => l.event === "call");
    const pathOf = (tool: string) => calls.filter((l) => `${l.connector}.${l.tool}` === tool).map((l) => l.path);
    expect(pathOf("n.echo")).toEqual(["direct", "program", "view"]);
    expect(pathOf("w.add_record")).toEqual(["program"]);
    expect(pathOf("board.list_items")).toEqual(["app"]);
    for (const c of calls) {
      expect(typeof c.durationMs).toBe("number");
      expect(typeof c.resultBytes).toBe("number");
    }
    expect(calls.find((l) => l.tool === "echo" && l.path === "direct")).toMatchObject({ outcome: "ok" });
    expect(calls.find((l) => l.tool === "echo")!.resultBytes).toBeGreaterThan(SECRET.length);
    expect(calls.find((l) => l.tool === "set_flag")).toMatchObject({ path: "program", outcome: "approval_declined", resultBytes: 0 });
    expect(calls.find((l) => l.tool === "crash")!.outcome).not.toBe("ok");

    const metaTools = lines.filter((l) => l.event === "meta_tool").map((l) => l.tool);
    expect(metaTools).toEqual(expect.arrayContaining(["search_tools", "call_tool", "execute_code", "call_app_tool"]));
    expect(lines.filter((l) => l.event.startsWith("approval_")).map((l) => [l.event, l.tool, l.reason])).toEqual([
      ["approval_asked", "add_record", undefined],
      ["approval_given", "add_record", "run_once"],
      ["approval_asked", "set_flag", undefined],
      ["approval_declined", "set_flag", "declined"],
    ]);
    const events = new Set(lines.map((l) => `${l.event}${l.connector ? ` ${l.connector}` : ""}`));
    for (const e of ["connector_start n", "connector_start w", "connector_start board", "connector_failed remote", "connector_crash n", "connector_restart n", "connector_stopped n"]) expect(events).toContain(e);
  }, 120_000);

  it("a log directory that cannot be written never stops serving: one warning on stderr", async () => {
    const state = mkdtempSync(join(tmpdir(), "atrium-activity-broken-"));
    writeFileSync(join(state, "activity"), "not a directory");
    const a = await startAtrium({ env: { ATRIUM_STATE_DIR: state }, config: { mcpServers: { n: nodeServer(fixture("nasty-server")) } } });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await a.call("call_tool", { address: "n.echo", args: { i } });
        expect(r.isError).toBeFalsy();
      }
      await until(() => /activity log/.test(a.stderr()), "the warning");
      expect(a.stderr().match(/activity log .* cannot be written/g)).toHaveLength(1);
      expect(readFileSync(join(state, "activity"), "utf8")).toBe("not a directory");
    } finally {
      await a.close();
      rmSync(state, { recursive: true, force: true });
    }
  }, 60_000);

  it("atrium.log.enabled false writes no log", async () => {
    const a = await startAtrium({ config: { mcpServers: { n: nodeServer(fixture("nasty-server")) }, atrium: { log: { enabled: false } } } });
    try {
      expect((await a.call("call_tool", { address: "n.echo", args: {} })).isError).toBeFalsy();
      expect(existsSync(join(a.dir, "state", "activity"))).toBe(false);
    } finally {
      await a.close();
    }
  }, 60_000);
});
