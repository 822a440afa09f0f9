// Read-only classification (spec/read-only.md, R1–R11). Fails closed.
import { ClassReason, Hint, Listing, Operator, ToolClass } from "./generated/spec";

/** Packs a decision: class | reason << 4. */
function pack(cls: i32, reason: i32): i32 {
  return cls | (reason << 4);
}

/** What the annotations alone say (R1–R5). */
function annotated(ro: i32, de: i32): i32 {
  if (ro == Hint.malformed) return pack(ToolClass.approval, ClassReason.malformed_hint); // R5
  if (ro == Hint.absent) return pack(ToolClass.approval, ClassReason.read_only_absent); // R2
  if (ro == Hint.false_) return pack(ToolClass.approval, ClassReason.read_only_false); // R4
  if (de == Hint.true_) return pack(ToolClass.approval, ClassReason.contradictory); // R3
  if (de == Hint.malformed) return pack(ToolClass.approval, ClassReason.malformed_hint); // R5
  return pack(ToolClass.read_only, ClassReason.annotated_read_only); // R1
}

/** R8: the server marks the tool destructive (explicitly, malformed, or by MCP's default). */
function markedDestructive(ro: i32, de: i32): bool {
  return de == Hint.true_ || de == Hint.malformed || (ro == Hint.false_ && de == Hint.absent);
}

export function classifyTool(ro: i32, de: i32, op: i32, listing: i32): i32 {
  if (ro < Hint.absent || ro > Hint.malformed || de < Hint.absent || de > Hint.malformed || op < Operator.none || op > Operator.demote || listing < Listing.settled || listing > Listing.duplicate) {
    return pack(ToolClass.approval, ClassReason.invalid_facts); // R9
  }
  if (listing == Listing.refreshing) return pack(ToolClass.approval, ClassReason.listing_refreshing); // R10
  if (listing == Listing.duplicate) return pack(ToolClass.approval, ClassReason.duplicate_name); // R11
  if (op == Operator.demote) return pack(ToolClass.approval, ClassReason.operator_demoted); // R6
  const base = annotated(ro, de);
  if (op != Operator.promote || (base & 15) == ToolClass.read_only) return base;
  if (markedDestructive(ro, de)) return pack(ToolClass.approval, ClassReason.promotion_refused_destructive); // R8
  return pack(ToolClass.read_only, ClassReason.operator_promoted); // R7
}
