// A replica killed with SIGKILL under load, behind a real haproxy, no shared store: programs in
// flight on it fail with a transport error (haproxy's 502, or the connection closed), never with a
// wrong answer; programs on the other replica finish right; haproxy's health check marks it DOWN and
// every later request is answered right by the survivor. Restarted on its port, it is checked UP
// and takes its share again. Calls are held open by the gate fixture (wait_for_file), not a clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { haproxyAvailable, serverName } from "./harness/haproxy.js";
import { rigConfig, startRig, type Rig } from "./harness/replica-rig.js";
import { connectTagged, type TaggedClient } from "./harness/rig-client.js";
import { waitFor } from "./harness/until.js";

const PROGRAM = `async () => { const i = await desk.get_incident({ id: "INC-1042" }); const g = await gate.whoami({}); return { id: i.id, pid: g.pid }; }`;
const HOLDS = 4;
// One loader: with two holds per replica it keeps each replica under principal_programs (4 at once for the one local principal).
const LOADERS = 1;
// A held call lasts until the test releases it, on any machine: the gate's deadline and a program's wall clock at their maxima,
// and two more sandbox workers than the holds take, so the load is never queued behind them.
const HOLD_CONFIG = rigConfig({ sandbox: { workers: 4, programWallMs: 600_000 } }, { timeoutMs: 600_000 });

