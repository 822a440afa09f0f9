// Named semantic mutants: plausible wrong rules a reviewer fears most. Each is a literal
// patch of the core's source; the run fails if a patch no longer applies (so these never rot).
export interface SemanticMutant { name: string; file: string; find: string; replace: string }

export const semanticMutants: SemanticMutant[] = [
  {
    name: "a 2026-07-28 listing hides app-only tools from plain hosts (a listing that varies per client)",
    file: "assembly/host.ts",
    find: "if (use == AppOnlyUse.list && revision == Revision.r2026_07_28) return AppOnly.offered;",
    replace: "",
  },
  {
    name: "a listed app-only tool may be called by any host",
    file: "assembly/host.ts",
    find: "if (use == AppOnlyUse.list && revision == Revision.r2026_07_28) return AppOnly.offered;",
    replace: "if (revision == Revision.r2026_07_28) return AppOnly.offered;",
  },
  {
    name: "a listing that is changing keeps its read-only tools",
    file: "assembly/readonly.ts",
    find: "if (listing == Listing.refreshing) return pack(ToolClass.approval, ClassReason.listing_refreshing); // R10",
    replace: "",
  },
  {
    name: "a duplicated name keeps the first entry's class",
    file: "assembly/readonly.ts",
    find: "if (listing == Listing.duplicate) return pack(ToolClass.approval, ClassReason.duplicate_name); // R11",
    replace: "",
  },
  {
    name: "unavailable stays retryable after the connector gave up",
    file: "assembly/envelope.ts",
    find: "if (code == ErrorCode.unavailable) return recovering ? 1 : 0;",
    replace: "",
  },
  {
    name: "contradictory annotations read as read-only",
    file: "assembly/readonly.ts",
    find: "if (de == Hint.true_) return pack(ToolClass.approval, ClassReason.contradictory); // R3",
    replace: "",
  },
  {
    name: "a missing readOnlyHint reads as read-only",
    file: "assembly/readonly.ts",
    find: "if (ro == Hint.absent) return pack(ToolClass.approval, ClassReason.read_only_absent); // R2",
    replace: "if (ro == Hint.absent) return pack(ToolClass.read_only, ClassReason.annotated_read_only);",
  },
  {
    name: "operator may promote a tool marked destructive",
    file: "assembly/readonly.ts",
    find: "if (markedDestructive(ro, de)) return",
    replace: "if (false) return",
  },
  {
    name: "promotion ignores MCP's destructive default for readOnlyHint:false",
    file: "assembly/readonly.ts",
    find: " || (ro == Hint.false_ && de == Hint.absent)",
    replace: "",
  },
  {
    name: "demotion ignored when the tool is annotated read-only",
    file: "assembly/readonly.ts",
    find: "if (op == Operator.demote) return pack(ToolClass.approval, ClassReason.operator_demoted); // R6",
    replace: "if (op == Operator.demote && ro != Hint.true_) return pack(ToolClass.approval, ClassReason.operator_demoted);",
  },
  {
    name: "view key may equal a fixed key",
    file: "assembly/manifest.ts",
    find: "if (fixedKeys.has(key)) return ViewCheck.view_key_is_fixed_key;",
    replace: "",
  },
  {
    name: "fixed keys leak from one binding into the next",
    file: "assembly/manifest.ts",
    find: "  fixedKeys.clear();\n",
    replace: "",
  },
  {
    name: "binding to an approval-required tool accepted",
    file: "assembly/manifest.ts",
    find: "if (resolution != Resolution.read_only) return ViewCheck.address_not_read_only;",
    replace: "",
  },
  {
    name: "reserved binding names accepted when they match the pattern",
    file: "assembly/manifest.ts",
    find: "if (isReserved(name)) return ViewCheck.name_reserved;",
    replace: "",
  },
  {
    name: "app mime matched by prefix",
    file: "assembly/host.ts",
    find: "return s == APP_MIME_TYPE;",
    replace: "return s.startsWith(APP_MIME_TYPE);",
  },
  {
    name: "extension without mimeTypes treated as an Apps host",
    file: "assembly/host.ts",
    find: "if (mime == MimeState.absent) return HostReason.mime_absent; // H4",
    replace: "if (mime == MimeState.absent) return HostReason.app_mime;",
  },
  {
    name: "operator inline override honoured on a plain host",
    file: "assembly/host.ts",
    find: "  if (kind == HostKind.apps) {",
    replace: "  if (kind == HostKind.apps || choice == DeliveryOverride.inline) {",
  },
  {
    name: "budget accepts one over the limit",
    file: "assembly/budgets.ts",
    find: "if (used > limit || adding > limit - used) return BudgetCheck.over;",
    replace: "if (used > limit || adding > limit - used + 1) return BudgetCheck.over;",
  },
  {
    name: "budget check trusts an out-of-range limit",
    file: "assembly/budgets.ts",
    find: "if (limitAccepts(b, limit) != LimitCheck.ok) return BudgetCheck.invalid_limit;",
    replace: "",
  },
  {
    name: "failed run still delivers its view",
    file: "assembly/envelope.ts",
    find: "if (viewAccepted) f |= EnvelopeFlag.note_view_discarded; // E5",
    replace: "if (viewAccepted) f |= EnvelopeFlag.view_meta | EnvelopeFlag.note_view_delivered;",
  },
  {
    name: "failed run still appends its blocks",
    file: "assembly/envelope.ts",
    find: "if (blocks > 0) f |= EnvelopeFlag.note_blocks_discarded; // E3",
    replace: "if (blocks > 0) f |= EnvelopeFlag.blocks;",
  },
  {
    name: "budget_exceeded marked retryable",
    file: "assembly/envelope.ts",
    find: "code == ErrorCode.timeout ||",
    replace: "code == ErrorCode.timeout || code == ErrorCode.budget_exceeded ||",
  },
];
