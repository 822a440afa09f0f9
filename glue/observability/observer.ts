// The observability port: the one object the call sites hold (HTTP requests in http/server.ts,
// meta-tool dispatch in mcp/server.ts, a program's run in execute_code, each downstream call at
// the port app.ts grants, connector states, store errors). Each site makes one call; what is
// measured goes to Prometheus metrics (metrics.ts, `serve --http` only) and to OpenTelemetry
// spans (tracing.ts, only when an OTLP endpoint is set), either, both or neither. Only ids and
// codes ever leave through it: the meta-tool and downstream tool names, connector ids, outcome
// codes (bounded to atrium's error codes), a hash of the principal and of the session: never
// arguments, results, program source, headers or tokens. Without metrics and tracing it is
// `noObserver`, which runs each call as it is.
import { createHash } from "node:crypto";
import { ErrorCode, STATELESS_REVISION } from "../decisions/generated/spec.js";
import { answerOutcome, outcomeOf } from "../activity/events.js";
import { MS_PER_SECOND } from "../support/format.js";

/** A meta-tool call (tools/call) as the MCP wiring sees it, before it runs. */
interface MetaToolFacts {
  tool: string;
  /** Principal.id: exported only as a hash (principalHash). */
  principal: string;
  /** The 2025-11-25 HTTP session, if any: exported only as a hash. */
  sessionId?: string;
  /** Whether the connection speaks 2026-07-28 (else the 2025-11-25 revision, with a session). */
  modern: boolean;
  /** The request's params._meta: read only for a W3C traceparent (a caller's trace this span joins). */
  meta?: Record<string, unknown>;
}

/** A meta-tool's answer, as far as its outcome goes (activity/events.ts answerOutcome). */
type Answer = { isError?: boolean; structuredContent?: unknown; resultType?: unknown };

export interface Observer {
  /** An HTTP request came in (method and path as sent); the function returned ends it with its status. */
  request(method: string | undefined, path: string | undefined): (status: number) => void;
  /** Runs one meta-tool call: a span (child of the caller's traceparent, if any) and its outcome counted. */
  metaTool<T extends Answer>(facts: MetaToolFacts, run: () => Promise<T>): Promise<T>;
  /** Runs one execute_code program to its answer: a span (child of the meta-tool's) and its outcome counted. */
  program<T extends Answer>(run: () => Promise<T>): Promise<T>;
  /** Runs one downstream tools/call: a span (child of the run's or the request's), counted by connector and outcome. */
  downstream<T extends { isError?: boolean }>(connector: string, tool: string, run: () => Promise<T>): Promise<T>;
  /** Where connector states are read at each scrape (the registry's connectors: ids from config). */
  connectors(read: () => readonly { readonly id: string; readonly state: string }[]): void;
  /** A store operation failed (the shared store calls this; `op` is one of a fixed set of its operation names). */
  storeError(op: string): void;
  /** Sends what is buffered (spans) and stops: at the end of the process. */
  shutdown(): Promise<void>;
}

/** What metrics.ts records (it never sees a principal or a tool's payload). */
export interface MetricsSink {
  request(method: string, route: string, status: number, seconds: number): void;
  metaTool(tool: string, outcome: string, seconds: number): void;
  program(outcome: string, seconds: number): void;
  downstream(connector: string, outcome: string, seconds: number): void;
  connectors(read: () => readonly { readonly id: string; readonly state: string }[]): void;
  storeError(op: string): void;
}

/** Attributes of a span: strings only, and only ids, codes and hashes. */
type SpanFacts = Record<string, string>;
export type SpanKindName = "server" | "client" | "internal";

/** What tracing.ts does: one span around `run`, active while it runs; `outcome` names how it ended. */
export interface SpanSink {
  span<T>(name: string, kind: SpanKindName, facts: SpanFacts, run: () => Promise<T>, outcome: (value: T) => string, parent?: Record<string, unknown>): Promise<T>;
  shutdown(): Promise<void>;
}

