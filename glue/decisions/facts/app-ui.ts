// Reduces a downstream tool's `_meta` to the facts of spec/app-calls.md: whether its app may
// call it. Shapes only; the core decides.
import { AppVisibility } from "../generated/spec.js";
import { isJsonObject } from "../../support/json-object.js";

const UI_META_KEY = "ui";

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
