// What team mode II's shared store (atrium.store.url, Redis) must make true, on the real parts:
// two replicas behind haproxy (round robin, no stickiness), each with its OWN state directory so
// nothing is shared but the store. A 2025-11-25 session opened through haproxy keeps working when
// its next requests land on the other replica, and when the replica that opened it dies; a stash id
// made on one replica is read on the other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp } from "./harness/atrium-http.js";
import { serverName } from "./harness/haproxy.js";
import { startRedis, type RedisServer } from "./harness/redis-server.js";
import { rigConfig, startRig, type Rig } from "./harness/replica-rig.js";
import { FRESH_CONNECTIONS } from "./harness/replicas.js";
import { connectTagged, type TaggedClient } from "./harness/rig-client.js";

const PROGRAM = `async () => { const i = await desk.get_incident({ id: "INC-1042" }); const g = await gate.whoami({}); return { id: i.id, pid: g.pid }; }`;

let redis: RedisServer;
let rig: Rig;

/** Programs through `c`, each answered right; the replicas that ran them (by gate pid). */
async function programs(c: TaggedClient, n: number): Promise<number[]> {
  const ran: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await c.call("execute_code", { code: PROGRAM });
    expect(r.error).toBeUndefined();
    const sc = r.result!.structuredContent as { ok: boolean; value: { id: string; pid: number } };
    expect(sc.ok).toBe(true);
    expect(sc.value.id).toBe("INC-1042");
    ran.push(rig.replicaOfGate(sc.value.pid));
  }
  expect(ran.every((i) => i >= 0)).toBe(true);
  return ran;
}

describe("two replicas sharing a store behind haproxy", () => {
  beforeAll(async () => {
    redis = await startRedis();
    rig = await startRig({ config: rigConfig({ results: { directResultBytes: 1000 }, store: { url: redis.url } }) });
  }, 120_000);
  afterAll(async () => {
    await rig?.stop();
    await redis?.stop();
  });

  it("keeps a 2025-11-25 session opened through haproxy working when its next requests land on the other replica", async () => {
    const c = await connectTagged(rig.haproxy.url, { name: "sess", revision: "2025-11-25" });
    try {
      const sid = c.transport.sessionId;
      expect(sid).toBeTruthy();
      const ran: number[] = [];
      for (let i = 0; i < 3; i++) {
        const list = await c.listTools();
        expect(list.error).toBeUndefined();
        expect(list.names).toContain("execute_code");
        ran.push(...(await programs(c, 1)));
        const search = await c.call("search_tools", { query: "list services", limit: 3 });
        expect(search.error).toBeUndefined();
        expect((search.result!.structuredContent as { results: { address: string }[] }).results[0].address).toBe("desk.list_services");
      }
      expect(c.transport.sessionId).toBe(sid);
      // The one session was served by both replicas, and its programs ran on both.
      const lines = rig.haproxy.served().filter((l) => l.request.startsWith("sess:"));
      expect(new Set(lines.map((l) => l.server))).toEqual(new Set([serverName(0), serverName(1)]));
      expect(lines.every((l) => l.status < 400)).toBe(true);
      expect(new Set(ran)).toEqual(new Set([0, 1]));
    } finally {
      await c.close();
    }
  });

  it("reads a stash id made on replica A through replica B", async () => {
    const [a, b] = await Promise.all(rig.replicas.replicas.map((r) => connectHttp(r.url, { revision: "2026-07-28", headers: FRESH_CONNECTIONS })));
    try {
      const big = await a.call("call_tool", { address: "desk.list_incidents", args: { limit: 20 }, resultMode: "value" });
      const id = (big.structuredContent as { resultId?: string }).resultId!;
      expect(id).toBeTruthy();
      const onA = await a.call("get_result", { id, offset: 0 });
      const onB = await b.call("get_result", { id, offset: 0 });
      expect(onA.isError).toBeFalsy();
      expect(onB.isError).toBeFalsy();
      expect(onB.structuredContent).toEqual(onA.structuredContent);
      expect((onB.structuredContent as { totalBytes: number }).totalBytes).toBeGreaterThan(1000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("keeps a 2025-11-25 session working on the survivor when the replica that opened it is killed", async () => {
    const c = await connectTagged(rig.haproxy.url, { name: "orphan", revision: "2025-11-25" });
    try {
      const opener = rig.haproxy.served().find((l) => l.request === "orphan:sdk:1")!.server;
      const victim = opener === serverName(0) ? 0 : 1;
      const down = rig.haproxy.waitForServer(victim, "DOWN");
      await rig.replicas.kill(victim, "SIGKILL");
      await down;
      const ran = await programs(c, 4);
      expect(new Set(ran)).toEqual(new Set([1 - victim]));
      expect(rig.haproxy.served().filter((l) => /^orphan:\d+$/.test(l.request)).every((l) => l.server === serverName(1 - victim) && l.status === 200)).toBe(true);
    } finally {
      await c.close();
    }
  });
});
