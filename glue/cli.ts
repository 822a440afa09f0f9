// The `atrium` command line. A command's output goes to stdout (`--help`, `--version`, the doctor
// report, the demo transcript); `serve`'s stdout carries JSON-RPC only, so its banner goes to
// stderr, as do the error messages of every command. A reader that closes stdout early ends a
// command quietly (commands/output-closed.ts); a command that fails says so in one line, exit 1.
import { packageVersion } from "./support/paths.js";
import { parseCommandLine } from "./commands/args.js";
import { EXIT_USAGE } from "./support/wire.js";
import { endQuietlyWhenOutputCloses, outputClosedEnding } from "./commands/output-closed.js";
import { quietSdkAuthWarnings } from "./auth/sdk-warnings.js";

const HELP = `atrium ${packageVersion}: one MCP server in front of many

usage:
  atrium [serve] [--config FILE]   serve MCP on stdio (the default command)
  atrium serve --http [--listen HOST:PORT] [--config FILE]   serve MCP over Streamable HTTP at /mcp (default 127.0.0.1:8787)
  atrium doctor [--config FILE]    start every connector and report its health
  atrium demo [--out DIR]          a scripted session ending in a rendered view (HTML file)
  atrium demo --serve [--port N]   the same, then a local MCP Apps host with the live view
  atrium auth login <connector> [--config FILE]    log in to a remote connector (prints the URL to open)
  atrium auth logout <connector> [--config FILE]   revoke its tokens at the server, then delete them here
  atrium auth status [--config FILE]               each remote connector's login, and where tokens are kept
  atrium log [--follow] [--connector ID] [--lines N]   the activity log: events, never payloads
  atrium pins [--config FILE]                      pending changes of pinned tool definitions, with a diff
  atrium pins accept <connector> [tool@digest…] [--config FILE]   accept what atrium pins showed (a changed one is shown again)
  atrium pins reject <connector> [tool…] [--config FILE]   reject them: the old pin stays, the tool stays quarantined
  atrium help | --help | --version

config lookup: --config FILE, then $ATRIUM_CONFIG, then ./atrium.json;
with none, atrium serves its embedded demo connector (a small service desk).
`;

async function main(argv: string[]): Promise<number | undefined> {
  quietSdkAuthWarnings(); // an authorization server's text never reaches stderr through the SDK's warnings (spec/oauth.md O12)
  const line = parseCommandLine(argv);
  // serve's stdout is JSON-RPC: its transport owns what a closed stdout means.
  if (line.kind !== "run" || line.command !== "serve") endQuietlyWhenOutputCloses();
  if (line.kind === "help") { process.stdout.write(HELP); return 0; }
  if (line.kind === "version") { process.stdout.write(`${packageVersion}\n`); return 0; }
  if (line.kind === "error") { process.stderr.write(`${line.message}\n${line.help ? `\n${HELP}` : ""}`); return EXIT_USAGE; }
  const { command, flags, words } = line;
  // Loaded only for the command that runs, so --help and --version stay instant.
  if (command === "demo") return (await import("./commands/demo.js")).demo(flags, packageVersion);
  if (command === "log") return (await import("./commands/log.js")).logCommand(flags);
  const { resolveConfig } = await import("./commands/resolve-config.js");
  const cfg = resolveConfig(typeof flags.config === "string" ? flags.config : undefined);
  if (!cfg.ok) {
    process.stderr.write(cfg.message);
    // doctor also says what an atrium serving this file did with the edit (it kept its running config).
    if (command === "doctor" && cfg.file) process.stderr.write((await import("./commands/doctor-reload.js")).reloadLines(cfg.file).map((l) => `${l}\n`).join(""));
    return 1;
  }
  if (command === "auth") return (await import("./commands/auth.js")).authCommand(cfg.config, words);
  if (command === "pins") return (await import("./commands/pins.js")).runPins(cfg.config, words);
  if (command === "doctor") return (await import("./commands/doctor.js")).doctor(cfg.config, cfg.source, packageVersion, cfg.warnings, cfg.file);
  if (cfg.warnings) process.stderr.write(cfg.warnings);
  if (flags.http) {
    const { parseListen } = await import("./config/validate-team.js");
    const listen = typeof flags.listen === "string" ? parseListen(flags.listen) : cfg.config.http.listen;
    if (typeof listen === "string") return EXIT_USAGE; // args.ts checked it already
    return (await import("./commands/serve-http.js")).serveHttp(cfg.config, listen, packageVersion, cfg.file);
  }
  await (await import("./commands/serve.js")).serve(cfg.config, cfg.source, packageVersion, cfg.file);
  return undefined; // keep serving
}

const [, , ...args] = process.argv; // after node's path and this script's
const code = await main(args).catch((e: unknown) => {
  if (outputClosedEnding()) return undefined; // its cleanups end it (commands/output-closed.ts)
  // A command's own failures are typed and worded where they happen; anything else still ends in one line, not a stack trace.
  process.stderr.write(`atrium: ${e instanceof Error ? e.message : String(e)}\n`);
  return 1;
});
// Exit once what was written has left (a pipe may be asynchronous), so `atrium doctor | less` gets the whole report.
const drained = (s: NodeJS.WriteStream) => new Promise<void>((done) => s.write("", () => done()));
if (code !== undefined && !outputClosedEnding()) await Promise.all([drained(process.stdout), drained(process.stderr)]).then(() => process.exit(code));
