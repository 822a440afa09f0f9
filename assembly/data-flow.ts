// The data-flow guard (spec/data-flow.md, F1–F4): does a program's call run as its class says, or
// carry what the run read from a private connector to an egress one (then the person is asked, as
// a flow: spec/approvals.md P14, P15)? Fails closed.
import { DataFlow, Egress, PrivateRead, ToolClass } from "./generated/spec";

/** F1–F4. */
export function dataFlow(privateRead: i32, egress: i32, safety: i32): i32 {
  if (privateRead < PrivateRead.none || privateRead > PrivateRead.read || egress < Egress.no || egress > Egress.yes || safety < ToolClass.approval || safety > ToolClass.read_only) return DataFlow.invalid_facts; // F4
  if (privateRead == PrivateRead.read && egress == Egress.yes) return DataFlow.approve_flow; // F2
  return safety == ToolClass.approval ? DataFlow.approve_write : DataFlow.run; // F1, F3
}
