// Runs one meta-tool call: its arguments checked against the tool's schema (a failure is the
// typed invalid_args result, never a protocol error), progress reported per completed host call
// (a direct call: the downstream's own progress, checked by calls/downstream-progress.ts),
// and every failure — a cancellation included — turned into the typed error result. Each call is
// one meta_tool event of the activity log (its outcome code and duration, nothing of its payload).
import { z } from "zod";
import type { CallToolResult, InputRequiredResult } from "@modelcontextprotocol/server";
import { AtriumError, clampEcho } from "../../support/errors.js";
import { errorResult } from "./tool-result.js";
import { contextFor, type MetaTool, type ToolContext } from "./meta-tool.js";
import { answerOutcome } from "../../activity/events.js";
import { progressRelay, type DownstreamProgress } from "../../calls/downstream-progress.js";

export interface CallScope {
  signal: AbortSignal;
  /** Sends one progress notification; set when the request carries a progress token. */
  notifyProgress?: (progress: DownstreamProgress) => Promise<void>;
}

export async function runTool(tool: MetaTool, args: unknown, context: Omit<ToolContext, "signal" | "progress" | "relayProgress">, scope: CallScope): Promise<CallToolResult | InputRequiredResult> {
  const started = performance.now();
  const result = await answer(tool, args, context, scope);
  context.activity.metaTool(tool.name, answerOutcome(result), performance.now() - started);
  return result;
}

async function answer(tool: MetaTool, args: unknown, context: Omit<ToolContext, "signal" | "progress" | "relayProgress">, scope: CallScope): Promise<CallToolResult | InputRequiredResult> {
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return errorResult(new AtriumError("invalid_args", clampEcho(`${tool.name}: ${z.prettifyError(parsed.error).replace(/\n/g, "; ")}`)));
  const notify = scope.notifyProgress;
  // Every progress notification goes out before the answer: once the answer is on the wire its
  // token is no longer active, and a late notification would be dropped or misread.
  const sent: Promise<void>[] = [];
  const send = notify && ((p: DownstreamProgress) => void sent.push(notify(p).catch(() => {})));
  const progress = send && ((completed: number) => send({ progress: completed, message: `${completed} host call(s) done` }));
  // A direct call's own downstream progress, checked and cut before it goes on (one relay per call).
  const relayProgress = send && progressRelay(send);
  let result: CallToolResult | InputRequiredResult;
  try {
    result = await tool.run(parsed.data, contextFor(tool.uses, { ...context, signal: scope.signal, progress, relayProgress }));
  } catch (e) {
    result = errorResult(scope.signal.aborted ? new AtriumError("cancelled", `${tool.name} was cancelled`) : e);
  }
  await Promise.all(sent);
  return result;
}
