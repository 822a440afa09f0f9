// Finds and validates the config for a command, or falls back to the embedded demo
// connector (run through exactly the same stdio path as a user's connector).
import { core } from "../core.js";
import { demoServerPath } from "../paths.js";
import { findConfig, loadConfig } from "../config/load.js";
import { validateConfig } from "../config/validate.js";
import { formatConfigErrors } from "../config/format.js";
import type { AtriumConfig } from "../config/schema.js";

export type ConfigOutcome = { ok: true; config: AtriumConfig; source: string } | { ok: false; message: string };

export function demoConfig(): AtriumConfig {
  const r = validateConfig({ mcpServers: { desk: { command: process.execPath, args: [demoServerPath] } } }, core());
  if (!r.ok) throw new Error(`the embedded demo config is invalid: ${JSON.stringify(r.errors)}`);
  return r.config;
}

export function resolveConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ConfigOutcome {
  const where = findConfig({ argv, env, cwd });
  if (where.source === "invalid") return { ok: false, message: `atrium: ${where.message}` };
  if (where.source === "demo") return { ok: true, config: demoConfig(), source: "embedded demo (no atrium.json, no --config, no ATRIUM_CONFIG)" };
  const r = loadConfig(where.path, core(), where.source);
  const warnings = r.warnings.length ? formatConfigErrors(where.path, r.warnings) + "\n" : "";
  if (warnings) process.stderr.write(warnings.replace(/^/gm, "warning: "));
  if (!r.ok) return { ok: false, message: `${formatConfigErrors(where.path, r.errors)}\natrium: the config has ${r.errors.length} error(s); nothing was started.` };
  return { ok: true, config: r.config, source: where.path };
}
