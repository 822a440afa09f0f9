// Finds and validates the config for a command, or falls back to the embedded demo
// connector (run through exactly the same stdio path as a user's connector).
import { core } from "../decisions/core.js";
import { demoServerPath } from "../support/paths.js";
import { findConfig, loadConfig } from "../config/load.js";
import { validateConfig } from "../config/validate.js";
import { labelConfigLines } from "../config/format.js";
import type { AtriumConfig } from "../config/schema.js";

/**
 * `warnings` and `message` are finished text: one labelled line per problem ("warning: …",
 * "error: …"), ending in a newline, or "" when there is nothing to say.
 */
export type ConfigOutcome =
  /** `file`: the config file read (none for the embedded demo): serve watches it. */
  | { ok: true; config: AtriumConfig; source: string; warnings: string; file?: string }
  /** `file`: the config file that was refused, when one was found (doctor looks up what the serving atrium did with it). */
  | { ok: false; message: string; file?: string };

function demoConfig(): AtriumConfig {
  const r = validateConfig({ mcpServers: { desk: { command: process.execPath, args: [demoServerPath] } } }, core());
  if (!r.ok) throw new Error(`the embedded demo config is invalid: ${JSON.stringify(r.errors)}`);
  return r.config;
}

/** `configFile` is the value of `--config`, if given; the lookup then tries $ATRIUM_CONFIG and ./atrium.json. */
export function resolveConfig(configFile: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ConfigOutcome {
  const where = findConfig({ argv: configFile === undefined ? [] : [`--config=${configFile}`], env, cwd });
  if (where.source === "invalid") return { ok: false, message: `atrium: ${where.message}\n` };
  if (where.source === "demo") return { ok: true, config: demoConfig(), source: "embedded demo (no atrium.json, no --config, no ATRIUM_CONFIG)", warnings: "" };
  const r = loadConfig(where.path, core(), where.source);
  const warnings = labelConfigLines("warning", where.path, r.warnings);
  if (!r.ok) return { ok: false, message: `${labelConfigLines("error", where.path, r.errors)}${warnings}atrium: the config has ${r.errors.length} error(s); nothing was started.\n`, file: where.path };
  return { ok: true, config: r.config, source: where.path, warnings, file: where.path };
}
