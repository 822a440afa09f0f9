// Downstream apps (spec/app-calls.md, A1–A7). Fails closed.
import { AppCall, AppCallReason, AppRelation, AppResource, AppResult, AppResultReason, AppUi, AppVisibility, HostKind, ResultShape, ToolClass } from "./generated/spec";

/** Packs a decision: answer | reason << 4. */
function pack(answer: i32, reason: i32): i32 {
  return answer | (reason << 4);
}

/** A1–A5: whether a call a connector's app makes may run, packed (see pack). */
export function appCall(relation: i32, visibility: i32, cls: i32, appWrites: bool): i32 {
  if (relation < AppRelation.same || relation > AppRelation.other || visibility < AppVisibility.app || visibility > AppVisibility.malformed || cls < ToolClass.approval || cls > ToolClass.read_only) {
    return pack(AppCall.refused, AppCallReason.invalid_facts); // A5
  }
  if (relation == AppRelation.other) return pack(AppCall.refused, AppCallReason.other_connector); // A3
  if (visibility == AppVisibility.malformed) return pack(AppCall.refused, AppCallReason.visibility_malformed); // A4
  if (visibility == AppVisibility.model_only) return pack(AppCall.refused, AppCallReason.not_app_visible); // A4
  if (cls == ToolClass.read_only) return pack(AppCall.allowed, AppCallReason.read_only); // A1
  return appWrites ? pack(AppCall.allowed, AppCallReason.app_writes) : pack(AppCall.refused, AppCallReason.writes_not_allowed); // A2
}

/** A6: whether a direct call's result names the downstream UI under atrium's URI, packed (see pack). */
export function appResult(kind: i32, shape: i32, ui: i32): i32 {
  if (kind < HostKind.plain || kind > HostKind.apps || shape < ResultShape.as_is || shape > ResultShape.reshaped || ui < AppUi.none || ui > AppUi.named) {
    return pack(AppResult.unchanged, AppResultReason.invalid_facts);
  }
  if (kind == HostKind.plain) return pack(AppResult.unchanged, AppResultReason.plain_host);
  if (shape == ResultShape.reshaped) return pack(AppResult.unchanged, AppResultReason.reshaped);
  if (ui == AppUi.none) return pack(AppResult.unchanged, AppResultReason.no_ui);
  return pack(AppResult.rewrite, AppResultReason.apps_host);
}

/** A7: whether a downstream UI document is served to this host. */
export function appResource(kind: i32, appMime: bool): i32 {
  if (kind < HostKind.plain || kind > HostKind.apps) return AppResource.invalid_facts;
  if (kind == HostKind.plain) return AppResource.not_found;
  return appMime ? AppResource.served : AppResource.not_app;
}
