// Two real `atrium serve --http` replicas behind a real haproxy (round robin, no stickiness), no
// shared store: 2026-07-28 stateless requests — tools/list, programs calling the demo connector,
// search_tools — all answer right whichever replica serves them, and they really alternate
// (haproxy's log per request, and the replica's own gate pid in each program's answer). What a
// store would share is not shared yet, and says so honestly: a 2025-11-25 session's next request on
// the other replica and a stash id read there answer "not found", never someone else's data.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp } from "./harness/atrium-http.js";
import { haproxyAvailable, serverName, type ServedLine } from "./harness/haproxy.js";
import { rigConfig, startRig, type Rig } from "./harness/replica-rig.js";
import { FRESH_CONNECTIONS } from "./harness/replicas.js";
import { connectTagged, type TaggedClient } from "./harness/rig-client.js";

const PROGRAM = `async () => { const i = await desk.get_incident({ id: "INC-1042" }); const g = await gate.whoami({}); return { id: i.id, service: i.service, pid: g.pid }; }`;
const SEARCH = { query: "list services", limit: 3 };

let rig: Rig;
/** What one replica answers directly (not through haproxy): the answers every replica must give. */
let expected: { tools: string[]; incident: { id: string; service: string }; search: string[] };

beforeAll(async () => {
  rig = await startRig({ config: rigConfig({ results: { directResultBytes: 1000 } }) });
  const direct = await connectHttp(rig.replicas.replicas[0].url, { revision: "2026-07-28", headers: FRESH_CONNECTIONS });
  try {
    const tools = (await direct.client.listTools()).tools.map((t) => t.name);
    const program = (await direct.call("execute_code", { code: PROGRAM })).structuredContent as { value: { id: string; service: string } };
    const search = (await direct.call("search_tools", SEARCH)).structuredContent as { results: { address: string }[] };
    expected = { tools, incident: { id: program.value.id, service: program.value.service }, search: search.results.map((r) => r.address) };
  } finally {
    await direct.close();
  }
}, 120_000);
afterAll(async () => {
  await rig?.stop();
});

const lineOf = (tag: string): ServedLine | undefined => rig.haproxy.served().find((l) => l.request === tag);

/** One request of each kind through haproxy; each answer checked against `expected`; the replica that ran the program (by its gate pid). */
async function round(c: TaggedClient): Promise<{ tags: string[]; programOn: { tag: string; replica: number }[] }> {
  const list = await c.listTools();
  expect(list.error).toBeUndefined();
  expect(list.names).toEqual(expected.tools);
  const program = await c.call("execute_code", { code: PROGRAM });
  expect(program.error).toBeUndefined();
  const value = (program.result!.structuredContent as { ok: boolean; value: { id: string; service: string; pid: number } }).value;
  expect({ id: value.id, service: value.service }).toEqual(expected.incident);
  const replica = rig.replicaOfGate(value.pid);
  expect(replica).toBeGreaterThanOrEqual(0);
  const search = await c.call("search_tools", SEARCH);
  expect(search.error).toBeUndefined();
  expect((search.result!.structuredContent as { results: { address: string }[] }).results.map((r) => r.address)).toEqual(expected.search);
  return { tags: [list.tag, program.tag, search.tag], programOn: [{ tag: program.tag, replica }] };
}

describe.skipIf(!haproxyAvailable())("two replicas behind haproxy, no shared store", () => {
  it("answers 2026-07-28 tools/list, programs and search_tools right while consecutive requests alternate replicas", async () => {
    expect(expected.tools).toContain("execute_code");
    expect(expected.search[0]).toBe("desk.list_services");
    const c = await connectTagged(rig.haproxy.url, { name: "seq", revision: "2026-07-28" });
    try {
      const tags: string[] = [];
      const programOn: { tag: string; replica: number }[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await round(c);
        tags.push(...r.tags);
        programOn.push(...r.programOn);
      }
      const servers = tags.map((t) => lineOf(t)?.server);
      expect(servers.every((s) => s === serverName(0) || s === serverName(1))).toBe(true);
      // Round robin, one request at a time: each request goes to the other replica than the one before.
      for (let i = 1; i < servers.length; i++) expect(servers[i]).not.toBe(servers[i - 1]);
      // The program's own answer agrees with haproxy's log on which replica ran it.
      for (const p of programOn) expect(lineOf(p.tag)?.server).toBe(serverName(p.replica));
      expect(new Set(programOn.map((p) => p.replica))).toEqual(new Set([0, 1]));
    } finally {
      await c.close();
    }
  });

  it("answers concurrent 2026-07-28 clients right, served by both replicas", async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => connectTagged(rig.haproxy.url, { name: `par${i}`, revision: "2026-07-28" })));
    try {
      const rounds = await Promise.all(clients.map((c) => round(c)));
      const replicas = rounds.flatMap((r) => r.programOn.map((p) => p.replica));
      expect(new Set(replicas)).toEqual(new Set([0, 1]));
      const served = rounds.flatMap((r) => r.tags).map((t) => lineOf(t));
      expect(served.every((l) => l?.status === 200)).toBe(true);
      expect(new Set(served.map((l) => l?.server))).toEqual(new Set([serverName(0), serverName(1)]));
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it("without a shared store, a stash id made on one replica is, on the other, a result that never existed", async () => {
    const [a, b] = await Promise.all(rig.replicas.replicas.map((r) => connectHttp(r.url, { revision: "2026-07-28", headers: FRESH_CONNECTIONS })));
    try {
      const big = await a.call("call_tool", { address: "desk.list_incidents", args: { limit: 20 }, resultMode: "value" });
      const id = (big.structuredContent as { resultId?: string }).resultId!;
      expect(id).toBeTruthy();
      expect((await a.call("get_result", { id, offset: 0 })).isError).toBeFalsy();
      const elsewhere = await b.call("get_result", { id, offset: 0 });
      const fake = `${id.slice(0, -4)}${id.slice(-4) === "0000" ? "1111" : "0000"}`;
      const never = await b.call("get_result", { id: fake, offset: 0 });
      expect(elsewhere.isError).toBe(true);
      expect((elsewhere.structuredContent as { error: { code: string } }).error.code).toBe("not_found");
      expect(JSON.stringify(elsewhere.structuredContent).replaceAll(id, "ID")).toBe(JSON.stringify(never.structuredContent).replaceAll(fake, "ID"));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("without a shared store, a 2025-11-25 session answers 404 Session not found on the replica that did not open it", async () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "atrium-rig", version: "0" } } };
    const post = (body: unknown, tag: string, sid?: string) =>
      fetch(rig.haproxy.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-rig-request": tag, ...(sid && { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" }) },
        body: JSON.stringify(body),
      });
    const opened = await post(initialize, "sess:init");
    await opened.text();
    const sid = opened.headers.get("mcp-session-id")!;
    expect(sid).toBeTruthy();
    const answers: { tag: string; status: number; body: string }[] = [];
    for (let i = 1; i <= 4; i++) {
      const r = await post({ jsonrpc: "2.0", id: i + 1, method: "tools/list" }, `sess:${i}`, sid);
      answers.push({ tag: `sess:${i}`, status: r.status, body: await r.text() });
    }
    const opener = lineOf("sess:init")!.server;
    for (const a of answers) {
      if (lineOf(a.tag)!.server === opener) expect(a.status).toBe(200);
      else {
        expect(a.status).toBe(404);
        expect(JSON.parse(a.body)).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
      }
    }
    expect(answers.some((a) => a.status === 404) && answers.some((a) => a.status === 200)).toBe(true);
  });
});
