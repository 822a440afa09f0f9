// Downstream servers are untrusted: their tools/list and tools/call answers are read with
// loose schemas and checked here, so one malformed field becomes a typed error or a
// malformed-hint fact instead of an exception that loses the whole catalog.
import { z } from "zod";
import { isJsonObject } from "../support/json-object.js";

export const LooseResult = z.looseObject({});

export interface DownstreamTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Kept raw, only for the tool's pin (glue/pins/digest.ts). */
  outputSchema?: unknown;
  /** Kept raw: the core's facts (spec/read-only.md) need to see malformed hints. */
  annotations: unknown;
  /** Kept raw: the MCP Apps UI it names and who may call it (spec/app-calls.md). */
  meta: unknown;
}


/** The usable tools of one tools/list page (entries without a string name are skipped), and its ttlMs (2026-07-28) when it is a number. */
export function readToolsPage(result: Record<string, unknown>): { tools: DownstreamTool[]; nextCursor?: string; skipped: number; ttlMs?: number } {
  const raw = Array.isArray(result.tools) ? result.tools : [];
  const tools: DownstreamTool[] = [];
  for (const t of raw) {
    if (!isJsonObject(t) || typeof t.name !== "string" || t.name.length === 0) continue;
    tools.push({
      name: t.name,
      title: typeof t.title === "string" ? t.title : isJsonObject(t.annotations) && typeof t.annotations.title === "string" ? t.annotations.title : undefined,
      description: typeof t.description === "string" ? t.description : "",
      inputSchema: isJsonObject(t.inputSchema) ? t.inputSchema : { type: "object" },
      outputSchema: t.outputSchema,
      annotations: t.annotations,
      meta: t._meta,
    });
  }
  return {
    tools,
    nextCursor: typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined,
    skipped: raw.length - tools.length,
    ...(typeof result.ttlMs === "number" && Number.isFinite(result.ttlMs) && { ttlMs: result.ttlMs }),
  };
}

/** `_meta` is kept for a downstream app (spec/app-calls.md A6); a direct call hands it on only as the core decides. */
export interface ToolResult { content: Record<string, unknown>[]; structuredContent?: unknown; isError?: boolean; _meta?: Record<string, unknown> }

const BLOCK_TYPES = new Set(["text", "image", "audio", "resource", "resource_link"]);

/** A CallToolResult, or the reason it is not one. */
export function readToolResult(result: Record<string, unknown>): { ok: true; value: ToolResult } | { ok: false; reason: string } {
  const content = result.content ?? [];
  if (!Array.isArray(content)) return { ok: false, reason: "content is not an array" };
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    if (!isJsonObject(b) || typeof b.type !== "string" || !BLOCK_TYPES.has(b.type)) return { ok: false, reason: `content[${i}] is not a content block` };
    if (b.type === "text" && typeof b.text !== "string") return { ok: false, reason: `content[${i}] is a text block without text` };
    if ((b.type === "image" || b.type === "audio") && (typeof b.data !== "string" || typeof b.mimeType !== "string")) return { ok: false, reason: `content[${i}] is an ${b.type} block without data or mimeType` };
  }
  return { ok: true, value: { content: content as Record<string, unknown>[], ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent }), ...(result.isError === true && { isError: true }), ...(isJsonObject(result._meta) && { _meta: result._meta }) } };
}
