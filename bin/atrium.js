#!/usr/bin/env node
// The `atrium` command: the bundled CLI when built (one file, fastest start), else the tsc output.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/bundle/atrium.mjs", import.meta.url);
const compiled = new URL("../dist/glue/cli.js", import.meta.url);
const entry = [bundle, compiled].find((u) => existsSync(u));
if (!entry) {
  process.stderr.write("atrium: dist/ is missing; run `npm install` (or `npm run build`) in the atrium folder first.\n");
  process.exit(1);
}
await import(entry.href);
