// Replicas: 100 and 500 concurrent 2026-07-28 clients, each its own principal (a token from the
// local bench issuer, so principal_programs and principal_requests_per_minute bound each client,
// not the crowd), running one-call programs through haproxy in front of two `atrium serve --http`
// replicas, and directly on one replica. Per level: calls/s and the latency of a one-call
// execute_code program (medians over rounds), and each replica's RSS before the clients connect
// and after their rounds. Figures only. Skips itself without redis-server or haproxy.
import { readFileSync } from "node:fs";
import { haproxyAvailable, startHaproxy, type Haproxy } from "../harness/haproxy.js";
import { redisAvailable } from "../harness/redis-server.js";
import { demoConfig, startReplicas, type Replicas } from "../harness/replicas.js";
import { connectHttp, type HttpClient } from "../harness/atrium-http.js";
import { startBenchIssuer, type BenchIssuer } from "./http-tokens.js";
import { stats, type Stats } from "./stats.js";
import { once, thrownCode, type Measure } from "./http-calls.js";

type Row = [string, Stats, string];

const LEVELS = [100, 500];
const ROUNDS = 3;
/** Programs each client sends one after another in a round. */
const PROGRAMS_EACH = 2;
const AUDIENCE = "https://atrium.bench/mcp";
const ONE_CALL: Measure = { label: "one-call program", tool: "execute_code", args: { code: `async () => (await desk.get_incident({ id: "INC-1042" })).id` } };
const MB = 1024 * 1024;

/** VmRSS of a process in bytes (NaN where /proc is not there). */
function rss(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) * 1024;
  } catch {
    return Number.NaN;
  }
}

const median = (xs: number[]) => stats(xs).median;

interface Target {
  label: string;
  url: string;
  pids: () => number[];
  stop(): Promise<void>;
}

/** `n` replicas: one is reached directly, more behind haproxy. */
async function target(n: number, issuer: BenchIssuer, headers: Record<string, string>): Promise<Target> {
  // The executor queue at its maximum (atrium.sandbox.queue 1024), so 500 programs at once wait for a sandbox instead of answering executor_overloaded; workers stay at their default.
  const config = { ...demoConfig, atrium: { ...demoConfig.atrium, sandbox: { queue: 1024 }, http: { auth: { issuer: issuer.issuer, audience: AUDIENCE } } } };
  const replicas: Replicas = await startReplicas({ n, config, clientHeaders: headers });
  let haproxy: Haproxy | undefined;
  try {
    if (n > 1) haproxy = await startHaproxy({ backends: replicas.replicas.map((r) => r.port) });
  } catch (e) {
    await replicas.stop();
    throw e;
  }
  return {
    label: n > 1 ? `haproxy → ${n} replicas` : "direct → 1 replica",
    url: haproxy?.url ?? replicas.replicas[0].url,
    pids: () => replicas.replicas.map((r) => r.pid),
    async stop() {
      await haproxy?.stop();
      await replicas.stop();
    },
  };
}

/** One level on one target: `n` clients connected, ROUNDS rounds of PROGRAMS_EACH programs each, all at once. */
async function level(t: Target, n: number, tokens: string[], rows: Row[], notes: string[]): Promise<void> {
  const label = `${t.label}, ${n} clients`;
  const before = t.pids().map(rss);
  const connected = await Promise.allSettled(tokens.slice(0, n).map((tok) => connectHttp(t.url, { revision: "2026-07-28", headers: { authorization: `Bearer ${tok}` } })));
  const clients = connected.flatMap((x) => (x.status === "fulfilled" ? [x.value] : []));
  const refused = connected.flatMap((x) => (x.status === "rejected" ? [thrownCode(x.reason)] : []));
  const failed: Record<string, number> = {};
  const perSecond: number[] = [];
  const p50s: number[] = [];
  const p95s: number[] = [];
  try {
    // One warm program per client (not timed): sandboxes, connections, token verification.
    await Promise.all(clients.map((c: HttpClient) => once(c.call, ONE_CALL)));
    for (let r = 0; r < ROUNDS; r++) {
      const ok: number[] = [];
      const t0 = performance.now();
      await Promise.all(clients.map(async (c: HttpClient) => {
        for (let i = 0; i < PROGRAMS_EACH; i++) {
          const x = await once(c.call, ONE_CALL);
          if (x.code) failed[x.code] = (failed[x.code] ?? 0) + 1;
          else ok.push(x.ms);
        }
      }));
      const wallS = (performance.now() - t0) / 1000;
      perSecond.push(ok.length / wallS);
      const s = stats(ok.length > 0 ? ok : [Number.NaN]);
      p50s.push(s.median);
      p95s.push(s.p95);
    }
    const after = t.pids().map(rss);
    rows.push([`${label}: ok programs/s`, stats(perSecond), "/s"]);
    rows.push([`${label}: one-call program latency`, { median: median(p50s), p95: median(p95s), n: ROUNDS }, "ms"]);
    before.forEach((b, i) => {
      rows.push([`${label}: replica ${i} RSS before → after`, { median: b / MB, p95: after[i] / MB, n: 1 }, "MB"]);
      notes.push(`${label}: replica ${i} RSS ${(b / MB).toFixed(0)} → ${(after[i] / MB).toFixed(0)} MB: ${((after[i] - b) / Math.max(1, clients.length / before.length) / 1024).toFixed(0)} KB per client (its share of them)`);
    });
    const errors = Object.entries(failed).map(([c, k]) => `${c} ×${k}`).join(", ");
    notes.push(`${label}: ${clients.length} connected${refused.length > 0 ? ` (${refused.length} refused: ${[...new Set(refused)].join(", ")})` : ""}; ${ROUNDS} rounds × ${clients.length} × ${PROGRAMS_EACH} programs; errors: ${errors || "none"}`);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

export async function benchReplicas(): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const missing = [!redisAvailable() && "redis-server", !haproxyAvailable() && "haproxy"].filter(Boolean);
  if (missing.length > 0) return { rows, notes: [`skipped: ${missing.join(" and ")} not on PATH (Debian packages redis-server, haproxy; .ci/run installs them)`] };
  const started = performance.now();
  const issuer = await startBenchIssuer();
  try {
    const max = Math.max(...LEVELS);
    const tokens = await Promise.all(Array.from({ length: max }, (_, i) => issuer.token(`bench-replica-client-${i + 1}`, AUDIENCE)));
    const ready = { authorization: `Bearer ${tokens[0]}` };
    // A third replica at the first level only: what one more process adds on the same cores.
    for (const [replicas, levels] of [[1, LEVELS], [2, LEVELS], [3, LEVELS.slice(0, 1)]] as const) {
      const t = await target(replicas, issuer, ready);
      try {
        for (const n of levels) await level(t, n, tokens, rows, notes);
      } finally {
        await t.stop();
      }
    }
    notes.push(
      `each client is its own principal (a distinct sub from a local RS256 issuer), one SDK client on 2026-07-28 (stateless: no session is kept between requests); ` +
        `calls/s: ok programs per second of a round's wall clock (median, p95 column: the best round); latency: the median over rounds of each round's p50 and p95; ` +
        `RSS: VmRSS of each atrium process before a level's clients connect and after their rounds, clients still connected (not of its connector children; the 500 level starts where the 100 level left it); ` +
        `2026-07-28 keeps no session between requests, so the growth per client is heap grown under load, not state held per client. ` +
        `atrium.sandbox.queue 1024, workers at the default; haproxy roundrobin with /readyz checks. Replicas, haproxy and this client share the machine's cores. ` +
        `the whole table took ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await issuer.close();
  }
  return { rows, notes };
}
