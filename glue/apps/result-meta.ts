// What a result says about a downstream UI once atrium serves it (spec/app-calls.md A6): the
// downstream's `_meta` with the `ui://` resource it names moved under atrium's URI, in both the
// nested key and the flat one hosts still read.
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Core, HostDecision } from "../decisions/core.js";
import { AppResult, AppUi, ResultShape } from "../decisions/generated/spec.js";
import { FLAT_URI_KEY, UI_META_KEY, uiResourceOf } from "../decisions/facts/app-ui.js";
import { isJsonObject } from "../support/json-object.js";
import { atriumUiUri } from "./uri.js";

/**
 * `meta` with the `ui://` resource it names (its own, else `fallback`: the tool's) as atrium's
 * URI in `ui.resourceUri` and `ui/resourceUri`; every other key as it is. Without a resource
 * named, `meta` as it is.
 */
export function appMeta(connector: string, meta: Record<string, unknown> | undefined, fallback?: string): Record<string, unknown> | undefined {
  const named = uiResourceOf(meta) ?? fallback;
  if (named === undefined) return meta;
  const uri = atriumUiUri(connector, named);
  const ui = meta !== undefined && isJsonObject(meta[UI_META_KEY]) ? meta[UI_META_KEY] : {};
  return { ...meta, [UI_META_KEY]: { ...ui, resourceUri: uri }, [FLAT_URI_KEY]: uri };
}

/** What a direct call's result carries about the tool's UI, as the core decides (A6). */
export function withAppUi(core: Core, host: HostDecision, call: { connector: string; toolUi?: string; downstreamMeta?: Record<string, unknown>; shaped: CallToolResult; asIs: boolean }): CallToolResult {
  const named = uiResourceOf(call.downstreamMeta) ?? call.toolUi;
  const d = core.appResult(host.kind, call.asIs ? ResultShape.as_is : ResultShape.reshaped, named === undefined ? AppUi.none : AppUi.named);
  if (d.answer !== AppResult.rewrite) return call.shaped;
  return { ...call.shaped, _meta: appMeta(call.connector, call.downstreamMeta, named) };
}
