// MCP wiring only: lists the meta-tools, validates arguments against their schemas, runs
// handlers, and turns every thrown error into a typed error result. Decides nothing.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { safeParse, type AnyObjectSchema, type SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { getMethodLiteral } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, McpError,
  type CallToolResult, type Notification, type Request, type Result, type ServerNotification, type ServerRequest, type ServerResult, type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AtriumError, clampEcho } from "../support/errors.js";
import { errorResult } from "./tools/tool-result.js";
import { contextFor, listingSchema, type MetaTool, type ToolContext } from "./tools/meta-tool.js";
import type { HostState } from "../decisions/host-detection.js";
import { HostKind, UI_EXTENSION_ID } from "../decisions/generated/spec.js";
import { SHELL_MIME, SHELL_URI, shellHtml } from "../views/shell-page.js";
import { INSTRUCTIONS } from "./instructions.js";

export interface ServerDeps {
  version: string;
  tools: MetaTool[];
  host: HostState;
  context: Omit<ToolContext, "signal" | "progress">;
}

const served = new WeakMap<Server, Set<string>>();

/**
 * The SDK's Server, with two changes. Its Protocol parses a request against the handler's schema
 * inside the handler and answers a failed parse (a ZodError, which has no numeric code) as -32603
 * Internal error; here the parse comes first and a failure is -32602 Invalid params. And it
 * says which request methods it serves, so the stdio guard can answer -32601 for the others.
 */
export class AtriumServer extends Server {
  /** Whether a request handler (the SDK's own initialize and ping included) serves this method. */
  serves(method: string): boolean {
    return served.get(this)?.has(method) ?? false;
  }

  override setRequestHandler<T extends AnyObjectSchema>(
    requestSchema: T,
    handler: (request: SchemaOutput<T>, extra: RequestHandlerExtra<ServerRequest | Request, ServerNotification | Notification>) => ServerResult | Result | Promise<ServerResult | Result>,
  ): void {
    const method = getMethodLiteral(requestSchema);
    // Called from the SDK constructors too (ping, initialize), before this class's fields exist.
    if (!served.has(this)) served.set(this, new Set());
    served.get(this)!.add(method);
    super.setRequestHandler(z.looseObject({ method: z.literal(method) }), (request, extra) => {
      const parsed = safeParse(requestSchema, request);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, clampEcho(`Invalid params for ${method}: ${z.prettifyError(parsed.error as z.core.$ZodError).replace(/\s*\n\s*/g, "; ")}`));
      return handler(parsed.data, extra);
    });
  }
}

export function createServer(deps: ServerDeps): AtriumServer {
  const server = new AtriumServer(
    { name: "atrium", version: deps.version },
    { capabilities: { tools: { listChanged: false }, resources: {}, extensions: { [UI_EXTENSION_ID]: {} } }, instructions: INSTRUCTIONS },
  );
  const listing: Tool[] = deps.tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: listingSchema(t.input) as Tool["inputSchema"],
    annotations: t.annotations,
    ...(t._meta && { _meta: t._meta }),
  }));
  const byName = new Map(deps.tools.map((t) => [t.name, t]));
  /** Acts on the core's host decision: app-only tools exist only for Apps hosts. */
  const offered = (t: MetaTool) => !t.appsHostOnly || deps.host.detect(server.getClientCapabilities()).kind === HostKind.apps;

  server.oninitialized = () => deps.host.detect(server.getClientCapabilities());
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listing.filter((t) => offered(byName.get(t.name)!)) }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: SHELL_URI, name: "atrium view shell", mimeType: SHELL_MIME, description: "Renders views handed over by execute_code programs" }] }));
  // No templates, but the method is part of the resources capability (clients list it).
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== SHELL_URI) throw new McpError(-32002, `Resource not found: ${clampEcho(request.params.uri)}`);
    return { contents: [{ uri: SHELL_URI, mimeType: SHELL_MIME, text: shellHtml() }] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool || !offered(tool)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${clampEcho(request.params.name)}`);
    deps.host.detect(server.getClientCapabilities());
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return errorResult(new AtriumError("invalid_args", clampEcho(`${tool.name}: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}`)));
    try {
      const token = request.params._meta?.progressToken;
      const progress = token === undefined ? undefined : (completed: number) => {
        void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: completed, message: `${completed} host call(s) done` } }).catch(() => {});
      };
      return await tool.run(parsed.data, contextFor(tool.uses, { ...deps.context, signal: extra.signal, progress }));
    } catch (e) {
      if (extra.signal.aborted) return errorResult(new AtriumError("cancelled", `${tool.name} was cancelled`));
      return errorResult(e);
    }
  });
  return server;
}
