// Shapes a downstream result for a direct call: the MCP content as is ("mcp") or the
// unwrapped value { ok, data } ("value"); optional field projection; and the byte cap, past
// which the full text is stashed and paged by get_result.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../connectors/downstream-shapes.js";
import { AtriumError } from "../errors.js";
import { capText } from "../results/cap.js";
import { projectFields, ProjectionError } from "../results/project.js";
import type { ResultStash } from "../results/stash.js";
import { unwrapToolResult } from "../results/unwrap.js";
import { isJsonObject } from "../json-object.js";

export type ResultMode = "mcp" | "value";

export function shapeCallResult(result: ToolResult, opts: { mode: ResultMode; fields?: string[]; capBytes: number; stash: ResultStash; address: string }): CallToolResult {
  const project = (v: unknown) => {
    try {
      return opts.fields ? projectFields(v, opts.fields) : v;
    } catch (e) {
      if (e instanceof ProjectionError) throw new AtriumError("invalid_args", e.message);
      throw e;
    }
  };

  if (opts.mode === "value" || opts.fields) {
    const u = unwrapToolResult(result);
    if (!u.ok) {
      if (opts.mode === "mcp") return result as CallToolResult; // the downstream's own error, as is
      throw new AtriumError("connector_call_failed", `${opts.address} reported an error: ${u.error.message}`, { details: { address: opts.address } });
    }
    const value = opts.mode === "value" ? { ok: true, data: project(u.data) } : project(u.data);
    return capped(JSON.stringify(value) ?? "null", value, opts);
  }

  // mcp mode: text blocks are measured as text; anything else by its JSON.
  const allText = result.content.every((b) => b.type === "text");
  const text = allText ? result.content.map((b) => b.text as string).join("\n") : JSON.stringify(result.content);
  const shaped = capped(text, undefined, opts);
  if (shaped === undefined) return result as CallToolResult;
  return shaped;

  function capped(text: string, structured: unknown, o: typeof opts): CallToolResult;
  function capped(text: string, structured: undefined, o: typeof opts): CallToolResult | undefined;
  function capped(text: string, structured: unknown, o: typeof opts): CallToolResult | undefined {
    const c = capText(text, o.capBytes, o.stash);
    if (!c.truncated) {
      if (structured === undefined) return undefined;
      return { content: [{ type: "text", text }], ...(isObject(structured) && { structuredContent: structured }) };
    }
    const notice = {
      truncated: true,
      totalBytes: c.totalBytes,
      shownBytes: c.shownBytes,
      ...(c.resultId
        ? { resultId: c.resultId, nextAction: { tool: "get_result", arguments: { id: c.resultId, offset: c.shownBytes }, purpose: "read the rest of this result" } }
        : { hint: "the result was too large to keep; narrow it with fields or tool arguments" }),
    };
    // A partial text page of non-text content would be meaningless: the notice replaces it.
    const content = allText || structured !== undefined ? [{ type: "text" as const, text: c.text }, { type: "text" as const, text: JSON.stringify(notice) }] : [{ type: "text" as const, text: JSON.stringify(notice) }];
    return { content, structuredContent: notice };
  }
}

const isObject = isJsonObject;
