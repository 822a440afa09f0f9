// The limits a worker enforces for one run, every one of them read from the core: the run's own
// value when the job carries it, else the budget's default. The worker is the only place these
// per-request bounds are checked (the main thread counts; it does not check them again), so the
// job carries the run's exact value of every bound an operator can set.
import type { Core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import type { RunLimits } from "./protocol.js";

export type WorkerLimits = Required<RunLimits>;

export function workerLimits(c: Core, l: RunLimits): WorkerLimits {
  const dflt = (b: number) => c.limitDefault(b);
  return {
    ...l,
    hostCalls: l.hostCalls ?? dflt(Budget.host_calls),
    callPayloadBytes: l.callPayloadBytes ?? dflt(Budget.call_payload_bytes),
    returnChars: l.returnChars ?? dflt(Budget.return_chars),
    errorTextChars: l.errorTextChars ?? dflt(Budget.error_text_chars),
    searchQueryChars: l.searchQueryChars ?? dflt(Budget.search_query_chars),
    requestDepth: l.requestDepth ?? dflt(Budget.request_depth),
  };
}
