// MCP wiring only: lists the meta-tools, validates arguments against their schemas, runs
// handlers, and turns every thrown error into a typed error result. Decides nothing.
import {
  Server, ProtocolError, ProtocolErrorCode as ErrorCode, isJSONRPCErrorResponse, PROTOCOL_VERSION_META_KEY, UnsupportedProtocolVersionError,
  type CallToolResult, type GetPromptResult, type InputRequiredResult, type ListPromptsResult, type JSONRPCMessage, type JSONRPCRequest, type ReadResourceResult, type RequestId, type Result, type ServerContext, type Tool, type Transport,
} from "@modelcontextprotocol/server";
import { ClientRequestSchema } from "@modelcontextprotocol/core";
import { z } from "zod";
import { clampEcho } from "../support/errors.js";
import { listingSchema, type MetaTool, type ToolContext } from "./tools/meta-tool.js";
import { runTool } from "./tools/run-tool.js";
import { unknownMetaTool } from "../calls/discovery.js";
import type { HostState } from "../decisions/host-detection.js";
import type { HostDecision } from "../decisions/core.js";
import { AppOnlyUse, LIST_CACHE_TTL_MS, Revision, TOOLS_LIST_TTL_MS, STATELESS_REVISION, UI_EXTENSION_ID } from "../decisions/generated/spec.js";
import { SHELL_MIME, SHELL_URI, shellHtml } from "../views/shell-page.js";
import { INSTRUCTIONS } from "./instructions.js";
import { questionChannel } from "./approval-question.js";
import { elicitationOf } from "../decisions/facts/approval.js";
import { requestCapabilities } from "../decisions/facts/host.js";
import type { HostToAsk } from "../calls/downstream-questions.js";
import { LOCAL_PRINCIPAL, type Principal } from "../support/principal.js";
import type { Observer } from "../observability/observer.js";

/** A stash shared by every principal, of which a request gets its own principal's side. */
type SharedStash = { for(owner: string): ToolContext["stash"] };

export interface ServerDeps {
  version: string;
  tools: MetaTool[];
  host: HostState;
  /** What every request shares; the stashes are handed to a request as its principal's side only. */
  context: Omit<ToolContext, "principal" | "signal" | "progress" | "relayProgress" | "host" | "approvals" | "retry" | "elicit" | "requestMeta" | "stash" | "viewStore"> & { stash: SharedStash; viewStore: SharedStash };
  /** Downstream UIs (glue/apps/resources.ts): the resource for this host, or undefined when there is none for it. */
  appResources: { read(uri: string, host: HostDecision, signal: AbortSignal, catalog: ToolContext["catalog"]): Promise<ReadResourceResult | undefined> };
  /** The catalog as `principal` sees it now (atrium.access of the running config, spec/access.md): every request's own. */
  catalogFor(principal: Principal): ToolContext["catalog"];
  /** Fires when atrium's own tool listing may have changed (a live reload: execute_code names the connectors in force). */
  onToolsChanged(listener: () => void): () => void;
  /** Downstream questions (calls/downstream-questions.ts): this connection becomes where they are asked; the returned function lets go of it. */
  questions: { hostConnected(host: HostToAsk): () => void };
  /** Downstream prompts (glue/calls/prompts.ts), and their connectors' prompts/list_changed. */
  prompts: {
    list(signal: AbortSignal, catalog: ToolContext["catalog"]): Promise<ListPromptsResult>;
    get(name: string, args: Record<string, string> | undefined, signal: AbortSignal, catalog: ToolContext["catalog"]): Promise<GetPromptResult>;
    onChanged(listener: () => void): () => void;
  };
  /** Metrics and traces of each meta-tool call (glue/observability/). */
  observer?: Observer;
}

/** The lists atrium answers the same way to every client for the life of the process. */
const CACHED_LISTS = ["resources/list", "resources/templates/list"] as const;

/** Request methods some atrium server instance serves, with those the SDK's stdio entry answers
 * itself before any instance exists (the 2026-07-28 discovery probe and subscription stream). */
