// call_app_tool: app-only. What a downstream app's tools/call becomes in atrium's relay
// (glue/apps/relay-page.ts): one tool of the app's own connector, judged by the core's app rules
// (spec/app-calls.md A1–A5) on the one call path. The answer is the downstream's own result for
// the page (its isError and `_meta` included, a ui:// URI in it under atrium's), or atrium's
// typed error (app_call_refused, unknown_tool, …).
import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { defineTool } from "./meta-tool.js";
import { invoke } from "../../calls/invoke.js";
import { appMeta } from "../../apps/result-meta.js";
import { APP_CALL_TOOL } from "../../apps/relay-page.js";
import { APP_TOOL_NAME_CHARS_MAX, CONNECTOR_ID_CHARS_MAX } from "../../decisions/generated/spec.js";

export const callAppTool = defineTool({
  name: APP_CALL_TOOL,
  title: "Run a tool for a downstream app",
  description: "For downstream MCP Apps that atrium relays only: one tool of the app's own connector.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  uses: ["catalog", "core", "downstream", "principal", "config", "signal", "activity"] as const,
  appsHostOnly: true,
  _meta: { ui: { visibility: ["app"] } },
  input: z.object({
    connector: z.string().min(1).max(CONNECTOR_ID_CHARS_MAX),
    tool: z.string().min(1).max(APP_TOOL_NAME_CHARS_MAX),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
  async run(args, ctx): Promise<CallToolResult> {
    const { entry, result } = await invoke(
      { catalog: ctx.catalog, core: ctx.core, downstream: ctx.downstream, callPayloadBytes: ctx.config.sandbox.callPayloadBytes, activity: ctx.activity },
      { principal: ctx.principal, address: `${args.connector}.${args.tool}`, args: args.arguments, allowApproval: false, fromApp: args.connector, signal: ctx.signal, path: "app" },
    );
    const meta = appMeta(entry.connectorId, result._meta);
    return { content: result.content as CallToolResult["content"], ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent as Record<string, unknown> }), ...(result.isError && { isError: true }), ...(meta && { _meta: meta }) };
  },
});
