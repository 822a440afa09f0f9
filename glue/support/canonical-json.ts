// One stable text of a JSON value, for comparing and hashing values whose key order means
// nothing: a validated config entry (config/diff.ts), a tool definition (pins/digest.ts).
import { isJsonObject } from "./json-object.js";

/** JSON with object keys sorted at every depth; undefined fields dropped as JSON drops them. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
