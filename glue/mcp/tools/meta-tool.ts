// The shape of one meta-tool: its MCP listing (name, description, annotations, input schema
// generated from the zod schema that also validates its arguments) and its handler.
import type { ProgramSlots } from "../program-slots.js";
import type { ParkedRuns } from "../parked-runs.js";
import { z } from "zod";
import type { CallToolResult, InputRequiredResult, ToolAnnotations } from "@modelcontextprotocol/server";
import type { Core } from "../../decisions/core.js";
import type { Catalog } from "../../catalog/catalog.js";
import type { DownstreamAccess } from "../../calls/invoke.js";
import type { OwnedStash } from "../../results/stash.js";
import type { AtriumConfig } from "../../config/schema.js";
import type { SandboxPool } from "../../sandbox/pool.js";
import type { HostDecision } from "../../decisions/core.js";
import type { QuestionChannel } from "../../calls/approvals.js";
import type { Authorizer } from "../../auth/authorizer.js";
import type { ElicitationSupport, Revision } from "../../decisions/generated/spec.js";
import type { ActivitySink } from "../../activity/events.js";
import type { SemanticSource } from "../../calls/discovery.js";
import type { RawProgress } from "../../calls/downstream-progress.js";
import type { Principal } from "../../support/principal.js";

/**
 * Elicitation toward the host of this request: the facts the core judges it by (spec/oauth.md O6:
 * the request's revision, the `elicitation` fact of its host, H13) and, where the revision has a
 * server-to-client request to carry one (2025-11-25), `send`: the request that asks.
 */
interface ElicitPort {
  revision: Revision;
  elicitation: ElicitationSupport;
  send?: {
    ask(params: { mode: "url"; url: string; message: string; elicitationId: string }, signal: AbortSignal): Promise<{ action: "accept" | "decline" | "cancel" }>;
    /** Tells the host that the URL-mode elicitation `elicitationId` is complete. */
    complete(elicitationId: string): Promise<void>;
  };
}

export interface ToolContext {
  /** Who this request acts for (support/principal.ts): `local` on stdio; over HTTP, the token's principal. */
  principal: Principal;
  core: Core;
  catalog: Catalog;
  /** The Downstream port, closed: handed to calls/invoke.ts, which alone opens it. */
  downstream: DownstreamAccess;
  /** The semantic layer search fuses with its lexical ranking once its vectors are ready. */
  semantic: SemanticSource;
  /** This principal's side of the result stash. */
  stash: OwnedStash;
  /** View payloads kept for the app-only get_view tool (bounded in time and bytes). */
  viewStore: OwnedStash;
  /** Programs each principal runs at once (principal_programs). */
  programSlots: ProgramSlots;
  /** Runs parked on a 2026-07-28 question, this process's (and, with replicas, the way to another's). */
  parked: ParkedRuns;
  config: AtriumConfig;
  pool: SandboxPool;
  /** The host deciding this request (H13): the session's on 2025-11-25, the request's own on 2026-07-28. */
  host: HostDecision;
  signal: AbortSignal;
  /** Where a program's write is asked of the person (spec/approvals.md): this request's channel and its host's facts. */
  approvals: QuestionChannel;
  /** A 2026-07-28 retry's echo: the requestState and inputResponses it carries (both unread, from the client). */
  retry: { state: unknown; responses?: Record<string, unknown> };
  /** Logins of remote connectors (authorize_connector). */
  authorizer: Authorizer;
  /** Elicitation toward this request's host: its facts, and the request that asks where the revision has one. */
  elicit: ElicitPort;
  /** Set when the request carries a progress token. */
  progress?: (completed: number) => void;
  /** Set when the request carries a progress token: a direct call's downstream progress, checked (calls/downstream-progress.ts) and passed on to the host. */
  relayProgress?: (raw: RawProgress) => void;
  /** Where events go (glue/activity/): the activity log, or nowhere. */
  activity: ActivitySink;
  /** The request's own `_meta`, as the client sent it (unread by the server). */
  requestMeta?: Record<string, unknown>;
}

export interface MetaTool<S extends z.ZodType = z.ZodType, K extends keyof ToolContext = keyof ToolContext> {
  name: string;
  title: string;
  description: string;
  /** The description as a principal who may use only the connectors `usable` admits reads it (execute_code names the connectors). */
  describeFor?(usable: (connectorId: string) => boolean): string;
  annotations: ToolAnnotations;
  input: S;
  _meta?: Record<string, unknown>;
  /** App-only (H14): listed and callable as the core's appOnly decides for the revision and host. */
  appsHostOnly?: boolean;
  /** What the tool uses from the server's context: it receives exactly these, nothing else. */
  uses: readonly K[];
  /** A tool's result; execute_code alone may answer input-required on 2026-07-28 (a question parks its run). */
  run(args: z.output<S>, ctx: Pick<ToolContext, K>): Promise<CallToolResult | InputRequiredResult>;
}

export const defineTool = <S extends z.ZodType, K extends keyof ToolContext>(tool: MetaTool<S, K>): MetaTool<S, K> => tool;

/** The slice of the context a tool declared in `uses`. */
export function contextFor<K extends keyof ToolContext>(uses: readonly K[], full: ToolContext): Pick<ToolContext, K> {
  const ctx = {} as Pick<ToolContext, K>;
  for (const k of uses) ctx[k] = full[k];
  return ctx;
}

/** The listed input schema: JSON Schema of the zod input, without what hosts do not need (the dialect URI, string-key noise, the safe-integer ceiling zod adds to every integer). */
export function listingSchema(input: z.ZodType): Record<string, unknown> {
  return JSON.parse(JSON.stringify(z.toJSONSchema(input, { io: "input" }), (key, value) => (key === "$schema" || key === "propertyNames" || (key === "maximum" && value === Number.MAX_SAFE_INTEGER) ? undefined : value)));
}
