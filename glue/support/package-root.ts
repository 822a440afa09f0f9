// The package root (the folder whose package.json names atrium-mcp), found once from wherever
// the running code lives: glue/ under vitest, dist/glue/ compiled, dist/bundle/ bundled. The one
// root finder: shipped files, the committed core and the spec build all resolve from here.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(): string {
  for (let d = dirname(fileURLToPath(import.meta.url)); ; d = dirname(d)) {
    const pkg = join(d, "package.json");
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === "atrium-mcp") return d;
    if (d === dirname(d)) throw new Error("atrium: cannot find its package root");
  }
}

export const packageRoot = findRoot();
