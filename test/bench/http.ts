// Streamable HTTP vs stdio in one run, with the demo connector: the programs of programs.ts (no-op,
// one host call, a ten-call batch) and a lexical search_tools round trip, each over stdio, then a
// real `atrium serve --http` with a 2025-11-25 session client and a 2026-07-28 stateless client.
// Then team mode: 50 principals, each a distinct token subject from a local issuer, running
// programs at once. Figures only; failures are counted by error code, never asserted.
import { startAtrium, nodeServer, demoServer } from "../harness/atrium-client.js";
import { startHttpAtrium, connectHttp, type HttpClient } from "../harness/atrium-http.js";
import { core } from "../../glue/decisions/core.js";
import { Budget } from "../../glue/decisions/generated/spec.js";
import { startBenchIssuer, type BenchIssuer } from "./http-tokens.js";
import { stats, type Stats } from "./stats.js";
import { once, settled, thrownCode, type Call, type Measure } from "./http-calls.js";

type Row = [string, Stats, string];
type Tally = Record<string, number>;

const RUNS = 200;
const WARM = 10;
const PRINCIPALS = 50;
const PROGRAMS_EACH = 10;
const AUDIENCE = "https://atrium.bench/mcp";
const demo = { mcpServers: { desk: nodeServer(demoServer) }, atrium: { search: { semantic: false } } };
const ONE_CALL = `async () => (await desk.get_incident({ id: "INC-1042" })).id`;
const MEASURES: Measure[] = [
  { label: "execute_code no-op", tool: "execute_code", args: { code: "async () => 1" } },
  { label: "execute_code one host call", tool: "execute_code", args: { code: ONE_CALL } },
  { label: "execute_code ten-call batch", tool: "execute_code", args: { code: `async () => (await atrium.batch(Array.from({ length: 10 }, (_, i) => ({ address: "desk.get_incident", args: { id: "INC-" + (1041 + i) } })))).length` } },
  { label: "search_tools round trip (lexical)", tool: "search_tools", args: { query: "service metrics" } },
];
const REVISIONS = [
  { revision: "2025-11-25", label: "HTTP 2025-11-25 (session)" },
  { revision: "2026-07-28", label: "HTTP 2026-07-28 (stateless)" },
] as const;

const add = (t: Tally, code: string) => void (t[code] = (t[code] ?? 0) + 1);
const merge = (into: Tally, from: Tally) => { for (const [code, n] of Object.entries(from)) into[code] = (into[code] ?? 0) + n; };
const count = (t: Tally) => Object.values(t).reduce((a, b) => a + b, 0);
const show = (t: Tally) => Object.entries(t).map(([c, n]) => `${c} ×${n}`).join(", ") || "none";
/** stats() of the successful samples (NaN when none succeeded, so the table still prints). */
const statsOf = (s: number[]) => stats(s.length > 0 ? s : [Number.NaN]);

