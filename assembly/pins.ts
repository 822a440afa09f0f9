// Pinned tool definitions (spec/pins.md): may a tool run given its pin (N1–N8), does accept take the
// pending definition (N9), is a listed tool name shown at all (N10). Fails closed.
import { PinAccept, PinAnswer, PinDirection, PinGiven, PinPolicy, PinReason, PinScope, PinState, ToolNameAnswer, ToolNameText } from "./generated/spec";

/** Packs an answer: answer | reason << 4. */
function pack(answer: i32, reason: i32): i32 {
  return answer | (reason << 4);
}

/** N1–N8: callable, quarantined or record_and_allow, with the reason, packed (see pack). */
export function pinGate(state: i32, policy: i32, scope: i32, direction: i32): i32 {
  if (state < PinState.unpinned || state > PinState.store_unreadable || policy < PinPolicy.pin || policy > PinPolicy.off || scope < PinScope.definition || scope > PinScope.annotations_only || direction < PinDirection.none || direction > PinDirection.mixed) {
    return pack(PinAnswer.quarantined, PinReason.invalid_facts); // N8
  }
  if (policy == PinPolicy.off) return pack(PinAnswer.callable, PinReason.off); // N1
  if (state == PinState.unpinned) return pack(PinAnswer.record_and_allow, PinReason.first_seen); // N2
  if (state == PinState.matches) return pack(PinAnswer.callable, PinReason.matches); // N3
  if (policy == PinPolicy.auto_accept) return pack(PinAnswer.record_and_allow, PinReason.auto_accepted); // N4
  if (state == PinState.new_tool) return pack(PinAnswer.quarantined, PinReason.new_tool); // N5
  if (state == PinState.suspicious) return pack(PinAnswer.quarantined, PinReason.suspicious); // N6
  if (state == PinState.store_unreadable) return pack(PinAnswer.quarantined, PinReason.store_unreadable); // N8
  if (scope == PinScope.annotations_only) {
    if (direction == PinDirection.toward_write) return pack(PinAnswer.callable, PinReason.safer_annotations); // N7
    if (direction != PinDirection.none) return pack(PinAnswer.quarantined, PinReason.toward_read_only); // N7
  }
  return pack(PinAnswer.quarantined, PinReason.changed); // N5
}

/** N9: whether `atrium pins accept` takes the pending definition (only the one whose digest was shown). */
export function pinAccept(given: i32): i32 {
  if (given == PinGiven.shown) return PinAccept.accept;
  if (given == PinGiven.absent) return PinAccept.unnamed;
  if (given == PinGiven.not_digest) return PinAccept.malformed;
  if (given == PinGiven.other_digest) return PinAccept.changed_since_shown;
  return PinAccept.invalid_facts; // N9: out of range
}

/** N10: a tool name with a control, escape, bidi or zero-width character is refused at listing. */
export function toolName(text: i32): i32 {
  return text == ToolNameText.clean ? ToolNameAnswer.listed : ToolNameAnswer.refused;
}
