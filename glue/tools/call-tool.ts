// call_tool (read-only tools only, decided by the core) and call_destructive_tool (the only
// write path). Both take the one invocation path; `reason` is never forwarded downstream.
import { z } from "zod";
import { defineTool, type ToolContext } from "./meta-tool.js";
import { shapeCallResult } from "./call-result.js";
import { invoke } from "../invoke.js";

const common = {
  address: z.string().min(1).max(300).describe("<connectorId>.<toolName>, from search_tools"),
  args: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments"),
  resultMode: z.enum(["mcp", "value"]).default("mcp").describe("mcp: the tool's content as is; value: { ok, data } with the unwrapped value"),
  fields: z.array(z.string()).min(1).max(64).optional().describe('Keep only these dot paths of the value; [] maps over arrays, e.g. "items[].id"'),
};

async function callThrough(args: { address: string; args?: Record<string, unknown>; resultMode: "mcp" | "value"; fields?: string[] }, ctx: ToolContext, allowApproval: boolean) {
  const { entry, result } = await invoke({ catalog: ctx.catalog, core: ctx.core, callPayloadBytes: ctx.config.sandbox.callPayloadBytes }, { address: args.address, args: args.args, allowApproval, signal: ctx.signal });
  const connector = ctx.registry.get(entry.connectorId)!;
  return shapeCallResult(result, { mode: args.resultMode, fields: args.fields, capBytes: connector.config.maxResultBytes, stash: ctx.stash, address: entry.address });
}

export const callTool = defineTool({
  name: "call_tool",
  title: "Call a read-only tool",
  description: "Call one read-only tool by address. Tools that may write are refused with destructive_tool_requires_approval. For several calls, or to filter and join results, use execute_code.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z.object(common).strict(),
  run: (args, ctx) => callThrough(args, ctx, false),
});

export const callDestructiveTool = defineTool({
  name: "call_destructive_tool",
  title: "Call a tool that may write",
  description: "Call a tool that is not read-only. Use only after the person has approved this exact action. `reason` is shown to the person, never sent to the tool.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: z.object({ ...common, reason: z.string().max(500).optional().describe("Why this write is needed (for the person; not forwarded)") }).strict(),
  run: ({ reason: _reason, ...args }, ctx) => callThrough(args, ctx, true),
});
