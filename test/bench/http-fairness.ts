// Fairness in team mode: one principal's single one-call programs, one after another, while
// other principals burst, each keeping principal_programs (4) CPU-heavy programs in flight, on one
// `atrium serve --http` with atrium.http.auth and the default sandbox (2 workers, executor_queue
// 32). Bursters × 4 + 1 fits the workers plus the queue, so no program is refused for room and the
// figure is the wait alone: with the fair queue, the single program waits behind at most one
// program of each bursting principal; with a FIFO queue, behind every program already waiting.
// Figures only; failures are counted by error code, never asserted.
import { startHttpAtrium, connectHttp, type HttpClient } from "../harness/atrium-http.js";
import { core } from "../../glue/decisions/core.js";
import { Budget } from "../../glue/decisions/generated/spec.js";
import { nodeServer, demoServer } from "../harness/atrium-client.js";
import { startBenchIssuer } from "./http-tokens.js";
import { once, settled, type Measure } from "./http-calls.js";
import { stats, type Stats } from "./stats.js";

type Row = [string, Stats, string];
type Tally = Record<string, number>;

const AUDIENCE = "https://atrium.bench/mcp";
const BURSTERS = 8;
const SINGLE_RUNS = 60;
const WARM = 5;
const demo = { mcpServers: { desk: nodeServer(demoServer) }, atrium: { search: { semantic: false } } };
// diagnostics: true, so each answer also says how long the program waited for a sandbox (queueMs).
const SINGLE: Measure = { label: "one-call program", tool: "execute_code", args: { code: `async () => (await desk.get_incident({ id: "INC-1042" })).id`, diagnostics: true } };
// Enough CPU that the queue stays long (tens of milliseconds a program in QuickJS).
const HEAVY: Measure = { label: "CPU program", tool: "execute_code", args: { code: `async () => { let s = 0; for (let k = 0; k < 400000; k++) s += k % 7; return s; }` } };

const add = (t: Tally, code: string) => void (t[code] = (t[code] ?? 0) + 1);
const show = (t: Tally) => Object.entries(t).map(([c, n]) => `${c} ×${n}`).join(", ") || "none";

/** `n` sequential answers of `m`: the latencies of those that succeeded and their waits for a sandbox, and the others by code. */
async function sequential(c: HttpClient, m: Measure, n: number, failed: Tally): Promise<{ ms: number[]; queueMs: number[] }> {
  const ms: number[] = [];
  const queueMs: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await once(c.call, m);
    if (r.code) add(failed, r.code);
    else {
      ms.push(r.ms);
      const q = (r.result?.structuredContent as { diagnostics?: { queueMs?: number } } | undefined)?.diagnostics?.queueMs;
      if (q !== undefined) queueMs.push(q);
    }
  }
  return { ms, queueMs };
}
/** stats() of the samples (NaN when there are none, so the table still prints). */
const statsOf = (s: number[]) => stats(s.length > 0 ? s : [Number.NaN]);

export async function benchFairness(): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const c = core();
  const inFlight = c.limitDefault(Budget.principal_programs);
  const issuer = await startBenchIssuer();
  const h = await startHttpAtrium({ config: { ...demo, atrium: { ...demo.atrium, http: { auth: { issuer: issuer.issuer, audience: AUDIENCE } } } } });
  const clients: HttpClient[] = [];
  try {
    const token = (s: string) => issuer.token(s, AUDIENCE);
    const connect = async (s: string) => { const x = await connectHttp(h.url, { revision: "2025-11-25", headers: { authorization: `Bearer ${await token(s)}` } }); clients.push(x); return x; };
    const single = await connect("bench-single");
    const bursters = await Promise.all(Array.from({ length: BURSTERS }, (_, i) => connect(`bench-burster-${i + 1}`)));
    await settled(single.call);
    const singleFailed: Tally = {};
    await sequential(single, SINGLE, WARM, {});
    const idle = await sequential(single, SINGLE, SINGLE_RUNS, singleFailed);
    const heavyIdle = await sequential(bursters[0]!, HEAVY, WARM, {});
    rows.push([`one-call program, alone`, statsOf(idle.ms), "ms"], [`  its wait for a sandbox (queueMs)`, statsOf(idle.queueMs), "ms"]);
    // Every burster keeps `inFlight` programs going until the single principal's runs are done.
    let bursting = true;
    const burstFailed: Tally = {};
    let burstOk = 0;
    const loops = bursters.flatMap((b) => Array.from({ length: inFlight }, async () => {
      while (bursting) {
        const r = await once(b.call, HEAVY);
        if (r.code) add(burstFailed, r.code);
        else burstOk++;
      }
    }));
    const t0 = performance.now();
    const busy = await sequential(single, SINGLE, SINGLE_RUNS, singleFailed);
    bursting = false;
    await Promise.all(loops);
    const wallS = (performance.now() - t0) / 1000;
    // The wait in programs rather than milliseconds (at the bursters' mean rate), so runs on faster
    // or busier machines compare: fair, about one per bursting principal; FIFO, about the whole queue.
    const perSecond = burstOk / wallS;
    rows.push(
      [`one-call program, while ${BURSTERS} principals × ${inFlight} CPU programs burst`, statsOf(busy.ms), "ms"],
      [`  its wait for a sandbox (queueMs)`, statsOf(busy.queueMs), "ms"],
      [`  the same wait in bursters' programs (queueMs × their rate)`, statsOf(busy.queueMs.map((q) => (q / 1000) * perSecond)), "progs"],
    );
    notes.push(
      `fairness: ${SINGLE_RUNS} one-call programs of one principal, one after another, alone and then while ${BURSTERS} other principals each keep ${inFlight} (principal_programs) CPU programs in flight ` +
        `(one alone: median ${statsOf(heavyIdle.ms).median.toFixed(1)} ms); default sandbox (sandbox_workers ${c.limitDefault(Budget.sandbox_workers)}, executor_queue ${c.limitDefault(Budget.executor_queue)}); ` +
        `the bursters' ${burstOk} ok programs in ${wallS.toFixed(2)} s (${perSecond.toFixed(0)}/s); errors: single principal ${show(singleFailed)}, bursters ${show(burstFailed)}`,
    );
  } finally {
    await Promise.all(clients.map((x) => x.close()));
    await h.stop();
    await issuer.close();
  }
  return { rows, notes };
}
