// Downstream servers that misbehave on purpose (test/fixtures/): the gate classifies every
// annotation combination, and a hang, a crash, a flood, garbage or a failed start each end in
// a typed error while atrium and the other connectors keep serving.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { execFileSync } from "node:child_process";
import { startAtrium, fixture, nodeServer, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const err = (r: any) => r.structuredContent?.error;
const STUCK_TIMEOUT_MS = 5000;

describe("hostile connectors", () => {
  let a: Atrium;
  beforeAll(async () => {
    a = await startAtrium({
      config: {
        mcpServers: {
          ann: nodeServer(fixture("annotations-server"), { readOnlyTools: ["no_annotations", "ro_absent__de_true"], approvalTools: ["ro_true__de_false"] }),
          nasty: nodeServer(fixture("nasty-server"), { maxResultBytes: 50_000, env: { FIXTURE_STDERR_SPAM: "2000" } }),
          // Its own connector for the hang: a deadline short enough to wait out, long enough for any
          // answer on a loaded machine (the call after the hang must still be answered within it).
          stuck: nodeServer(fixture("nasty-server"), { timeoutMs: STUCK_TIMEOUT_MS }),
          broken: nodeServer(fixture("nasty-server"), { env: { FIXTURE_CRASH_ON_START: "1" } }),
          many: nodeServer(fixture("many-tools-server"), { env: { FIXTURE_TOOL_COUNT: "350" } }),
        },
        // broken keeps retrying (retryable) however long the tests before its own take: with the
        // default five, a slow machine could use them all up first.
        atrium: { connectors: { startRetries: 100 } },
      },
    });
  });
  afterAll(async () => { await a.close(); });

  it("R1–R8: every annotation combination and operator setting is classified by the core", async () => {
    const r = await a.json("search_tools", { query: "", connector: "ann", limit: 50 });
    const cls = Object.fromEntries(r.results.map((x: any) => [x.address.slice(4), x.reason ?? x.safety]));
    expect(cls).toEqual({
      ro_true__de_true: "contradictory",
      ro_true__de_false: "operator_demoted",
      ro_true__de_absent: "read_only",
      ro_false__de_true: "read_only_false",
      ro_false__de_false: "read_only_false",
      ro_false__de_absent: "read_only_false",
      ro_absent__de_true: "promotion_refused_destructive",
      ro_absent__de_false: "read_only_absent",
      ro_absent__de_absent: "read_only_absent",
      ro_malformed: "malformed_hint",
      no_annotations: "read_only",
    });
  });

  it("R3: a contradictory tool is refused by call_tool and runs through call_destructive_tool", async () => {
    expect(err(await a.call("call_tool", { address: "ann.ro_true__de_true" })).code).toBe("destructive_tool_requires_approval");
    const ok = await a.json("call_destructive_tool", { address: "ann.ro_true__de_true", args: { x: 1 }, resultMode: "value" });
    expect(ok.data).toEqual({ tool: "ro_true__de_true", args: { x: 1 } });
  });

  it("a tool that hangs hits the connector's timeout (retryable), and the connector keeps serving", async () => {
    const r = await a.call("call_tool", { address: "stuck.hang" });
    expect(err(r)).toMatchObject({ code: "timeout", retryable: true, details: { timeoutMs: STUCK_TIMEOUT_MS } });
    expect(err(r).message).toContain(`"timeoutMs" for connector stuck`);
    const echo = await a.json("call_tool", { address: "stuck.echo", args: { after: "hang" }, resultMode: "value" });
    expect(echo.ok).toBe(true);
  });

  it("a result over the cap in value mode or with fields is cut and stashed like mcp mode (not a crash)", async () => {
    const big = "x".repeat(60_000); // over nasty's 50,000-byte cap, under the payload budget
    for (const extra of [{ resultMode: "value" }, { fields: ["args.s"] }]) {
      const r = await a.call("call_tool", { address: "nasty.echo", args: { s: big }, ...extra });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ truncated: true, shownBytes: 50_000 });
      const id = (r.structuredContent as any).resultId;
      const rest = await a.call("get_result", { id, offset: 50_000 });
      expect(rest.isError).toBeFalsy();
    }
  });

  it("a 1 MB result is cut at the cap and get_result pages the rest byte-exactly", async () => {
    const r = await a.call("call_tool", { address: "nasty.huge" });
    const notice = r.structuredContent as any;
    expect(notice).toMatchObject({ truncated: true, totalBytes: 1_048_576 });
    let text = (r.content[0] as any).text as string;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(50_000);
    let offset = notice.shownBytes;
    while (offset !== undefined) {
      const page = await a.json("get_result", { id: notice.resultId, offset, maxBytes: 300_000 });
      text += page.text;
      offset = page.nextOffset;
    }
    expect(Buffer.byteLength(text)).toBe(1_048_576);
    expect(text.split("\n").length).toBeGreaterThan(16_000);
  });

  it("get_result never splits a multi-byte character", async () => {
    const r = await a.call("call_tool", { address: "nasty.unicode_huge" });
    const n = r.structuredContent as any;
    let text = (r.content[0] as any).text as string;
    for (let off = n.shownBytes; off !== undefined; ) {
      const page = await a.json("get_result", { id: n.resultId, offset: off, maxBytes: 7_777 });
      expect(page.text).not.toContain("\uFFFD");
      text += page.text;
      off = page.nextOffset;
    }
    expect(Buffer.byteLength(text)).toBe(n.totalBytes);
    expect(text.startsWith("aé中😀")).toBe(true);
  });

  it("malformed downstream content is connector_call_failed, not a crash", async () => {
    expect(err(await a.call("call_tool", { address: "nasty.malformed" }))).toMatchObject({ code: "connector_call_failed", retryable: false });
    expect((await a.json("call_tool", { address: "nasty.echo", args: { still: "alive" }, resultMode: "value" })).ok).toBe(true);
  });

  it("a downstream error result is one typed shape in every mode, with the downstream's own text inside", async () => {
    for (const extra of [{}, { resultMode: "value" }, { fields: ["x"] }]) {
      const r = await a.call("call_tool", { address: "nasty.error_result", ...extra });
      expect(r.isError).toBe(true);
      expect(err(r)).toMatchObject({ code: "connector_call_failed", retryable: false });
      expect(err(r).message).toContain("downstream said no");
      expect(JSON.parse((r.content[0] as any).text).error.code).toBe("connector_call_failed");
    }
    expect(err(await a.call("call_tool", { address: "nasty.throws" })).code).toBe("connector_call_failed");
  });

  it("a connector that fails to start is explained by search, its calls are unavailable, the others work", async () => {
    const r = await a.json("search_tools", { query: "echo" });
    const broken = r.unavailable.find((u: any) => u.connector === "broken");
    expect(["starting", "retrying"]).toContain(broken.state);
    expect(broken.problem).toContain("exited with code 3");
    expect(r.results.some((x: any) => x.address === "nasty.echo")).toBe(true);
    expect(err(await a.call("call_tool", { address: "broken.echo" }))).toMatchObject({ code: "unavailable", retryable: true });
  });

  it("a paged catalog is read to completion", async () => {
    const r = await a.json("search_tools", { query: "", connector: "many", limit: 1 });
    expect(r.total).toBe(350);
  });

  it("tools/list_changed from a downstream refreshes the catalog", async () => {
    expect((await a.json("search_tools", { query: "freshly_added_tool" })).results.some((x: any) => x.address === "nasty.freshly_added_tool")).toBe(false);
    await a.call("call_tool", { address: "nasty.add_tool", args: { name: "freshly_added_tool" } });
    await waitFor(async () => (await a.json("search_tools", { query: "freshly_added_tool" })).results.some((x: any) => x.address === "nasty.freshly_added_tool"), "nasty.freshly_added_tool in the catalog");
  });

  it("a crash mid-call is unavailable (with the stderr tail), then the connector is restarted and serves again", async () => {
    const r = await a.call("call_tool", { address: "nasty.crash" });
    expect(err(r)).toMatchObject({ code: "unavailable", retryable: true });
    expect(err(r).message).toContain("crashing on purpose");
    await waitFor(async () => !(await a.call("call_tool", { address: "nasty.echo", args: {}, resultMode: "value" })).isError, "nasty restarted and answering");
  });
});

describe("no orphans", () => {
  const children = (pid: number) => execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)]).toString().trim().split(/\s+/).filter(Boolean).map(Number);
  const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

  for (const how of ["stdin close", "SIGTERM", "SIGINT"] as const) {
    it(`every connector child ends when atrium ends by ${how}`, async () => {
      const a = await startAtrium({ config: { mcpServers: { one: nodeServer(fixture("nasty-server")), two: nodeServer(fixture("annotations-server")) } } });
      await a.json("search_tools", { query: "" }); // connectors settled
      const pid = a.transport.pid!;
      const kids = children(pid);
      expect(kids.length).toBe(2);
      if (how === "stdin close") await a.close();
      else process.kill(pid, how);
      await waitFor(() => !alive(pid) && !kids.some(alive), `atrium (${pid}) and its children (${kids.join(", ")}) ended`);
      await a.close();
    });
  }
});
