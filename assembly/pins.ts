// Pinned tool definitions (spec/pins.md, N1–N8): may a tool run given its pin. Fails closed.
import { PinAnswer, PinDirection, PinPolicy, PinReason, PinScope, PinState } from "./generated/spec";

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
