// How meta-tools answer: a JSON text block plus the same object as structuredContent, or a
// typed error (isError) carrying { error: { code, message, retryable, nextAction? } }.
import type { CallToolResult } from "@modelcontextprotocol/server";
import { asAtriumError } from "../../support/errors.js";

export function jsonResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

export function errorResult(e: unknown): CallToolResult {
  const error = asAtriumError(e).toJSON();
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }], structuredContent: { error } };
}
