// What one program run has read from connectors the operator marked `"data": "private"`: the
// `privateRead` fact of its later calls (spec/data-flow.md). A call counts from the moment every
// gate let it through, whatever it answers; a batch counts its private items before any of its
// items is judged, so an egress item beside a private read is gated as after it. A view's bound
// reads are judged here too: they run after the program, when no one can be asked.
import type { Core } from "../decisions/core.js";
import type { CatalogEntry } from "../catalog/entry.js";
import { DataFlow, Egress, PrivateRead, ToolClass } from "../decisions/generated/spec.js";
import { dataFlowRefused } from "./approval-refusal.js";

export class RunFlow {
  private readonly read = new Set<string>();

  /** The private connectors this run has read from, in the order it first did. */
  get privateReads(): readonly string[] {
    return [...this.read];
  }

  reading(connectorId: string): void {
    this.read.add(connectorId);
  }
}

/** F2 on a view's bound reads (read-only calls made later, with no one to ask): the first that would be a flow refuses the view. */
export function judgeViewReads(core: Core, flow: RunFlow, bound: readonly CatalogEntry[]): void {
  const reads = flow.privateReads;
  for (const entry of bound) {
    const d = core.dataFlow({ privateRead: reads.length > 0 ? PrivateRead.read : PrivateRead.none, egress: entry.egress === true ? Egress.yes : Egress.no, safety: ToolClass.read_only });
    if (d === DataFlow.approve_flow) throw dataFlowRefused(entry, reads, "view_reads");
    if (d !== DataFlow.run) throw dataFlowRefused(entry, reads, "invalid_facts");
  }
}
