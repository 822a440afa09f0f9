// The `atrium` command line. stdout carries protocol only; everything for people goes to stderr.
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
const args = process.argv.slice(2);

if (args.includes("--version") || args.includes("-v")) {
  process.stdout.write(`${pkg.version}\n`);
} else {
  process.stderr.write(
    `atrium ${pkg.version}: the decision core is built (npm run spec); the stdio server is not built yet.\n` +
      "See README.md for what works today.\n",
  );
  process.exitCode = args.length === 0 || args.includes("--help") ? 0 : 2;
}
