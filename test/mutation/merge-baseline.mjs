#!/usr/bin/env node
// Merges StrykerJS incremental reports (the mutation-testing-report schema) into one baseline, so
// runs of some files each (`stryker run --mutate FILES --incrementalFile OUT`) add up to the
// committed test/mutation/glue-incremental.json that `npm run mutate:glue:changed` starts from.
//
//   node test/mutation/merge-baseline.mjs OUT IN1[#PREFIX,...] [IN2[#PREFIX,...] ...]
//
// A run's incremental file also carries every other file of the baseline it started from, as it
// was then: `#` and comma-separated path prefixes take only the files that run mutated
// (`hostops.json#glue/sandbox/host-ops.ts,glue/sandbox/bridge.ts`). A later input wins for a file. Test ids are per run, so each test is keyed by
// its file and full name and numbered afresh. A test file is taken in the version whose source
// matches the file in this checkout (else from the latest input that has it). A mutant is kept
// only when every test it names (covered by, killed by) is still in the merged set, and a file
// only when its recorded source matches this checkout: whatever is dropped is simply run again.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const [out, ...inputs] = process.argv.slice(2);
if (!out || inputs.length === 0) {
  console.error("usage: node test/mutation/merge-baseline.mjs OUT IN1 [IN2 ...]");
  process.exit(2);
}
const specs = inputs.map((spec) => {
  const [path, prefixes] = spec.split("#");
  return { report: JSON.parse(readFileSync(path, "utf8")), takes: (file) => !prefixes || prefixes.split(",").some((p) => file.startsWith(p)) };
});
const reports = specs.map((s) => s.report);
const onDisk = (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);
const key = (file, name) => `${file}\u0000${name}`;

// The test files: the version matching this checkout, else the latest.
const testFiles = {};
for (const r of reports) {
  for (const [file, tf] of Object.entries(r.testFiles ?? {})) {
    const chosen = testFiles[file];
    if (chosen && chosen.source === onDisk(file) && tf.source !== onDisk(file)) continue;
    testFiles[file] = tf;
  }
}
const ids = new Map();
const merged = {};
for (const [file, tf] of Object.entries(testFiles)) {
  merged[file] = { source: tf.source, tests: tf.tests.map((t) => {
    const id = String(ids.size);
    ids.set(key(file, t.name), id);
    return { ...t, id };
  }) };
}

// The mutated files: the latest input's record, each test id translated or the mutant dropped.
const files = {};
let kept = 0;
let dropped = 0;
let nextMutant = 0;
for (const { report: r, takes } of specs) {
  const byId = new Map();
  for (const [file, tf] of Object.entries(r.testFiles ?? {})) for (const t of tf.tests) byId.set(t.id, key(file, t.name));
  for (const [file, f] of Object.entries(r.files)) {
    if (!takes(file) || f.source !== onDisk(file)) continue;
    const mutants = [];
    for (const m of f.mutants) {
      const translate = (list) => (list ?? []).map((id) => ids.get(byId.get(id)));
      const coveredBy = translate(m.coveredBy);
      const killedBy = translate(m.killedBy);
      if ([...coveredBy, ...killedBy].some((id) => id === undefined)) {
        dropped++;
        continue;
      }
      mutants.push({ ...m, id: String(nextMutant++), ...(m.coveredBy ? { coveredBy } : {}), ...(m.killedBy ? { killedBy } : {}) });
    }
    files[file] = { ...f, mutants };
  }
}
for (const f of Object.values(files)) kept += f.mutants.length;
const first = reports[0];
writeFileSync(out, JSON.stringify({ ...first, files, testFiles: merged }));
console.log(`merge-baseline: ${Object.keys(files).length} file(s), ${kept} mutant(s) kept, ${dropped} dropped (to be run again), ${ids.size} test(s) → ${out}`);
