// The refusal of a call to a tool that is not read-only where the person was not asked:
// `destructive_tool_requires_approval`, pointing at call_destructive_tool (the person approves
// there). One wording for every path that refuses so: a direct call, and a program's call the
// core did not let be asked (spec/approvals.md P2, P3, P7). And the refusal of a flow
// (spec/approvals.md P14, spec/data-flow.md F4): `data_flow_requires_approval`, naming what the
// run read and where it would have gone.
import type { CatalogEntry } from "../catalog/entry.js";
import { AtriumError } from "../support/errors.js";
import { ECHO_ARGS_BYTES_MAX, type ClassReasonName } from "../decisions/generated/spec.js";
import { approvalPurposeText, dataFlowRefusalText } from "../decisions/messages.js";

/** `why` replaces the message's tail and `details.reason` (the class reason) when the refusal has another cause. */
export function approvalRequired(entry: CatalogEntry, args: unknown, argsJson: string, why?: { text: string; reason: string }): AtriumError {
  return new AtriumError("destructive_tool_requires_approval", `${entry.address} is not read-only (${entry.reason}); ${why?.text ?? "it runs only through call_destructive_tool, after the person approves"}`, {
    nextAction: { tool: "call_destructive_tool", arguments: Buffer.byteLength(argsJson) <= ECHO_ARGS_BYTES_MAX ? { address: entry.address, args } : { address: entry.address }, purpose: approvalPurposeText[entry.reason as ClassReasonName] ?? approvalPurposeText.invalid_facts },
    details: { address: entry.address, reason: why?.reason ?? entry.reason },
  });
}

/** A call that would carry what the run read from `from` (private connectors) to an egress connector, refused without a question. */
export function dataFlowRefused(entry: CatalogEntry, from: readonly string[], why: keyof typeof dataFlowRefusalText): AtriumError {
  return new AtriumError("data_flow_requires_approval", `${entry.address} did not run: this program read from ${from.join(", ") || "a private connector"} ("data": "private"), and ${entry.connectorId} can send data out ("egress": true); ${dataFlowRefusalText[why]}`, {
    details: { address: entry.address, readFrom: [...from], reason: why },
  });
}
