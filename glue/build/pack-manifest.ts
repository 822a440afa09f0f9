// `npm pack` / `npm publish` time only (package.json "prepack" and "postpack"), never loaded by the
// server: the package.json that ships carries no scripts. A clone needs `prepare` (it builds dist/
// on `npm install`), but an installed package has nothing to build, and npm warns about a package
// that carries install-time scripts. "strip" keeps the clone's package.json aside and writes the
// shipped one (refusing when dist/ is not built: a pack runs no build once `prepare` is gone);
// "restore" puts the clone's back. A backup left by a pack that failed half-way is restored first.
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { JSON_INDENT } from "../support/format.js";

const root = process.cwd(); // npm runs pack scripts in the package's folder
const manifest = join(root, "package.json");
const backup = join(root, "package.json.unpacked");

function strip(): number {
  if (existsSync(backup)) renameSync(backup, manifest);
  if (!existsSync(join(root, "dist/bundle/atrium.mjs"))) {
    process.stderr.write("atrium pack: dist/ is not built; run `npm run build` first\n");
    return 1;
  }
  copyFileSync(manifest, backup);
  const shipped = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>;
  delete shipped.scripts;
  writeFileSync(manifest, `${JSON.stringify(shipped, null, JSON_INDENT)}\n`);
  return 0;
}

function restore(): number {
  if (existsSync(backup)) renameSync(backup, manifest);
  return 0;
}

const [, , step] = process.argv; // after node's path and this script's
process.exitCode = step === "strip" ? strip() : step === "restore" ? restore() : 1;
