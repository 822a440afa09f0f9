// Reduces a downstream tool's (or result's) `_meta` to the facts of spec/app-calls.md: the
// `ui://` resource it names, and whether its app may call it. Shapes only; the core decides.
import { AppVisibility } from "../generated/spec.js";
import { isJsonObject } from "../../support/json-object.js";

/** The MCP Apps key the UI lives under in `_meta`, and the deprecated flat key hosts still read. */
export const UI_META_KEY = "ui";
export const FLAT_URI_KEY = "ui/resourceUri";
const UI_SCHEME = "ui://";

const isUiUri = (v: unknown): v is string => typeof v === "string" && v.startsWith(UI_SCHEME) && v.length > UI_SCHEME.length;

/** The `ui://` resource a `_meta` names: `_meta.ui.resourceUri`, else the flat `_meta["ui/resourceUri"]`; anything not a ui:// URI names none. */
export function uiResourceOf(meta: unknown): string | undefined {
  if (!isJsonObject(meta)) return undefined;
  const ui = Object.hasOwn(meta, UI_META_KEY) ? meta[UI_META_KEY] : undefined;
  const nested = isJsonObject(ui) && Object.hasOwn(ui, "resourceUri") ? ui.resourceUri : undefined;
  if (isUiUri(nested)) return nested;
  const flat = Object.hasOwn(meta, FLAT_URI_KEY) ? meta[FLAT_URI_KEY] : undefined;
  return isUiUri(flat) ? flat : undefined;
}

/**
 * A4: `_meta.ui.visibility` absent (MCP Apps' default ["model", "app"]) or a list of strings
 * holding "app" → app; a list of strings without it → model_only; anything else → malformed.
 */
export function appVisibilityOf(meta: unknown): AppVisibility {
  if (!isJsonObject(meta) || !Object.hasOwn(meta, UI_META_KEY) || meta[UI_META_KEY] === undefined) return AppVisibility.app;
  const ui = meta[UI_META_KEY];
  if (!isJsonObject(ui)) return AppVisibility.malformed;
  if (!Object.hasOwn(ui, "visibility") || ui.visibility === undefined) return AppVisibility.app;
  const v = ui.visibility;
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) return AppVisibility.malformed;
  return v.includes("app") ? AppVisibility.app : AppVisibility.model_only;
}
