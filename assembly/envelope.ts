// Result envelope and error retryability (spec/envelope.md, E1–E8).
import { Delivery, EnvelopeFlag, ErrorCode, ViewState } from "./generated/spec";

/** E1–E6: the set of EnvelopeFlag bits the result carries. */
export function envelope(success: bool, view: i32, blocks: f64, delivery: i32): i32 {
  if (view < ViewState.none || view > ViewState.accepted || delivery < Delivery.none || delivery > Delivery.file || !isFinite<f64>(blocks) || blocks < 0 || Math.floor(blocks) != blocks) {
    return EnvelopeFlag.is_error | EnvelopeFlag.error_body | EnvelopeFlag.invalid_facts; // E6
  }
  const viewAccepted = view == ViewState.accepted;
  if (!success) {
    let f = EnvelopeFlag.is_error | EnvelopeFlag.error_body; // E1
    if (blocks > 0) f |= EnvelopeFlag.note_blocks_discarded; // E3
    if (viewAccepted) f |= EnvelopeFlag.note_view_discarded; // E5
    return f;
  }
  let f = EnvelopeFlag.value; // E1
  if (blocks > 0) f |= EnvelopeFlag.blocks; // E2
  if (viewAccepted) { // E4
    if (delivery == Delivery.inline) f |= EnvelopeFlag.view_meta | EnvelopeFlag.view_store | EnvelopeFlag.note_view_delivered;
    else if (delivery == Delivery.file) f |= EnvelopeFlag.view_file | EnvelopeFlag.note_view_delivered;
    else f |= EnvelopeFlag.note_view_not_delivered;
  }
  return f;
}

/** E7: 1 retryable, 0 not, -1 unknown code. */
export function errorRetryable(code: i32): i32 {
  if (code < ErrorCode.unknown_address || code > ErrorCode.data_flow_requires_approval) return -1;
  return code == ErrorCode.timeout || code == ErrorCode.unavailable || code == ErrorCode.rate_limited || code == ErrorCode.executor_overloaded ? 1 : 0;
}

/** E8: `unavailable` is retryable only while a recovery is pending; other codes as E7. */
export function errorRetryableWhen(code: i32, recovering: bool): i32 {
  if (code == ErrorCode.unavailable) return recovering ? 1 : 0;
  return errorRetryable(code);
}
