// The whole replica rig in one call: N replicas (replicas.ts) from one config holding the demo
// connector `desk` and the gate fixture `gate`, haproxy (haproxy.ts) in front, and each replica's
// gate pid asked directly (not through haproxy), so an answer of `gate.whoami()` names the replica
// that ran the program: the answer-side proof of which replica served, beside haproxy's log.
import { fixture, nodeServer } from "./atrium-client.js";
import { connectHttp } from "./atrium-http.js";
import { startHaproxy, type Haproxy, type HaproxyOptions } from "./haproxy.js";
import { demoConfig, FRESH_CONNECTIONS, startReplicas, type ReplicaOptions, type Replicas } from "./replicas.js";

/** demoConfig plus the gate fixture (whoami: its pid; wait_for_file: holds a call open until a file exists), `gate` more keys of its entry (timeoutMs). */
export function rigConfig(atrium: Record<string, unknown> = {}, gate: Record<string, unknown> = {}) {
  return {
    mcpServers: { ...demoConfig.mcpServers, gate: nodeServer(fixture("gate-server"), { args: [fixture("gate-server"), "gate"], ...gate }) },
    atrium: { ...demoConfig.atrium, ...atrium },
  };
}

export interface Rig {
  replicas: Replicas;
  haproxy: Haproxy;
  /** Replica i's gate pid, asked when the rig started (or restarted it). */
  gatePids: number[];
  /** The replica whose gate has this pid, or -1. */
  replicaOfGate(pid: number): number;
  /** Restarts replica i (after a kill), learns its new gate pid, and waits until haproxy has it UP again. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

/** gate.whoami's pid asked of the replica at `url` directly. */
async function gatePidAt(url: string): Promise<number> {
  const c = await connectHttp(url, { revision: "2026-07-28", headers: FRESH_CONNECTIONS });
  try {
    const r = await c.call("call_tool", { address: "gate.whoami", args: {}, resultMode: "value" });
    const pid = (r.structuredContent as { data?: { pid?: number } } | undefined)?.data?.pid;
    if (typeof pid !== "number") throw new Error(`gate.whoami answered no pid: ${JSON.stringify(r.structuredContent)}`);
    return pid;
  } finally {
    await c.close();
  }
}

export async function startRig(opts: Partial<ReplicaOptions> & { haproxy?: Omit<HaproxyOptions, "backends"> } = {}): Promise<Rig> {
  const replicas = await startReplicas({ n: 2, config: rigConfig(), ...opts });
  let haproxy: Haproxy;
  try {
    haproxy = await startHaproxy({ backends: replicas.replicas.map((r) => r.port), ...opts.haproxy });
  } catch (e) {
    await replicas.stop();
    throw e;
  }
  const gatePids = await Promise.all(replicas.replicas.map((r) => gatePidAt(r.url)));
  return {
    replicas,
    haproxy,
    gatePids,
    replicaOfGate: (pid) => gatePids.indexOf(pid),
    async restart(i) {
      const up = haproxy.waitForServer(i, "UP");
      await replicas.restart(i);
      gatePids[i] = await gatePidAt(replicas.replicas[i].url);
      await up;
    },
    async stop() {
      await haproxy.stop();
      await replicas.stop();
    },
  };
}