/** Outcome codes a label or attribute may take: atrium's error codes and these; anything else is "other". */
const OUTCOMES = new Set<string>(["ok", "tool_error", "input_required", "internal", ...Object.keys(ErrorCode)]);
export const boundedOutcome = (code: string): string => (OUTCOMES.has(code) ? code : "other");

/** A stable, one-way name for a principal or a session in spans: never the id itself. @internal exported for its tests. */
export const pseudonym = (kind: string, id: string): string => createHash("sha256").update(`atrium.${kind}:${id}`).digest("hex");

const seconds = (since: number) => (performance.now() - since) / MS_PER_SECOND;

export const noObserver: Observer = {
  request: () => () => {},
  metaTool: (_facts, run) => run(),
  program: (run) => run(),
  downstream: (_c, _t, run) => run(),
  connectors: () => {},
  storeError: () => {},
  shutdown: async () => {},
};

/** The observer of a process: metrics (serve --http), spans (an OTLP endpoint set), or both. */
export function createObserver(parts: { metrics?: MetricsSink; spans?: SpanSink; transport: "http" | "stdio"; routeOf?: (path: string | undefined) => string }): Observer {
  const { metrics, spans } = parts;
  if (!metrics && !spans) return noObserver;
  const network: SpanFacts = parts.transport === "http" ? { "network.transport": "tcp", "network.protocol.name": "http" } : { "network.transport": "pipe" };
  const timed = async <T>(run: () => Promise<T>, outcome: (value: T) => string, record: (outcome: string, s: number) => void): Promise<T> => {
    const started = performance.now();
    try {
      const value = await run();
      record(boundedOutcome(outcome(value)), seconds(started));
      return value;
    } catch (e) {
      record(boundedOutcome(outcomeOf(e)), seconds(started));
      throw e;
    }
  };
  const traced = <T>(name: string, kind: SpanKindName, facts: SpanFacts, run: () => Promise<T>, outcome: (value: T) => string, parent?: Record<string, unknown>) =>
    spans ? () => spans.span(name, kind, facts, run, (v) => boundedOutcome(outcome(v)), parent) : run;
  const callOutcome = (r: { isError?: boolean }) => (r.isError ? "tool_error" : "ok");
  return {
    request(method, path) {
      if (!metrics) return () => {};
      const started = performance.now();
      return (status) => metrics.request(methodLabel(method), parts.routeOf?.(path) ?? "other", status, seconds(started));
    },
    metaTool(facts, run) {
      const attributes: SpanFacts = {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": facts.tool,
        "mcp.protocol.version": facts.modern ? STATELESS_REVISION : LEGACY_REVISION,
        "atrium.principal": pseudonym("principal", facts.principal),
        ...(facts.sessionId !== undefined && { "mcp.session.id": pseudonym("session", facts.sessionId) }),
        ...network,
      };
      return timed(traced(`tools/call ${facts.tool}`, "server", attributes, run, answerOutcome, facts.meta), answerOutcome, (o, s) => metrics?.metaTool(facts.tool, o, s));
    },
    program(run) {
      return timed(traced("execute_code run", "internal", {}, run, answerOutcome), answerOutcome, (o, s) => metrics?.program(o, s));
    },
    downstream(connector, tool, run) {
      const attributes: SpanFacts = { "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "atrium.connector": connector };
      return timed(traced(`tools/call ${tool}`, "client", attributes, run, callOutcome), callOutcome, (o, s) => metrics?.downstream(connector, o, s));
    },
    connectors: (read) => metrics?.connectors(read),
    storeError: (op) => metrics?.storeError(op),
    shutdown: async () => { await spans?.shutdown(); },
  };
}

/** The revision atrium serves with sessions (the era of initialize). */
const LEGACY_REVISION = "2025-11-25";
const METHODS = new Set(["GET", "POST", "DELETE", "PUT", "HEAD", "OPTIONS", "PATCH"]);
const methodLabel = (method: string | undefined) => (method !== undefined && METHODS.has(method) ? method : "other");
