// MCP wiring only: lists the meta-tools, validates arguments against their schemas, runs
// handlers, and turns every thrown error into a typed error result. Decides nothing.
import {
  Server, ProtocolError, ProtocolErrorCode as ErrorCode, isJSONRPCErrorResponse,
  type CallToolResult, type JSONRPCMessage, type JSONRPCRequest, type RequestId, type Result, type ServerContext, type Tool, type Transport,
} from "@modelcontextprotocol/server";
import { ClientRequestSchema } from "@modelcontextprotocol/core";
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

/** The spec schema of each request a client sends, by method (the neutral model of @modelcontextprotocol/core). */
const requestSchemas = new Map<string, z.ZodType>(ClientRequestSchema.options.map((o) => [o.shape.method.value, o]));

/**
 * An error answer as SDK 1's McpError worded it ("MCP error <code>: <message>"): SDK 2 sends a
 * thrown error's message verbatim, and atrium's answers keep the text they had.
 */
const mcpError = (code: number, message: string) => new ProtocolError(code, `MCP error ${code}: ${message}`);

/**
 * The SDK's Server, with three changes. Its Protocol parses a request against the method's spec
 * schema inside the handler and answers a failed parse (a plain Error, no numeric code) as
 * -32603 Internal error; here the parse comes first and a failure is -32602 Invalid params. It
 * says which request methods it serves, so the stdio guard can answer -32601 for the others. And
 * an error a handler marks with `keepCode` keeps its code on the wire: SDK 2 rewrites -32002
 * (resource not found, MCP 2025-11-25) to -32602, the 2026-07-28 code.
 */
export class AtriumServer extends Server {
  private readonly keptCodes = new Map<RequestId, number>();

  /** Whether a request handler (the SDK's own initialize and ping included) serves this method. */
  serves(method: string): boolean {
    return served.get(this)?.has(method) ?? false;
  }

  /** The error thrown for request `id` goes on the wire with this code, whatever the SDK encodes. */
  keepCode(id: RequestId, code: number): void {
    this.keptCodes.set(id, code);
  }

  // Every registration passes through here, the SDK constructors' own (ping, initialize) too,
  // before this class's fields exist.
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    if (!served.has(this)) served.set(this, new Set());
    served.get(this)!.add(method);
    const wrapped = super._wrapHandler(method, handler);
    const schema = requestSchemas.get(method);
    if (!schema) return wrapped;
    return (request, ctx) => {
      const parsed = schema.safeParse(request);
      if (parsed.success) return wrapped(request, ctx);
      // tools/call keeps the wording of SDK 1's Server, which checked that request before atrium did.
      if (method === "tools/call") throw mcpError(ErrorCode.InvalidParams, `Invalid tools/call request: ${parsed.error.message}`);
      throw mcpError(ErrorCode.InvalidParams, clampEcho(`Invalid params for ${method}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, "; ")}`));
    };
  }

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(this.withKeptCode(message), options);
    await super.connect(transport);
  }

  /** The answer to a request marked with keepCode: the mark is used up, an error gets its code back. */
  private withKeptCode(message: JSONRPCMessage): JSONRPCMessage {
    const id = "id" in message && !("method" in message) ? message.id : undefined;
    if (id === undefined || !this.keptCodes.has(id)) return message;
    const code = this.keptCodes.get(id)!;
    this.keptCodes.delete(id);
    return isJSONRPCErrorResponse(message) ? { ...message, error: { ...message.error, code } } : message;
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
  server.setRequestHandler("tools/list", async () => ({ tools: listing.filter((t) => offered(byName.get(t.name)!)) }));
  server.setRequestHandler("resources/list", async () => ({ resources: [{ uri: SHELL_URI, name: "atrium view shell", mimeType: SHELL_MIME, description: "Renders views handed over by execute_code programs" }] }));
  // No templates, but the method is part of the resources capability (clients list it).
  server.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", async (request, ctx) => {
    if (request.params.uri !== SHELL_URI) {
      server.keepCode(ctx.mcpReq.id, ErrorCode.ResourceNotFound);
      throw mcpError(ErrorCode.ResourceNotFound, `Resource not found: ${clampEcho(request.params.uri)}`);
    }
    return { contents: [{ uri: SHELL_URI, mimeType: SHELL_MIME, text: shellHtml() }] };
  });
  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool || !offered(tool)) throw mcpError(ErrorCode.InvalidParams, `Unknown tool: ${clampEcho(request.params.name)}`);
    deps.host.detect(server.getClientCapabilities());
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return errorResult(new AtriumError("invalid_args", clampEcho(`${tool.name}: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}`)));
    try {
      const token = request.params._meta?.progressToken;
      const progress = token === undefined ? undefined : (completed: number) => {
        void ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: completed, message: `${completed} host call(s) done` } }).catch(() => {});
      };
      return await tool.run(parsed.data, contextFor(tool.uses, { ...deps.context, signal: ctx.mcpReq.signal, progress }));
    } catch (e) {
      if (ctx.mcpReq.signal.aborted) return errorResult(new AtriumError("cancelled", `${tool.name} was cancelled`));
      return errorResult(e);
    }
  });
  return server;
}
