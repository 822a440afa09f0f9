// Value mode: an MCP tool result turned into the one value a program or model wants.
// Downstream servers may send anything, so this never throws on malformed content.
import { AtriumError } from "../support/errors.js";
import { core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import { clip } from "../support/text/clip.js";

export type Unwrapped = { ok: true; data: unknown } | { ok: false; error: { message: string } };

export interface ToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

/** The text of a block that is text-like, else undefined. Blocks without a type count as text. */
function textOf(block: unknown): string | undefined {
  if (typeof block === "string") return block;
  if (block === null || typeof block !== "object") return undefined;
  const { type, text } = block as { type?: unknown; text?: unknown };
  if (type !== undefined && type !== "text") return undefined;
  if (typeof text === "string") return text;
  if (typeof text === "number" || typeof text === "boolean") return String(text);
  return undefined;
}


/**
 * isError → the joined text as the error message (clamped). Otherwise, in order:
 * structuredContent; one text block that parses as JSON → the parsed value; all-text
 * content → the joined text (no blocks at all → ""); anything else (images, audio,
 * mixed, unreadable) → the content as is.
 */
export function unwrapToolResult(result: ToolResultLike): Unwrapped {
  const { content, structuredContent, isError } = (result ?? {}) as ToolResultLike;
  // A lone block or string where a list belongs is read as a one-block list.
  const blocks: unknown[] | undefined = Array.isArray(content)
    ? content
    : content === undefined ? [] : typeof content === "string" || (content !== null && typeof content === "object") ? [content] : undefined;
  const texts = blocks?.map(textOf);
  const allText = texts !== undefined && texts.every((t): t is string => t !== undefined);

  if (isError === true) {
    const joined = (texts ?? []).filter((t): t is string => t !== undefined).join("\n").trim();
    return { ok: false, error: { message: clip(joined || "the tool reported an error without a message", core().limitDefault(Budget.error_text_chars)) } };
  }
  if (structuredContent !== undefined && structuredContent !== null) return { ok: true, data: structuredContent };
  if (!allText) return { ok: true, data: content };
  if (texts.length === 1) {
    try {
      return { ok: true, data: JSON.parse(texts[0]!) as unknown };
    } catch {
      return { ok: true, data: texts[0] };
    }
  }
  return { ok: true, data: texts.join("\n") };
}

/** A downstream result that reported an error (isError) as the one typed error every path
 * throws for it, with the downstream's own text inside; undefined for any other result. */
export function reportedError(address: string, result: ToolResultLike): AtriumError | undefined {
  const u = unwrapToolResult(result);
  return u.ok ? undefined : failed(address, u.error.message);
}

/** The value a program receives from a downstream result, or the typed error it reported. */
export function downstreamValue(address: string, result: ToolResultLike): unknown {
  const u = unwrapToolResult(result);
  if (!u.ok) throw failed(address, u.error.message);
  return u.data;
}

const failed = (address: string, message: string) => new AtriumError("connector_call_failed", `${address} reported an error: ${message}`, { details: { address } });