/** `n` sequential answers: the latencies of those that succeeded, and the others by code. */
async function leg(call: Call, m: Measure, n: number): Promise<{ stats: Stats; failed: Tally }> {
  const s: number[] = [];
  const failed: Tally = {};
  for (let i = 0; i < n; i++) {
    const r = await once(call, m);
    if (r.code) add(failed, r.code);
    else s.push(r.ms);
  }
  return { stats: statsOf(s), failed };
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const ms = (v: number) => `${v.toFixed(2)} ms`;

async function sideBySide(rows: Row[], notes: string[]): Promise<void> {
  const stdio = await startAtrium({ config: demo });
  try {
    for (const m of MEASURES) {
      await leg(stdio.call, m, WARM);
      const base = await leg(stdio.call, m, RUNS);
      rows.push([`${m.label} — stdio`, base.stats, "ms"]);
      if (count(base.failed) > 0) notes.push(`${m.label} — stdio: ${count(base.failed)} of ${RUNS} answered an error (${show(base.failed)}), left out of its figures`);
      const ratios: string[] = [];
      // A fresh serve --http per measure (see the note on principal_requests_per_minute below).
      const h = await startHttpAtrium({ config: demo });
      try {
        for (const r of REVISIONS) {
          const c = await connectHttp(h.url, { revision: r.revision });
          try {
            await settled(c.call);
            await leg(c.call, m, WARM);
            const x = await leg(c.call, m, RUNS);
            rows.push([`${m.label} — ${r.label}`, x.stats, "ms"]);
            if (count(x.failed) > 0) notes.push(`${m.label} — ${r.label}: ${count(x.failed)} of ${RUNS} answered an error (${show(x.failed)}), left out of its figures`);
            ratios.push(`${r.revision} ${ratio(x.stats.median, base.stats.median)}`);
          } finally {
            await c.close();
          }
        }
      } finally {
        await h.stop();
      }
      notes.push(`${m.label}: HTTP/stdio median ${ratios.join(", ")} (stdio median ${ms(base.stats.median)})`);
    }
  } finally {
    await stdio.close();
  }
}

/** 50 principals at once against one serve --http with atrium.http.auth, on each revision; `sandbox`: atrium.sandbox (undefined: not set). */
async function burst(rows: Row[], notes: string[], issuer: BenchIssuer, tokens: string[], variant: { label: string; sandbox?: Record<string, number> }): Promise<Tally> {
  const config = { ...demo, atrium: { ...demo.atrium, ...(variant.sandbox && { sandbox: variant.sandbox }), http: { auth: { issuer: issuer.issuer, audience: AUDIENCE } } } };
  const h = await startHttpAtrium({ config });
  const seen: Tally = {};
  try {
    const one = MEASURES[1];
    for (const r of REVISIONS) {
      const connected = await Promise.allSettled(tokens.map((t) => connectHttp(h.url, { revision: r.revision, headers: { authorization: `Bearer ${t}` } })));
      const clients = connected.flatMap((x) => (x.status === "fulfilled" ? [x.value] : []));
      try {
        const refused: Tally = {};
        for (const x of connected) if (x.status === "rejected") add(refused, thrownCode(x.reason));
        const label = `${PRINCIPALS} principals × ${PROGRAMS_EACH} one-call programs${variant.label} — ${r.label}`;
        merge(seen, refused);
        if (count(refused) > 0) notes.push(`${label}: ${count(refused)} of ${PRINCIPALS} principals could not connect (${show(refused)})`);
        if (clients.length === 0) continue;
        await settled(clients[0].call);
        await leg(clients[0].call, one, WARM);
        const ok: number[] = [];
        const all: number[] = [];
        const failed: Tally = {};
        const t0 = performance.now();
        await Promise.all(clients.map(async (c: HttpClient) => {
          for (let i = 0; i < PROGRAMS_EACH; i++) {
            const x = await once(c.call, one);
            all.push(x.ms);
            if (x.code) add(failed, x.code);
            else ok.push(x.ms);
          }
        }));
        const wallS = (performance.now() - t0) / 1000;
        merge(seen, failed);
        rows.push([`${label}: ok`, statsOf(ok), "ms"]);
        if (count(failed) > 0) rows.push([`${label}: every answer`, statsOf(all), "ms"]);
        notes.push(`${label}: ${clients.length} principals connected, ${all.length} programs answered in ${wallS.toFixed(2)} s = ${(all.length / wallS).toFixed(0)} answers/s, ${ok.length} ok = ${(ok.length / wallS).toFixed(0)} ok programs/s; errors: ${show(failed)}`);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    }
  } finally {
    await h.stop();
  }
  return seen;
}

async function principals(rows: Row[], notes: string[]): Promise<void> {
  const issuer = await startBenchIssuer();
  try {
    const subjects = Array.from({ length: PRINCIPALS }, (_, i) => `bench-principal-${String(i + 1).padStart(2, "0")}`);
    const tokens = await Promise.all(subjects.map((s) => issuer.token(s, AUDIENCE)));
    const c = core();
    const workers = c.limitDefault(Budget.sandbox_workers);
    const queue = c.limitDefault(Budget.executor_queue);
    const first = await burst(rows, notes, issuer, tokens, { label: "" });
    // The executor queue is configurable (atrium.sandbox.queue); the same burst once more with room for every principal's program.
    const second = await burst(rows, notes, issuer, tokens, { label: `, sandbox.queue ${PRINCIPALS}`, sandbox: { queue: PRINCIPALS } });
    const rateLimited = (first.rate_limited ?? 0) + (second.rate_limited ?? 0);
    notes.push(
      `team mode: atrium.http.auth = { issuer: a local RS256 issuer at http://127.0.0.1:<port> (loopback http is accepted for the issuer and its jwks_uri), audience: "${AUDIENCE}" }; ` +
        `${PRINCIPALS} tokens with distinct sub (one per principal, reused on both revisions); the issuer answered ${Object.entries(issuer.hits).map(([p, n]) => `${p} ×${n}`).join(", ")}`,
    );
    notes.push(
      `limits: principal_programs (${c.limitDefault(Budget.principal_programs)}) and principal_requests_per_minute (${c.limitDefault(Budget.principal_requests_per_minute)}) are the core's defaults, which atrium.json cannot change; rate_limited answers in both bursts: ${rateLimited} (` +
        `each principal runs one program at a time and sends about ${PROGRAMS_EACH + 3} requests per revision). The first burst leaves atrium.sandbox unset (sandbox_workers ${workers}, executor_queue ${queue}: ` +
        `at most ${workers + queue} programs running or waiting, one more answers executor_overloaded); the second sets only atrium.sandbox.queue = ${PRINCIPALS}, workers still ${workers}`,
    );
  } finally {
    await issuer.close();
  }
}

export async function benchHttp(): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  const notes: string[] = [];
  await sideBySide(rows, notes);
  notes.push(
    `the sequential HTTP legs run as the one "local" principal (loopback, no auth), capped at principal_requests_per_minute (${core().limitDefault(Budget.principal_requests_per_minute)}, not configurable); ` +
      `each measure therefore gets its own serve --http process, so its 2 × (${WARM} + ${RUNS}) requests fit one fresh window (nothing raised). HTTP legs carry no bearer token; the team-mode rows below do.`,
  );
  await principals(rows, notes);
  return { rows, notes };
}
