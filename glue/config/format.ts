// Turns config errors (or warnings) into the lines a person reads, one per problem:
// `atrium.json: mcpServers.github.args[2]: expected a string, got number`.
import type { ConfigError } from "./schema.js";

export function formatConfigErrors(file: string, errors: readonly ConfigError[]): string {
  return errors.map((e) => (e.path ? `${file}: ${e.path}: ${e.message}` : `${file}: ${e.message}`)).join("\n");
}

/** The same lines, each labelled once ("error: …", "warning: …") and ending in a newline; "" for none. */
export function labelConfigLines(label: "error" | "warning", file: string, problems: readonly ConfigError[]): string {
  if (problems.length === 0) return "";
  return formatConfigErrors(file, problems).split("\n").map((line) => `${label}: ${line}\n`).join("");
}
