// The one argument parser of every atrium command. node:util's parseArgs splits the words into
// tokens; each command's table below says which flags it takes, and anything else — a flag the
// command does not take, a flag without its value, a value for a switch, a flag given twice, a
// stray word — is refused with a message naming the flag and the command's flags (exit 2).
// The tokens are judged here rather than by parseArgs' strict mode so that every message names
// the command and lists what it accepts.
import { parseArgs } from "node:util";
import { PORT_MAX } from "../support/wire.js";
import { ACTIVITY_LINES_MAX } from "../decisions/generated/spec.js";
import { parseListen } from "../config/validate-team.js";

interface Flag {
  /** A flag with a value shows its placeholder (`--config FILE`); a switch has none. */
  value?: string;
  /** Another flag this one is meaningless without. */
  needs?: string;
  /** A refusal for a value this flag cannot take. */
  check?: (value: string) => string | undefined;
}

const port = (v: string) => (/^\d+$/.test(v) && Number(v) <= PORT_MAX ? undefined : `must be a port number from 0 to ${PORT_MAX}, got ${JSON.stringify(v)}`);

const listenCheck = (v: string) => { const l = parseListen(v); return typeof l === "string" ? l : undefined; };

const lines = (v: string) => (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= ACTIVITY_LINES_MAX ? undefined : `must be a whole number from 1 to ${ACTIVITY_LINES_MAX}, got ${JSON.stringify(v)}`);

/** @internal Every command and its flags (exported for test/cli-help.test.ts, which holds the help to them). */
export const COMMANDS = {
  serve: { config: { value: "FILE" }, http: {}, listen: { value: "HOST:PORT", needs: "http", check: listenCheck } },
  doctor: { config: { value: "FILE" } },
  demo: { out: { value: "DIR" }, serve: {}, port: { value: "N", needs: "serve", check: port } },
  auth: { config: { value: "FILE" } },
  log: { follow: {}, connector: { value: "ID" }, lines: { value: "N", check: lines } },
  pins: { config: { value: "FILE" } },
} satisfies Record<string, Record<string, Flag>>;

/**
 * Words a command takes after its name (`atrium auth login <connector>`): the first is one of
 * `actions` (or, when none is given, `default`); a last word ending in "…" takes any number.
 * @internal Exported for test/cli-help.test.ts, which holds the help to it.
 */
export const WORDS: Partial<Record<keyof typeof COMMANDS, { actions: Record<string, string[]>; default?: string }>> = {
  auth: { actions: { login: ["CONNECTOR"], logout: ["CONNECTOR"], status: [] } },
  pins: { actions: { list: [], accept: ["CONNECTOR", "TOOL@DIGEST…"], reject: ["CONNECTOR", "TOOL…"] }, default: "list" },
};

/** Every command's flags with their parseArgs type, so a value is read as a value whatever the command. */
const TYPES = Object.fromEntries(
  Object.values(COMMANDS).flatMap((table) => Object.entries(table as Record<string, Flag>).map(([k, f]) => [k, { type: f.value === undefined ? ("boolean" as const) : ("string" as const) }])),
);

type CommandName = keyof typeof COMMANDS;
export type Flags = Record<string, string | true | undefined>;
export type CommandLine =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "run"; command: CommandName; flags: Flags; words: string[] }
  | { kind: "error"; message: string; help?: boolean };

/** `--help` / `-h` and `--version` / `-v` work anywhere before a `--`, whatever else is there; `atrium help` is `--help`. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const before = argv.slice(0, argv.includes("--") ? argv.indexOf("--") : argv.length);
  if (before.includes("--help") || before.includes("-h") || before[0] === "help") return { kind: "help" };
  if (before.includes("--version") || before.includes("-v")) return { kind: "version" };

  const { tokens } = parseArgs({ args: [...argv], options: TYPES, strict: false, allowPositionals: true, tokens: true });
  const positionals = tokens.filter((t) => t.kind === "positional");
  const name = positionals[0]?.value ?? "serve";
  if (!Object.hasOwn(COMMANDS, name)) return { kind: "error", message: `atrium: unknown command ${name}`, help: true };
  const command = name as CommandName;
  const table: Record<string, Flag> = COMMANDS[command];
  const refuse = (why: string): CommandLine => ({ kind: "error", message: `atrium ${command}: ${why} (${command} takes ${describeFlags(command)}; see atrium --help)` });

  const flags: Flags = {};
  const words = positionals.slice(1).map((t) => t.value);
  const takes = WORDS[command];
  if (takes) {
    const usage = Object.entries(takes.actions).map(([a, rest]) => [`atrium ${command} ${a}`, ...rest.map(shownWord)].join(" ")).join(" | ");
    if (words.length === 0 && takes.default) words.push(takes.default);
    const action = words[0];
    if (action === undefined || !Object.hasOwn(takes.actions, action)) return { kind: "error", message: `atrium ${command}: ${action === undefined ? "missing action" : `unknown action ${JSON.stringify(action)}`}; use ${usage}` };
    const rest = takes.actions[action];
    const required = rest.filter((r) => !r.endsWith("…")).length;
    const given = words.length - 1;
    if (given < required || (given > required && required === rest.length)) return { kind: "error", message: `atrium ${command} ${action}: takes ${rest.length ? rest.map(shownWord).join(" ") : "no argument"}; use ${usage}` };
  }
  for (const t of tokens) {
    if (t.kind === "positional" && t !== positionals[0] && !takes) return refuse(`unexpected argument ${JSON.stringify(t.value)}`);
    if (t.kind !== "option") continue;
    const flag = Object.hasOwn(table, t.name) ? table[t.name] : undefined;
    if (!flag || t.rawName !== `--${t.name}`) return refuse(`unknown flag ${t.rawName}`);
    if (flags[t.name] !== undefined) return refuse(`${t.rawName} is given more than once`);
    if (flag.value === undefined) {
      if (t.value !== undefined) return refuse(`${t.rawName} takes no value`);
      flags[t.name] = true;
      continue;
    }
    // parseArgs takes the next word as the value even when it is another flag (`--config --out`).
    if (t.value === undefined || t.value === "" || (!t.inlineValue && t.value.startsWith("-"))) return refuse(`${t.rawName} needs a value: ${t.rawName} ${flag.value}`);
    const bad = flag.check?.(t.value);
    if (bad) return refuse(`${t.rawName} ${bad}`);
    flags[t.name] = t.value;
  }
  for (const [key, flag] of Object.entries(table)) {
    if (flags[key] !== undefined && flag.needs && flags[flag.needs] === undefined) return refuse(`--${key} applies only with --${flag.needs}`);
  }
  return { kind: "run", command, flags, words };
}

/** @internal A word as the help and the messages show it: `<connector>`, `[tool…]` for any number (exported for test/cli-help.test.ts). */
export const shownWord = (r: string) => (r.endsWith("…") ? `[${r.toLowerCase()}]` : `<${r.toLowerCase()}>`);

/** `--config FILE` / `--out DIR, --serve, --port N` for a command's messages. */
function describeFlags(command: CommandName): string {
  const table: Record<string, Flag> = COMMANDS[command];
  const list = Object.entries(table).map(([k, f]) => (f.value ? `--${k} ${f.value}` : `--${k}`));
  return list.length ? list.join(", ") : "no flags";
}
