// The `atrium` command line. stdout carries protocol only; everything for people goes to stderr.
import { packageVersion } from "./paths.js";

const pkg = { version: packageVersion };

const HELP = `atrium ${pkg.version}: one MCP server in front of many

usage:
  atrium [serve] [--config FILE]   serve MCP on stdio (the default command)
  atrium doctor [--config FILE]    start every connector and report its health
  atrium demo [--out DIR]          a scripted session ending in a rendered view (HTML file)
  atrium demo --serve [--port N]   the same, then a local MCP Apps host with the live view
  atrium --help | --version

config lookup: --config FILE, then $ATRIUM_CONFIG, then ./atrium.json;
with none, atrium serves its embedded demo connector (a small service desk).
`;

async function main(argv: string[]): Promise<number | undefined> {
  if (argv.includes("--help") || argv.includes("-h")) { process.stderr.write(HELP); return 0; }
  if (argv.includes("--version") || argv.includes("-v")) { process.stdout.write(`${pkg.version}\n`); return 0; }
  const [command = "serve"] = argv.filter((a, i) => !a.startsWith("-") && argv[i - 1] !== "--config" && argv[i - 1] !== "--out" && argv[i - 1] !== "--port");
  if (command === "demo") return (await import("./commands/demo.js")).demo(argv, pkg.version);
  if (command !== "serve" && command !== "doctor") { process.stderr.write(`atrium: unknown command ${command}\n\n${HELP}`); return 2; }
  // Loaded only for the commands that need them, so --help and --version stay instant.
  const { resolveConfig } = await import("./commands/resolve-config.js");
  const cfg = resolveConfig(argv);
  if (!cfg.ok) { process.stderr.write(cfg.message + "\n"); return 1; }
  if (command === "doctor") return (await import("./commands/doctor.js")).doctor(cfg.config, cfg.source, pkg.version);
  await (await import("./commands/serve.js")).serve(cfg.config, cfg.source, pkg.version);
  return undefined; // keep serving
}

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exit(code);
