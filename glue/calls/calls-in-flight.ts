// Which callers have calls out to each connector right now (spec/approvals.md P13): invoke.ts
// enters every call it sends down and leaves when it ends; the asker of a downstream question
// reads, for the asking connector, the distinct program runs with calls out (each with its
// run's approvals and clock) and how many direct calls (call_tool, call_destructive_tool, an
// app's call) are out. Over stdio this is all atrium knows of whose question it is; the core
// (downstreamOwner) decides from it. One table for the process: every call takes invoke.ts.
import type { RunApprovals, RunClock } from "./approvals.js";

/** A program run as the owner of its calls: its approvals (questions counted) and its clock (paused while the person answers). */
export interface RunOfCall { approvals: RunApprovals; clock: RunClock }

/** The callers with calls out to one connector. */
interface CallersOut { runs: RunOfCall[]; direct: number }

class CallsInFlight {
  /** By connector: each run's count of calls out (keyed by its approvals), and the direct calls out. */
  private readonly out = new Map<string, { runs: Map<RunApprovals, { run: RunOfCall; calls: number }>; direct: number }>();

  /** Records one call out to `connectorId` (a run's, or direct when `run` is undefined); the returned function records its end, once. */
  enter(connectorId: string, run: RunOfCall | undefined): () => void {
    const c = this.out.get(connectorId) ?? { runs: new Map(), direct: 0 };
    this.out.set(connectorId, c);
    if (run) {
      const r = c.runs.get(run.approvals) ?? { run, calls: 0 };
      r.calls++;
      c.runs.set(run.approvals, r);
    } else c.direct++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (run) {
        const r = c.runs.get(run.approvals);
        if (r && --r.calls === 0) c.runs.delete(run.approvals);
      } else c.direct--;
      if (c.runs.size === 0 && c.direct === 0 && this.out.get(connectorId) === c) this.out.delete(connectorId);
    };
  }

  /** The callers with calls out to `connectorId` now. */
  callersOf(connectorId: string): CallersOut {
    const c = this.out.get(connectorId);
    return { runs: c ? [...c.runs.values()].map((r) => r.run) : [], direct: c?.direct ?? 0 };
  }
}

/** The process's calls in flight, by connector. */
export const callsInFlight = new CallsInFlight();
