// Finds the config file (docs/reference.md "Commands": --config, then ATRIUM_CONFIG, then
// ./atrium.json, else the demo), reads it, parses it and validates it. Inputs are passed in,
// never read from process globals, so the lookup is testable and has one meaning.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Core } from "../decisions/core.js";
import type { ValidationResult } from "./schema.js";
import { validateConfig } from "./validate.js";
import { UNICODE_ESCAPE_HEX_DIGITS } from "../support/encoding.js";

const HEX_ESCAPE = new RegExp(`^[0-9a-fA-F]{${UNICODE_ESCAPE_HEX_DIGITS}}$`);

export type ConfigSource = "flag" | "env" | "cwd";
export type ConfigLocation =
  | { source: ConfigSource; path: string }
  | { source: "demo" }
  /** A malformed command line (`--config` without a file, or given twice). */
  | { source: "invalid"; message: string };

export interface FindConfigInput {
  /** The arguments after the program name (process.argv.slice(2)). */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

const CONFIG_ENV = "ATRIUM_CONFIG";
const CONFIG_FILE = "atrium.json";

export function findConfig({ argv, env, cwd }: FindConfigInput): ConfigLocation {
  const flag = configFlag(argv);
  if (flag && "message" in flag) return { source: "invalid", message: flag.message };
  if (flag) return { source: "flag", path: resolve(cwd, flag.file) };
  // An empty ATRIUM_CONFIG reads as unset, the usual shell meaning of `ATRIUM_CONFIG=`.
  const fromEnv = env[CONFIG_ENV];
  if (fromEnv) return { source: "env", path: resolve(cwd, fromEnv) };
  const local = resolve(cwd, CONFIG_FILE);
  return existsSync(local) ? { source: "cwd", path: local } : { source: "demo" };
}

function configFlag(argv: readonly string[]): { file: string } | { message: string } | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    let file: string | undefined;
    if (a === "--config") {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) return { message: "--config needs a file: --config FILE" };
      file = next;
      i++;
    } else if (a.startsWith("--config=")) {
      file = a.slice("--config=".length);
      if (file === "") return { message: "--config needs a file: --config=FILE" };
    } else continue;
    // Two files would leave one silently unused; say so instead of picking one.
    if (found !== undefined) return { message: "--config is given more than once" };
    found = file;
  }
  return found === undefined ? undefined : { file: found };
}

export type LoadResult = ValidationResult & { path: string };

/**
 * Reads, parses and validates one file. Never throws: a missing file, a read error and a
 * JSON syntax error each come back as one error with path "". `from` names who chose the
 * file, so a stale ATRIUM_CONFIG is easy to spot.
 */
export function loadConfig(path: string, core: Core, from?: ConfigSource): LoadResult {
  const fail = (message: string): LoadResult => ({ ok: false, path, errors: [{ path: "", message }], warnings: [] });
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const by = from === "flag" ? " (named by --config)" : from === "env" ? ` (named by ${CONFIG_ENV})` : "";
    return fail(`cannot read ${path}${by}: ${readError(e)}`);
  }
  const parsed = parseJson(text.replace(/^\uFEFF/, "")); // editors on Windows may write a BOM
  if (!parsed.ok) return fail(`invalid JSON at line ${parsed.line}, column ${parsed.column} of ${path}: ${parsed.reason}`);
  return { ...validateConfig(parsed.value, core), path };
}

function readError(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  if (code === "ENOENT") return "file not found";
  if (code === "EISDIR") return "it is a directory, not a file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return (e as Error)?.message ?? String(e);
}

// ---- JSON with a located syntax error ---------------------------------------------------

export type JsonParse = { ok: true; value: unknown } | { ok: false; line: number; column: number; reason: string };

/**
 * JSON.parse, plus where it failed: V8's messages give a position only for some errors, so
 * on failure a small scanner walks the text to find the first offending character.
 */
export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const found = locate(text) ?? { offset: text.length, reason: (e as Error).message };
    const before = text.slice(0, found.offset);
    const line = before.split("\n").length;
    return { ok: false, line, column: found.offset - before.lastIndexOf("\n"), reason: found.reason };
  }
}

/** The first syntax error in `s` (iterative, so deep nesting cannot overflow the stack). */
function locate(s: string): { offset: number; reason: string } | undefined {
  const scalar = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const stack: string[] = [];
  let i = 0;
  let want: "value" | "key" | "after" = "value";
  const at = (reason: string, offset = i) => ({ offset, reason });
  const skip = () => {
    while (i < s.length && " \t\n\r".includes(s[i])) i++;
  };
  const got = () => (i >= s.length ? "end of file" : s[i] === "/" ? `"/" (comments are not allowed in JSON)` : JSON.stringify(s[i]));
  const string = () => {
    const start = i;
    for (i++; i < s.length; i++) {
      if (s[i] === '"') {
        i++;
        return undefined;
      }
      if (s[i] < " ") return at("a control character in a string must be written as an escape such as \\n");
      if (s[i] === "\\") {
        i++;
        if (s[i] === "u" && HEX_ESCAPE.test(s.slice(i + 1, i + 1 + UNICODE_ESCAPE_HEX_DIGITS))) i += UNICODE_ESCAPE_HEX_DIGITS;
        else if (s[i] === undefined || !'"\\/bfnrt'.includes(s[i])) return at("invalid escape in a string");
      }
    }
    return at("unterminated string", start);
  };
  for (;;) {
    skip();
    const c = s[i];
    if (want === "value") {
      want = "after";
      if (c === "{" || c === "[") {
        stack.push(c);
        want = c === "{" ? "key" : "value";
        i++;
        skip();
        if (s[i] === (c === "{" ? "}" : "]")) {
          stack.pop();
          want = "after";
          i++;
        }
      } else if (c === '"') {
        const bad = string();
        if (bad) return bad;
      } else {
        scalar.lastIndex = i;
        if (!scalar.exec(s)) return at(`expected a value, got ${got()}`);
        i = scalar.lastIndex;
        if (i < s.length && /[\w.+-]/.test(s[i])) return at(`unexpected ${got()} in a literal`); // `tru`, `01`, `1.`
      }
    } else if (want === "key") {
      if (c !== '"') return at(c === "}" ? `trailing comma before "}"` : `expected a property name in double quotes, got ${got()}`);
      const bad = string();
      if (bad) return bad;
      skip();
      if (s[i] !== ":") return at(`expected ":" after a property name, got ${got()}`);
      i++;
      want = "value";
    } else {
      const top = stack.at(-1);
      if (top === undefined) return i < s.length ? at(`unexpected ${got()} after the JSON value`) : undefined;
      const close = top === "{" ? "}" : "]";
      if (c === close) {
        stack.pop();
        i++;
      } else if (c === ",") {
        i++;
        want = top === "{" ? "key" : "value";
        skip();
        if (top === "[" && s[i] === "]") return at(`trailing comma before "]"`);
      } else return at(`expected "," or "${close}", got ${got()}`);
    }
  }
}
