// The limits a worker enforces for one run, every one of them read from the core: the run's
// own value when the job carries it, else the budget's default for a limit no operator sets,
// else the top of the operator range for one an operator may set (the worker must never be
// stricter than the bridge, which checks the exact value again on the main thread).
import type { Core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import type { RunLimits } from "./protocol.js";

export type WorkerLimits = Required<RunLimits>;

export function workerLimits(c: Core, l: RunLimits): WorkerLimits {
  const top = (b: number) => c.limitRange(b).max;
  const dflt = (b: number) => c.limitDefault(b);
  return {
    ...l,
    hostCalls: l.hostCalls ?? top(Budget.host_calls),
    batchCalls: l.batchCalls ?? top(Budget.batch_calls),
    callPayloadBytes: l.callPayloadBytes ?? top(Budget.call_payload_bytes),
    returnChars: l.returnChars ?? top(Budget.return_chars),
    errorTextChars: l.errorTextChars ?? dflt(Budget.error_text_chars),
    searchQueryChars: l.searchQueryChars ?? dflt(Budget.search_query_chars),
    requestDepth: l.requestDepth ?? dflt(Budget.request_depth),
  };
}
