// What of a tool is embedded: its name as words, its connector, title and description, in one
// short text (the leading EMBED_TOOL_TEXT_CHARS), so "delete_file" reads as "delete file".
import { EMBED_TOOL_TEXT_CHARS } from "../decisions/generated/spec.js";

/** One tool as the semantic layer sees it: the address it scores, and the text it embeds. */
export interface SemanticEntry { address: string; text: string }

interface ToolFacts { address: string; connectorId: string; name: string; title?: string; description: string }

/** Splits a tool name on case changes, `_`, `-`, `.` and `/` into lowercase words. */
const words = (name: string) => name.split(/[^\p{L}\p{N}]+|(?<=[\p{Ll}\p{N}])(?=\p{Lu})/u).filter(Boolean).join(" ").toLowerCase();

export function toolText(tool: ToolFacts): SemanticEntry {
  const title = tool.title && tool.title.trim() !== "" ? `${tool.title.trim()}. ` : "";
  const text = `${words(tool.name)} (${tool.connectorId}): ${title}${tool.description.trim()}`;
  return { address: tool.address, text: text.slice(0, EMBED_TOOL_TEXT_CHARS) };
}
