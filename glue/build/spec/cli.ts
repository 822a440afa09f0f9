// `npm run spec`: regenerate constants from spec/, rebuild wasm/, run every example against
// the built wasm, and print one report. Exits non-zero unless every example passes, none is
// vacuous and every clause has an example. With --generate-only it writes the generated tables
// and stops: `npm run spec` runs that first and compiles again, so the examples runner (compiled
// from glue/) already sees a code or budget the spec just added.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { readSpec } from "./parse.js";
import { JSON_INDENT } from "../../support/format.js";
import { writeGenerated } from "./generate.js";
import { ASC_ARGS, BUILD_RECORD, CORE_WASM, ascVersion, compileCore, repoRoot, sha256, sourceDigest } from "./build.js";

const spec = readSpec();
const regenerated = writeGenerated(spec);
if (process.argv.includes("--generate-only")) process.exit(0);
// Loaded only now: the examples runner reads glue facts files that may use a code this spec just
// added, so a --generate-only run never needs them to link against the tables it is writing.
const [{ runExamples }, { createCore }] = await Promise.all([import("./examples.js"), import("../../decisions/core.js")]);
const { binary, diagnostics } = await compileCore();
if (!binary) {
  process.stderr.write(`core build failed:\n${diagnostics}\n`);
  process.exit(1);
}
const wasmPath = join(repoRoot, CORE_WASM);
const changed = !existsSync(wasmPath) || !Buffer.from(binary).equals(readFileSync(wasmPath));
if (changed) writeFileSync(wasmPath, binary);
const asconfig = JSON.parse(readFileSync(join(repoRoot, "asconfig.json"), "utf8"));
const record = {
  compiler: `assemblyscript ${ascVersion()}`,
  args: ASC_ARGS,
  target: asconfig.targets.release,
  options: asconfig.options,
  sourceDigest: `sha256:${sourceDigest()}`,
  wasmDigest: `sha256:${sha256(binary)}`,
  wasmBytes: binary.length,
};
writeFileSync(join(repoRoot, BUILD_RECORD), JSON.stringify(record, null, JSON_INDENT) + "\n");

const report = runExamples(createCore(binary), spec);
for (const r of report.results.filter((r) => !r.pass)) {
  const e = r.example;
  process.stdout.write(`FAIL ${e.clause} spec/${e.file}:${e.line}${r.vacuous ? " (vacuous)" : ""}\n  given  ${JSON.stringify(e.given)}\n  expect ${JSON.stringify(e.expect)}\n  actual ${r.error ?? JSON.stringify(r.actual)}\n`);
}
const ok = report.passed === report.total && report.vacuous === 0 && report.clausesWithoutExample.length === 0;
process.stdout.write(
  [
    `spec report (${spec.files.length} files, ${spec.clauses.length} clauses${regenerated.length ? `, regenerated ${regenerated.join(", ")}` : ""}${changed ? ", wasm rebuilt" : ""})`,
    `  examples passed:          ${report.passed}/${report.total}`,
    `  vacuous examples:         ${report.vacuous}`,
    `  clauses without example:  ${report.clausesWithoutExample.length}${report.clausesWithoutExample.length ? ` (${report.clausesWithoutExample.join(", ")})` : ""}`,
    `  wasm digest:              ${record.wasmDigest} (${record.wasmBytes} bytes)`,
    ok ? "spec: all examples pass" : "spec: FAILED",
  ].join("\n") + "\n",
);
process.exit(ok ? 0 : 1);
