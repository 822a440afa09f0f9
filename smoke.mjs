#!/usr/bin/env node
// End-to-end smoke run over real stdio. The server is not built yet; this checks what exists:
// the committed decision core loads and answers its spec examples.
import { readSpec } from "./dist/glue/spec/parse.js";
import { runExamples } from "./dist/glue/spec/examples.js";
import { core } from "./dist/glue/core.js";

const r = runExamples(core(), readSpec());
let n = 0;
const check = (name, ok) => { if (!ok) { console.log(`FAIL ${name}`); process.exit(1); } console.log(`ok ${++n} ${name}`); };
check(`decision core answers ${r.total} spec examples`, r.passed === r.total && r.vacuous === 0);
console.log(`${n} ok`);
console.log("all checks passed");
