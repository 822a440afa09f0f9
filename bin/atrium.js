#!/usr/bin/env node
// The `atrium` command. The compiled glue lives in dist/ (built by `npm install` via prepare).
import { existsSync } from "node:fs";

const cli = new URL("../dist/glue/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write("atrium: dist/ is missing; run `npm install` (or `npm run build`) in the atrium folder first.\n");
  process.exit(1);
}
await import(cli.href);
