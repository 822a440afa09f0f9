// MCP wiring only: lists the meta-tools, validates arguments against their schemas, runs
// handlers, and turns every thrown error into a typed error result. Decides nothing.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AtriumError, clampEcho } from "./errors.js";
import { errorResult } from "./tools/tool-result.js";
import type { MetaTool, ToolContext } from "./tools/meta-tool.js";
import type { HostState } from "./host-detection.js";
import { UI_EXTENSION_ID } from "./generated/spec.js";
import { INSTRUCTIONS } from "./instructions.js";

export interface ServerDeps {
  version: string;
  tools: MetaTool[];
  host: HostState;
  context: Omit<ToolContext, "signal" | "progress">;
}

export function createServer(deps: ServerDeps): Server {
  const server = new Server(
    { name: "atrium", version: deps.version },
    { capabilities: { tools: { listChanged: false }, extensions: { [UI_EXTENSION_ID]: {} } }, instructions: INSTRUCTIONS },
  );
  const listing: Tool[] = deps.tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: z.toJSONSchema(t.input, { io: "input" }) as Tool["inputSchema"],
    annotations: t.annotations,
    ...(t._meta && { _meta: t._meta }),
  }));
  const byName = new Map(deps.tools.map((t) => [t.name, t]));

  server.oninitialized = () => deps.host.detect(server.getClientCapabilities());
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listing }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${clampEcho(request.params.name)}`);
    deps.host.detect(server.getClientCapabilities());
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return errorResult(new AtriumError("invalid_args", clampEcho(`${tool.name}: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}`)));
    try {
      const token = request.params._meta?.progressToken;
      const progress = token === undefined ? undefined : (completed: number) => {
        void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: completed, message: `${completed} host call(s) done` } }).catch(() => {});
      };
      return await tool.run(parsed.data, { ...deps.context, signal: extra.signal, progress });
    } catch (e) {
      if (extra.signal.aborted) return errorResult(new AtriumError("cancelled", `${tool.name} was cancelled`));
      return errorResult(e);
    }
  });
  return server;
}
