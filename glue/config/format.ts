// Turns config errors (or warnings) into the lines a person reads on stderr, one per problem:
// `atrium.json: mcpServers.github.args[2]: expected a string, got number`.
import type { ConfigError } from "./schema.js";

export function formatConfigErrors(file: string, errors: readonly ConfigError[]): string {
  return errors.map((e) => (e.path ? `${file}: ${e.path}: ${e.message}` : `${file}: ${e.message}`)).join("\n");
}