const served = new Set<string>(["server/discover", "subscriptions/listen"]);

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
  /** Serves the 2026-07-28 revision (set by createServer; false during the SDK constructor's own registrations). */
  stateless = false;

  /** Whether atrium serves this request method, on either revision (the SDK's own initialize,
   * ping and discovery included); the stdio guard answers -32601 for the others. */
  static serves(this: void, method: string): boolean {
    return served.has(method);
  }

  /** The error thrown for request `id` goes on the wire with this code, whatever the SDK encodes. */
  keepCode(id: RequestId, code: number): void {
    this.keptCodes.set(id, code);
  }

  // Every registration passes through here, the SDK constructors' own (ping, initialize) too,
  // before this class's fields exist.
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    served.add(method);
    const wrapped = super._wrapHandler(method, handler);
    const schema = requestSchemas.get(method);
    if (!schema) return wrapped;
    return (request, ctx) => {
      // A pinned 2026-07-28 connection still refuses a request that claims another revision.
      const claimed = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
      if (claimed !== undefined && this.stateless && claimed !== STATELESS_REVISION) throw new UnsupportedProtocolVersionError({ supported: [STATELESS_REVISION], requested: String(claimed) });
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

/** The revision an era from the SDK's stdio entry speaks: "modern" is 2026-07-28. */
export const revisionOf = (era: "legacy" | "modern"): Revision => (era === "modern" ? Revision.r2026_07_28 : Revision.r2025_11_25);

/** One server instance for one connection of one revision (the SDK's stdio entry pins one per connection), acting for one principal. */
export function createServer(deps: ServerDeps, revision: Revision, principal: Principal = LOCAL_PRINCIPAL): AtriumServer {
  const modern = revision === Revision.r2026_07_28;
  const server: AtriumServer = new AtriumServer(
    { name: "atrium", version: deps.version },
    {
      capabilities: { tools: { listChanged: true }, resources: {}, prompts: { listChanged: true }, logging: {}, extensions: { [UI_EXTENSION_ID]: {} } },
      instructions: INSTRUCTIONS,
      // 2026-07-28 lists may be cached: each is the same for every client. The resources lists are
      // fixed for the process; the tool list changes with a live reload (H14: announced on
      // subscriptions/listen, and cached no longer than TOOLS_LIST_TTL_MS by a client that does not listen).
      cacheHints: { ...Object.fromEntries(CACHED_LISTS.map((m) => [m, { ttlMs: LIST_CACHE_TTL_MS, cacheScope: "public" as const }])), "tools/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "public" as const } },
    },
  );
  server.stateless = modern;
  // Read at each tools/list: execute_code's description follows the config in force.
  const listing = (): Tool[] => {
    const usable = new Set(deps.catalogFor(principal).connectorNames());
    return deps.tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.describeFor ? t.describeFor((id) => usable.has(id)) : t.description,
    inputSchema: listingSchema(t.input) as Tool["inputSchema"],
    annotations: t.annotations,
    ...(t._meta && { _meta: t._meta }),
    }));
  };
  const byName = new Map(deps.tools.map((t) => [t.name, t]));
  // This connection's own host: over HTTP every 2025-11-25 session is a connection, each with its own capabilities.
  const detectHost = deps.host.forConnection();
  const hostFor = (ctx: ServerContext) => detectHost(revision, server.getClientCapabilities(), ctx.mcpReq.envelope);
  const offered = (t: MetaTool, ctx: ServerContext, use: AppOnlyUse) => !t.appsHostOnly || deps.host.appOnly(revision, hostFor(ctx), use);

  // This connection is where downstream questions go (the core judges each for its revision and
  // elicitation fact, P12): a 2025-11-25 one once its capabilities are known, at initialize.
  let letGoOfQuestions = () => {};
  const askHere = () => {
    letGoOfQuestions();
    letGoOfQuestions = deps.questions.hostConnected({ revision, elicitation: elicitationOf(requestCapabilities(revision, server.getClientCapabilities(), undefined)), ask: (params, options) => server.elicitInput(params, options), complete: (elicitationId) => server.createElicitationCompletionNotifier(elicitationId)() });
  };
  if (modern) askHere();
  server.oninitialized = () => { detectHost(revision, server.getClientCapabilities(), undefined); askHere(); };
  server.setRequestHandler("tools/list", async (_request, ctx) => ({ tools: listing().filter((t) => offered(byName.get(t.name)!, ctx, AppOnlyUse.list)) }));
  server.setRequestHandler("resources/list", async () => ({ resources: [{ uri: SHELL_URI, name: "atrium view shell", mimeType: SHELL_MIME, description: "Renders views handed over by execute_code programs" }] }));
  // No templates, but the method is part of the resources capability (clients list it).
  server.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", async (request, ctx) => {
    if (request.params.uri === SHELL_URI) return { contents: [{ uri: SHELL_URI, mimeType: SHELL_MIME, text: shellHtml() }] };
    const app = await deps.appResources.read(request.params.uri, hostFor(ctx), ctx.mcpReq.signal, deps.catalogFor(principal));
    if (app) return app;
    if (!modern) server.keepCode(ctx.mcpReq.id, ErrorCode.ResourceNotFound); // 2026-07-28 answers -32602, as the SDK encodes it
    throw mcpError(ErrorCode.ResourceNotFound, `Resource not found: ${clampEcho(request.params.uri)}`);
  });
  server.setRequestHandler("prompts/list", async (_request, ctx) => deps.prompts.list(ctx.mcpReq.signal, deps.catalogFor(principal)));
  server.setRequestHandler("prompts/get", async (request, ctx) => deps.prompts.get(request.params.name, request.params.arguments, ctx.mcpReq.signal, deps.catalogFor(principal)));
  // A connector's prompts/list_changed goes on to this host (on 2026-07-28 the SDK's stdio entry routes it to the host's subscriptions/listen).
  const stopPrompts = deps.prompts.onChanged(() => void server.sendPromptListChanged().catch(() => {}));
  // A reload that may change the listing: 2025-11-25 hosts hear tools/list_changed, 2026-07-28 ones on subscriptions/listen.
  const stopTools = deps.onToolsChanged(() => void server.sendToolListChanged().catch(() => {}));
  const closed = server.onclose;
  server.onclose = () => { stopPrompts(); stopTools(); letGoOfQuestions(); closed?.(); };
  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const tool = byName.get(request.params.name);
    const catalog = deps.catalogFor(principal);
    if (!tool || !offered(tool, ctx, AppOnlyUse.call)) {
      // Worded once: an SDK 1 host prefixes "MCP error -32602: " itself (its McpError), so no prefix here.
      const own = deps.tools.filter((t) => offered(t, ctx, AppOnlyUse.call)).map((t) => t.name);
      const unknown = unknownMetaTool(catalog, request.params.name, own);
      throw new ProtocolError(ErrorCode.InvalidParams, unknown.message, unknown.data);
    }
    const token = request.params._meta?.progressToken;
    // The host's elicitation facts (H13) for the core to judge; a server-to-client request to carry one exists on 2025-11-25 only (2026-07-28 has input_required results instead).
    const send = modern ? undefined : { ask: (params: Parameters<typeof ctx.mcpReq.elicitInput>[0] & { mode: "url" }, signal: AbortSignal) => ctx.mcpReq.elicitInput(params, { signal }), complete: (elicitationId: string) => ctx.mcpReq.notify({ method: "notifications/elicitation/complete", params: { elicitationId } }) };
    const elicit = { revision, elicitation: elicitationOf(requestCapabilities(revision, server.getClientCapabilities(), ctx.mcpReq.envelope)), send };
    const run = () => runTool(tool, request.params.arguments, { ...deps.context, stash: deps.context.stash.for(principal.id), viewStore: deps.context.viewStore.for(principal.id), catalog, principal, host: hostFor(ctx), approvals: questionChannel(revision, server.getClientCapabilities(), ctx), retry: { state: ctx.mcpReq.requestState(), responses: ctx.mcpReq.inputResponses }, elicit, requestMeta: request.params._meta }, {
      signal: ctx.mcpReq.signal,
      notifyProgress: token === undefined ? undefined : (progress) => ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, ...progress } }),
    });
    return deps.observer ? deps.observer.metaTool({ tool: tool.name, principal: principal.id, sessionId: ctx.sessionId, modern, meta: request.params._meta }, run) : run();
  });
  return server;
}
