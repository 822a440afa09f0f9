// `npm run mutate`: mutates the AssemblyScript core, recompiles each mutant in-process with
// asc's API, runs the spec examples and the property tests against it, and reports killed /
// survived / did-not-compile per site. Exits non-zero on any survivor not listed in
// test/mutation/equivalents.json (or on a listed entry that no longer exists or is now killed).
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { compileCore, coreSources, repoRoot } from "../../glue/build/spec/build.js";
import { createCore } from "../../glue/decisions/core.js";
import { readSpec } from "../../glue/build/spec/parse.js";
import { runExamples } from "../../glue/build/spec/examples.js";
import { coreProperties } from "../properties/core-properties.js";
import { findMutants, apply, type Mutant } from "./sites.js";
import { semanticMutants } from "./semantic.js";

type Status = "killed" | "survived" | "no-compile";
interface Job { key: string; file: string; text: string }
interface Outcome { key: string; status: Status; by?: string }

/** -O0 compiles ~4x faster and has the same semantics; the committed build uses asconfig's level. */
const FAST = ["--optimizeLevel", "0", "--shrinkLevel", "0"];
const PROPERTY_RUNS = { numRuns: 300, seed: 20261129 };

async function judge(job: Job): Promise<Outcome> {
  const { binary } = await compileCore(new Map([[job.file, job.text]]), FAST);
  if (!binary) return { key: job.key, status: "no-compile" };
  const core = createCore(binary);
  const report = runExamples(core, readSpec());
  const failed = report.results.find((r) => !r.pass);
  if (failed) return { key: job.key, status: "killed", by: `example ${failed.example.clause} (spec/${failed.example.file}:${failed.example.line})` };
  for (const p of coreProperties) {
    try { p.run(createCore(binary), PROPERTY_RUNS); } catch { return { key: job.key, status: "killed", by: `property "${p.name}"` }; }
  }
  return { key: job.key, status: "survived" };
}

if (!isMainThread) {
  for (const job of workerData.jobs as Job[]) parentPort!.postMessage(await judge(job));
} else {
  const started = Date.now();
  const sources = new Map(coreSources().map((f) => [f, readFileSync(join(repoRoot, f), "utf8")]));
  const sites: Mutant[] = [...sources].flatMap(([f, text]) => findMutants(f, text));
  const jobs: Job[] = sites.map((m) => ({ key: m.id, file: m.file, text: apply(sources.get(m.file)!, m) }));
  for (const s of semanticMutants) {
    const text = sources.get(s.file);
    if (!text || !text.includes(s.find)) { console.error(`semantic mutant "${s.name}" no longer applies to ${s.file}: update test/mutation/semantic.ts`); process.exit(2); }
    jobs.push({ key: `semantic: ${s.name}`, file: s.file, text: text.replace(s.find, s.replace) });
  }

  // The unmutated core must pass at -O0, or every "killed" below would mean nothing.
  const baseline = await judge({ key: "baseline", file: coreSources()[0], text: sources.get(coreSources()[0])! });
  if (baseline.status !== "survived") { console.error(`baseline core fails its own checks (${baseline.status} ${baseline.by ?? ""})`); process.exit(2); }

  const workers = Math.max(1, Math.min(availableParallelism(), 4));
  const outcomes = new Map<string, Outcome>();
  await Promise.all(
    Array.from({ length: workers }, (_, w) =>
      new Promise<void>((resolve, reject) => {
        const mine = jobs.filter((_, i) => i % workers === w);
        const worker = new Worker(new URL(import.meta.url), { workerData: { jobs: mine } });
        worker.on("message", (o: Outcome) => { outcomes.set(o.key, o); if (outcomes.size % 50 === 0) process.stderr.write(`  ${outcomes.size}/${jobs.length} mutants judged\n`); });
        worker.on("error", reject);
        worker.on("exit", () => resolve());
      }),
    ),
  );

  const equivalents: { id: string; reason: string }[] = JSON.parse(readFileSync(join(repoRoot, "test/mutation/equivalents.json"), "utf8"));
  const listed = new Map(equivalents.map((e) => [e.id, e.reason]));
  const all = jobs.map((j) => outcomes.get(j.key) ?? { key: j.key, status: "survived" as Status, by: "worker never reported" });
  const count = (s: Status) => all.filter((o) => o.status === s).length;
  const survivors = all.filter((o) => o.status === "survived");
  const unlisted = survivors.filter((o) => !listed.has(o.key));
  const stale = equivalents.filter((e) => !survivors.some((o) => o.key === e.id));

  mkdirSync(join(repoRoot, "test-artifacts"), { recursive: true });
  writeFileSync(join(repoRoot, "test-artifacts/mutation.json"), JSON.stringify(all, null, 1));
  const perFile = new Map<string, Record<Status, number>>();
  for (const [i, o] of all.entries()) {
    const f = jobs[i].file;
    const row = perFile.get(f) ?? { killed: 0, survived: 0, "no-compile": 0 };
    row[o.status]++;
    perFile.set(f, row);
  }
  console.log("mutation run (sites per file: killed / survived / did-not-compile)");
  for (const [f, r] of perFile) console.log(`  ${f.padEnd(32)} ${String(r.killed).padStart(4)} / ${String(r.survived).padStart(3)} / ${String(r["no-compile"]).padStart(3)}`);
  for (const o of survivors) console.log(`  ${listed.has(o.key) ? "equivalent" : "SURVIVED  "} ${o.key}${listed.has(o.key) ? `  (${listed.get(o.key)})` : ""}`);
  for (const e of stale) console.log(`  STALE equivalent (no longer survives): ${e.id}`);
  console.log(`mutants: ${all.length} (${sites.length} sites + ${semanticMutants.length} semantic), killed ${count("killed")}, survived ${survivors.length} (${survivors.length - unlisted.length} listed equivalent), did not compile ${count("no-compile")}; ${((Date.now() - started) / 1000).toFixed(1)} s on ${workers} workers`);
  const ok = unlisted.length === 0 && stale.length === 0;
  console.log(ok ? "mutation: every mutant killed or listed as equivalent" : `mutation: FAILED (${unlisted.length} unlisted survivors, ${stale.length} stale equivalents)`);
  process.exit(ok ? 0 : 1);
}