let rig: Rig;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "atrium-rig-failover-"));
  rig = await startRig({ config: HOLD_CONFIG });
}, 120_000);
afterAll(async () => {
  // Release any call still held, so no gate waits on a file that will never come.
  for (let k = 0; k < HOLDS; k++) writeFileSync(join(dir, `release-${k}`), "");
  await rig?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Outcome = { tag: string; kind: "right" | "transport" | "typed" | "wrong"; pid?: number; detail: string };

/** A transport failure as the SDK client reports it: the connection closed under it, or haproxy's 502/503. */
const transportFailure = (e: Error) => /fetch failed|other side closed|ECONNRESET|socket hang up|\b50[23]\b|Bad Gateway|Service Unavailable/i.test(`${e.message} ${String((e as { cause?: unknown }).cause ?? "")}`);

/** Judges one answer: right (the values every replica gives, a known gate pid, `extra` holds), a transport or typed error, or wrong. */
function judge(tag: string, r: { result?: CallToolResult; error?: Error }, extra: (value: Record<string, unknown>) => boolean): Outcome {
  if (r.error) return { tag, kind: transportFailure(r.error) ? "transport" : "wrong", detail: r.error.message.slice(0, 300) };
  const sc = r.result!.structuredContent as { ok?: boolean; value?: Record<string, unknown>; error?: { code?: string } } | undefined;
  if (sc?.ok === false && typeof sc.error?.code === "string") return { tag, kind: "typed", detail: sc.error.code };
  const v = sc?.value ?? {};
  const right = sc?.ok === true && rig.replicaOfGate(v.pid as number) >= 0 && extra(v);
  return { tag, kind: right ? "right" : "wrong", pid: v.pid as number, detail: JSON.stringify(sc).slice(0, 300) };
}

const program = async (c: TaggedClient) => {
  const r = await c.call("execute_code", { code: PROGRAM });
  return judge(r.tag, r, (v) => v.id === "INC-1042");
};

describe.skipIf(!haproxyAvailable())("a replica killed under load behind haproxy", () => {
  it("fails the calls in flight on the killed replica with a transport error, finishes the others right, and serves every later request from the survivor", async () => {
    const holders = await Promise.all(Array.from({ length: HOLDS }, (_, k) => connectTagged(rig.haproxy.url, { name: `hold${k}`, revision: "2026-07-28" })));
    const loaders = await Promise.all(Array.from({ length: LOADERS }, (_, k) => connectTagged(rig.haproxy.url, { name: `load${k}`, revision: "2026-07-28" })));
    let loading = false;
    try {
      // Calls held open on both replicas (round robin spreads them), each waiting for its own file.
      const held = holders.map(async (c, k) => {
        const path = join(dir, `release-${k}`);
        const r = await c.call("execute_code", { code: `async () => { const w = await gate.wait_for_file({ path: ${JSON.stringify(path)} }); return { pid: w.pid, waited: w.waited }; }` }, `hold-${k}`);
        return judge(r.tag, r, (v) => v.waited === path);
      });
      await waitFor(() => Array.from({ length: HOLDS }, (_, k) => existsSync(join(dir, `release-${k}.waiting`))).every(Boolean), "every held call to reach a gate");

      // Load running throughout: each loader sends one program after another until told to stop.
      const load: (Outcome & { sentAfterDown: boolean })[] = [];
      loading = true;
      let isDown = false;
      const loops = loaders.map(async (c) => {
        while (loading) {
          const sentAfterDown = isDown;
          load.push({ ...(await program(c)), sentAfterDown });
        }
      });
      await waitFor(() => load.filter((o) => o.kind === "right").length >= 4, "load answered before the kill");

      const victim = rig.replicas.replicas[0];
      const down = rig.haproxy.waitForServer(0, "DOWN").then(() => void (isDown = true));
      const killedPid = victim.pid;
      expect(await rig.replicas.kill(0, "SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
      for (let k = 0; k < HOLDS; k++) writeFileSync(join(dir, `release-${k}`), "");
      const holds = await Promise.all(held);
      await down;
      await waitFor(() => load.filter((o) => o.sentAfterDown).length >= 6, "load answered after the replica was marked DOWN");
      loading = false;
      await Promise.all(loops);

      // Nothing anywhere answered wrong; failures are transport errors or typed errors.
      const all = [...holds, ...load];
      expect(all.filter((o) => o.kind === "wrong")).toEqual([]);

      // The held calls: those haproxy sent to the killed replica (or never logged: the connection closed under them) failed; the others finished right, on the survivor.
      for (const h of holds) {
        const line = rig.haproxy.served().find((l) => l.request === h.tag);
        if (h.kind === "right") {
          expect(line?.server).toBe(serverName(1));
          expect(h.pid).toBe(rig.gatePids[1]);
        } else {
          expect(h.kind).toBe("transport");
          expect(line === undefined || line.server === serverName(0)).toBe(true);
        }
      }
      expect(holds.filter((h) => h.kind === "transport").length).toBeGreaterThan(0);
      expect(holds.filter((h) => h.kind === "right").length).toBeGreaterThan(0);

      // Once DOWN, every request is answered right by the survivor.
      expect(await rig.haproxy.states()).toMatchObject({ [serverName(0)]: "DOWN", [serverName(1)]: "UP" });
      for (const o of load.filter((x) => x.sentAfterDown)) {
        expect(o.kind).toBe("right");
        expect(o.pid).toBe(rig.gatePids[1]);
      }
      const after = await Promise.all(Array.from({ length: 6 }, () => program(loaders[0])));
      for (const o of after) {
        expect(o.kind).toBe("right");
        expect(rig.haproxy.served().find((l) => l.request === o.tag)?.server).toBe(serverName(1));
      }
      expect(victim.alive()).toBe(false);
      expect(() => process.kill(killedPid, 0)).toThrow();
    } finally {
      loading = false;
      await Promise.all([...holders, ...loaders].map((c) => c.close()));
    }
  });

  it("checks a replica restarted on its port UP again, and both replicas serve again", async () => {
    await rig.restart(0);
    expect(await rig.haproxy.states()).toMatchObject({ [serverName(0)]: "UP", [serverName(1)]: "UP" });
    const c = await connectTagged(rig.haproxy.url, { name: "back", revision: "2026-07-28" });
    try {
      const outcomes: Outcome[] = [];
      for (let i = 0; i < 4; i++) outcomes.push(await program(c));
      expect(outcomes.every((o) => o.kind === "right")).toBe(true);
      expect(new Set(outcomes.map((o) => rig.replicaOfGate(o.pid!)))).toEqual(new Set([0, 1]));
    } finally {
      await c.close();
    }
  });
});
