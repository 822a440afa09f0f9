// The activity log's vocabulary: the closed set of events atrium records (docs/reference.md
// "Activity log") and the sink every hook calls. An event holds only ids (connector, tool), codes
// (outcome, reason, state, path), numbers and config paths — never arguments, results, program
// source, view HTML, messages or tokens; the writer (log.ts) copies only these fields, by name.
//
// Hook points for other parts: `quarantine(...)` is for the pin check (a tool set aside) and
// `configReload(...)` for the config watcher (a reload applied or refused); both are on every sink.

/** How a downstream call came in: call_tool / call_destructive_tool, a program, a view's read, a downstream app. */
export type CallPath = "direct" | "program" | "view" | "app";
/** What happened to a connector, as its state changed (connector-watch.ts). */
export type ConnectorChange = "start" | "crash" | "restart" | "needs_auth" | "failed" | "stopped";
type ApprovalStep = "asked" | "given" | "declined";

interface MetaToolEvent { event: "meta_tool"; tool: string; outcome: string; durationMs: number }
interface CallEvent { event: "call"; connector: string; tool: string; path: CallPath; outcome: string; durationMs: number; resultBytes: number }
interface ApprovalEvent { event: `approval_${ApprovalStep}`; connector: string; tool: string; reason?: string }
interface ConnectorEvent { event: `connector_${ConnectorChange}`; connector: string; state: string; attempt: number }
interface QuarantineEvent { event: "quarantine"; connector: string; tool: string; reason: string }
interface ConfigReloadEvent { event: "config_reload"; outcome: "ok" | "error"; added: string[]; removed: string[]; restarted: string[]; errorPath?: string }
export type ActivityEvent = MetaToolEvent | CallEvent | ApprovalEvent | ConnectorEvent | QuarantineEvent | ConfigReloadEvent;

/** A config reload as the watcher saw it: applied (which connectors changed), or refused (the path of the first error, "" for the file). */
type ReloadOutcome = { ok: true; added: string[]; removed: string[]; restarted: string[] } | { ok: false; errorPath: string };

/** Where events go. Every method returns at once and never throws: the log never stops serving. */
export interface ActivitySink {
  metaTool(tool: string, outcome: string, durationMs: number): void;
  call(e: Omit<CallEvent, "event">): void;
  approval(step: ApprovalStep, connector: string, tool: string, reason?: string): void;
  connector(change: ConnectorChange, connector: string, state: string, attempt: number): void;
  /** A tool set aside by the pin check (issue 13 items 1–3): its connector, its name and the reason code. */
  quarantine(connector: string, tool: string, reason: string): void;
  /** A config file change applied or refused by the live reload (issue 13 item 5). */
  configReload(outcome: ReloadOutcome): void;
}

/** Builds a sink from one function that takes a whole event (the writer's, or a test's). */
export function sinkOf(record: (e: ActivityEvent) => void): ActivitySink {
  return {
    metaTool: (tool, outcome, durationMs) => record({ event: "meta_tool", tool, outcome, durationMs }),
    call: (e) => record({ event: "call", ...e }),
    approval: (step, connector, tool, reason) => record({ event: `approval_${step}`, connector, tool, ...(reason !== undefined && { reason }) }),
    connector: (change, connector, state, attempt) => record({ event: `connector_${change}`, connector, state, attempt }),
    quarantine: (connector, tool, reason) => record({ event: "quarantine", connector, tool, reason }),
    configReload: (o) => record(o.ok ? { event: "config_reload", outcome: "ok", added: o.added, removed: o.removed, restarted: o.restarted } : { event: "config_reload", outcome: "error", added: [], removed: [], restarted: [], errorPath: o.errorPath }),
  };
}

/** The sink of a process that keeps no log (log.enabled false, doctor, tests that do not look). */
export const noActivity: ActivitySink = sinkOf(() => {});

/** An outcome code of a failure: the typed error's code, else "internal". */
export function outcomeOf(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "internal";
}

/** The outcome code of a meta-tool's answer: ok, the typed error's code, or input_required (a parked run's question). */
export function answerOutcome(answer: { isError?: boolean; structuredContent?: unknown; resultType?: unknown }): string {
  if (answer.resultType === "input_required") return "input_required";
  if (!answer.isError) return "ok";
  const error = (answer.structuredContent as { error?: unknown } | undefined)?.error;
  return outcomeOf(error);
}
