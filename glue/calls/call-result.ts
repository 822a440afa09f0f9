// Shapes a downstream result for a direct call: the MCP content as is ("mcp") or the
// unwrapped value { ok, data } ("value"); optional field projection; and the byte cap, past
// which the full text is stashed and paged by get_result. A downstream's error is one shape
// in every mode: the typed { error: { code, message, retryable } } with its own text inside.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolResult } from "../connectors/downstream-shapes.js";
import { AtriumError } from "../support/errors.js";
import { capText } from "../results/cap.js";
import { projectFields, ProjectionError } from "../results/project.js";
import type { OwnedStash } from "../results/stash.js";
import { reportedError, unwrapToolResult } from "../results/unwrap.js";
import { isJsonObject } from "../support/json-object.js";

type ResultMode = "mcp" | "value";
interface ShapeOptions { mode: ResultMode; fields?: string[]; capBytes: number; stash: OwnedStash; address: string }

/** The result for the caller, and whether it is the downstream's own (`asIs`: mcp mode, no projection, not cut; spec/app-calls.md A6). */
export interface Shaped { result: CallToolResult; asIs: boolean }

export async function shapeCallResult(result: ToolResult, opts: ShapeOptions): Promise<Shaped> {
  const failed = reportedError(opts.address, result);
  if (failed) throw failed;
  if (opts.mode === "value" || opts.fields) {
    const u = unwrapToolResult(result);
    const data = u.ok ? project(u.data, opts.fields) : undefined;
    const value = opts.mode === "value" ? { ok: true, data } : data;
    const text = JSON.stringify(value) ?? "null";
    return { result: (await capped(text, true, opts)) ?? { content: [{ type: "text", text }], ...(isJsonObject(value) && { structuredContent: value }) }, asIs: false };
  }
  // mcp mode: text blocks are measured as text; anything else by its JSON.
  const allText = result.content.every((b) => b.type === "text");
  const text = allText ? result.content.map((b) => b.text as string).join("\n") : JSON.stringify(result.content);
  const cut = await capped(text, allText, opts);
  if (cut) return { result: cut, asIs: false };
  // The downstream's `_meta` is handed on only as the core decides (withAppUi); a plain host never sees it.
  const { _meta: _downstreamMeta, ...own } = result;
  return { result: own as CallToolResult, asIs: true };
}

function project(v: unknown, fields: string[] | undefined): unknown {
  try {
    return fields ? projectFields(v, fields) : v;
  } catch (e) {
    if (e instanceof ProjectionError) throw new AtriumError("invalid_args", e.message);
    throw e;
  }
}

/** Over the cap: the first page (when it reads as text) and a notice with the stash id; else undefined. */
async function capped(text: string, pageable: boolean, o: ShapeOptions): Promise<CallToolResult | undefined> {
  const c = await capText(text, o.capBytes, o.stash);
  if (!c.truncated) return undefined;
  const notice = {
    truncated: true,
    totalBytes: c.totalBytes,
    shownBytes: c.shownBytes,
    ...(c.resultId
      ? { resultId: c.resultId, nextAction: { tool: "get_result", arguments: { id: c.resultId, offset: c.shownBytes }, purpose: "read the rest of this result" } }
      : { hint: "the result was too large to keep; narrow it with fields or tool arguments" }),
  };
  // A partial text page of non-text content would be meaningless: the notice replaces it.
  const content = pageable ? [{ type: "text" as const, text: c.text }, { type: "text" as const, text: JSON.stringify(notice) }] : [{ type: "text" as const, text: JSON.stringify(notice) }];
  return { content, structuredContent: notice };
}
