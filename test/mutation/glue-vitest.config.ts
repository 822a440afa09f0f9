// The vitest configuration Stryker runs the glue's mutants against (stryker.config.json,
// `npm run mutate:glue`). Stryker mutates glue/*.ts in its sandbox; only a test that imports the
// glue in its own process can see a mutant. Most suites start the built bundle (dist/) as a child
// process instead, which never holds a mutant: running them would only cost time. So this config
// includes the in-process test files: each imports something from glue/ and starts no atrium of
// its own (no startAtrium, startHttpAtrium, bin/atrium, the bundle or a replica rig). Tests that
// spawn downstream MCP servers through an in-process createApp stay in: the glue under test runs
// here. Left out as well: the browser suites (Chromium), the architecture walls (they read source
// text), the reproducible build (it recompiles the core with asc) and the embeddings suites (they
// load the sentence encoder to prove embeddings/, which is not mutated): they cost minutes and see
// no mutant of the files `mutate:glue` mutates.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "../../vitest.config.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const startsAnAtrium = /startAtrium|startHttpAtrium|atriumBin|bin\/atrium|dist\/bundle|replica-rig|rig-client|startRig/;
const importsGlue = /from "(\.\.\/)+glue\//;
const leftOut = ["test/architecture.test.ts", "test/browser/", "test/reproducible-build.test.ts", "test/embeddings-"];

function inProcessTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === "servers" || d.name === "fixtures" ? [] : inProcessTests(path);
    if (!d.name.endsWith(".test.ts")) return [];
    const file = relative(repo, path);
    if (leftOut.some((l) => file.startsWith(l))) return [];
    const text = readFileSync(path, "utf8");
    return importsGlue.test(text) && !startsAnAtrium.test(text) ? [file] : [];
  });
}

// One property test is left out by name: config.test.ts's "never throws on arbitrary values" runs
// for 14 s, covers every line of config/validate.ts and asserts only that validation never throws
// (validateConfig catches whatever a reader throws, so only a mutant of that catch could fail it,
// and config.test.ts's "never throws on hostile inputs" judges that one in milliseconds); with
// it, each of the file's 630 mutants would take 14 s more.
const leftOutTests = /^(?!.*never throws on arbitrary values)/;

// The base config with its include replaced (mergeConfig would add to it, not replace it).
export default defineConfig({ ...base, test: { ...base.test, include: inProcessTests(join(repo, "test")), testNamePattern: leftOutTests } });
