// call_tool (read-only tools only, decided by the core) and call_destructive_tool (the only
// write path). Both take the one invocation path; `reason` is never forwarded downstream. A
// request the view shell marks (VIEW_READ_META) is a view's read: the activity log says so. A
// host that asks for progress hears the downstream's own (checked: calls/downstream-progress.ts).
import { z } from "zod";
import { defineTool, type ToolContext } from "./meta-tool.js";
import { shapeCallResult } from "../../calls/call-result.js";
import { invoke } from "../../calls/invoke.js";
import { withAppUi } from "../../apps/result-meta.js";
import { VIEW_READ_META } from "../../views/shell-page.js";
import { CALL_ADDRESS_CHARS_MAX, CALL_REASON_CHARS_MAX, FIELD_PATHS_MAX } from "../../decisions/generated/spec.js";

const common = {
  address: z.string().min(1).max(CALL_ADDRESS_CHARS_MAX).describe("<connector>.<tool> from search_tools"),
  args: z.record(z.string(), z.unknown()).optional(),
  resultMode: z.enum(["mcp", "value"]).default("mcp").describe("value: { ok, data } unwrapped"),
  fields: z.array(z.string()).min(1).max(FIELD_PATHS_MAX).optional().describe('Dot paths to keep, e.g. "items[].id"'),
};

async function callThrough(args: { address: string; args?: Record<string, unknown>; resultMode: "mcp" | "value"; fields?: string[] }, ctx: Pick<ToolContext, "catalog" | "core" | "downstream" | "principal" | "config" | "stash" | "signal" | "host" | "activity" | "requestMeta" | "relayProgress">, allowApproval: boolean) {
  const path = ctx.requestMeta?.[VIEW_READ_META] === true ? "view" : "direct";
  const { entry, result } = await invoke({ catalog: ctx.catalog, core: ctx.core, downstream: ctx.downstream, callPayloadBytes: ctx.config.sandbox.callPayloadBytes, activity: ctx.activity }, { principal: ctx.principal, address: args.address, args: args.args, allowApproval, signal: ctx.signal, path, onProgress: ctx.relayProgress });
  const shaped = await shapeCallResult(result, { mode: args.resultMode, fields: args.fields, capBytes: entry.maxResultBytes, stash: ctx.stash, address: entry.address });
  // A downstream UI (spec/app-calls.md A6): named under atrium's URI for an Apps host, the downstream's own result only.
  return withAppUi(ctx.core, ctx.host, { connector: entry.connectorId, toolUi: entry.ui, downstreamMeta: result._meta, shaped: shaped.result, asIs: shaped.asIs });
}

export const callTool = defineTool({
  name: "call_tool",
  title: "Call a read-only tool",
  description: "Call one read-only tool by address (tools that may write are refused). For several calls, or to filter and join, use execute_code.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  uses: ["catalog", "core", "downstream", "principal", "config", "stash", "signal", "host", "activity", "requestMeta", "relayProgress"] as const,
  input: z.object(common).strict(),
  run: (args, ctx) => callThrough(args, ctx, false),
});

export const callDestructiveTool = defineTool({
  name: "call_destructive_tool",
  title: "Call a tool that may write",
  description: "Call a tool that may write, only after the person approved this exact action.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  uses: ["catalog", "core", "downstream", "principal", "config", "stash", "signal", "host", "activity", "requestMeta", "relayProgress"] as const,
  input: z.object({ ...common, reason: z.string().max(CALL_REASON_CHARS_MAX).optional().describe("For the person; not sent to the tool") }).strict(),
  run: ({ reason: _reason, ...args }, ctx) => callThrough(args, ctx, true),
});
