// The small typed readers the config walk uses (glue/config/validate.ts, validate-team.ts): each
// reads one value, records an error with its exact path when the value is wrong, and answers
// undefined (or the fallback) so the walk goes on and one run reports every mistake.
import type { Core } from "../decisions/core.js";
import { CONFIG_KEY_SUGGEST_EDITS, CONNECTOR_ID_CHARS_MAX } from "../decisions/generated/spec.js";
import { CONNECTOR_ID, type ConfigError } from "./schema.js";
import { isJsonObject } from "../support/json-object.js";
import { editDistance } from "../support/text/edit-distance.js";

export type Obj = Record<string, unknown>;

export interface Ctx {
  core: Core;
  errors: ConfigError[];
  warnings: ConfigError[];
  /** Echoed user text is clamped to the core's echo budget (docs/reference.md "Errors"). */
  clampChars: number;
}

// ---- small typed readers ----------------------------------------------------------------

/** An optional non-empty string; `emptyOk` for argv items and env values, where "" is meaningful. */
export function text(ctx: Ctx, path: string, value: unknown, emptyOk = false): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") return fail(ctx, path, expected("a string", value));
  if (!emptyOk && value.trim() === "") return fail(ctx, path, "must not be empty");
  if (value.includes("\0")) return fail(ctx, path, "must not contain a NUL character");
  return value;
}

export function bool(ctx: Ctx, path: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value === "boolean") return value;
  return fail(ctx, path, expected("a boolean", value)) ?? fallback;
}

export function list<T>(ctx: Ctx, path: string, value: unknown, item: (path: string, v: unknown, i: number) => T | undefined): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail(ctx, path, expected("an array", value)) ?? [];
  const out: T[] = [];
  for (let i = 0; i < value.length; i++) {
    const v = item(`${path}[${i}]`, value[i], i);
    if (v !== undefined) out.push(v);
  }
  return out;
}

export function map(ctx: Ctx, path: string, value: unknown, keyRule: (k: string) => string | undefined, item: (path: string, v: unknown) => string | undefined): Record<string, string> {
  if (value === undefined) return {};
  if (!isJsonObject(value)) return fail(ctx, path, expected("an object", value)) ?? {};
  const entries: [string, string][] = [];
  for (const k of Object.keys(value)) {
    const p = at(path, k, ctx);
    const bad = keyRule(k);
    if (bad) fail(ctx, p, bad);
    const v = item(p, own(value, k));
    if (v !== undefined) entries.push([k, v]);
  }
  return Object.fromEntries(entries); // defines own properties, so a "__proto__" key stays data
}

/** Tool names the operator lists (non-empty strings, each once), mapped to their index in the file. */
export function toolList(ctx: Ctx, path: string, value: unknown): Map<string, number> {
  const first = new Map<string, number>();
  list(ctx, path, value, (p, v, i) => {
    const name = text(ctx, p, v);
    if (name === undefined) return;
    const seen = first.get(name);
    if (seen !== undefined) fail(ctx, p, `${show(name, ctx)} is listed twice (also at ${path}[${seen}])`);
    else first.set(name, i);
  });
  return first;
}

export function httpUrl(ctx: Ctx, path: string, value: unknown): string | undefined {
  const s = text(ctx, path, value);
  if (s === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return fail(ctx, path, `is not a valid URL: ${show(s, ctx)}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return fail(ctx, path, `must be an http:// or https:// URL (Streamable HTTP), got ${show(u.protocol, ctx)}`);
  return s;
}

export const envName = (k: string): string | undefined => (k === "" || k.includes("=") || k.includes("\0") ? `not a valid environment variable name` : undefined);
export const headerName = (k: string): string | undefined => (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) ? undefined : `not a valid HTTP header name`);
export function headerValue(ctx: Ctx, path: string, value: unknown): string | undefined {
  const s = text(ctx, path, value, true);
  if (s !== undefined && /[\r\n]/.test(s)) return fail(ctx, path, "must not contain a line break");
  return s;
}

// ---- keys, paths and messages -----------------------------------------------------------

/** A section is optional; absent reads as empty so every field takes its default. */
export function section(ctx: Ctx, path: string, value: unknown, keys: readonly string[]): Obj {
  if (value === undefined) return {};
  if (!isJsonObject(value)) return fail(ctx, path, expected("an object", value)) ?? {};
  unknownKeys(ctx, path, value, keys);
  return value;
}

/** `foreign`: the warning for a key another host writes there (a server entry's), which is not an error. */
export function unknownKeys(ctx: Ctx, path: string, obj: Obj, known: readonly string[], foreign?: (key: string) => string | undefined): void {
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const theirs = foreign?.(key);
    if (theirs) {
      ctx.warnings.push({ path: at(path, key, ctx), message: theirs });
      continue;
    }
    const near = closest(key, known);
    fail(ctx, at(path, key, ctx), near ? `unknown key; did you mean "${near}"?` : `unknown key (expected one of: ${known.join(", ")})`);
  }
}

export function idMessage(id: string, ctx: Ctx): string {
  const fixed = id.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+/, "").slice(0, CONNECTOR_ID_CHARS_MAX);
  const hint = fixed !== id && CONNECTOR_ID.test(fixed) ? `; did you mean ${show(fixed, ctx)}?` : "";
  return `invalid connector id: use 1 to ${CONNECTOR_ID_CHARS_MAX} lowercase letters, digits, "_" or "-", starting with a letter or digit (it prefixes tool addresses "<id>.<tool>")${hint}`;
}

/** The known key within CONFIG_KEY_SUGGEST_EDITS (case-insensitive), if any. */
export function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = CONFIG_KEY_SUGGEST_EDITS + 1;
  for (const k of known) {
    if (Math.abs(k.length - key.length) >= bestD) continue; // distance ≥ length gap; also keeps huge keys cheap
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}


/** `a.b`, or `a["odd key"]` when the key would not read as one dotted segment. */
export function at(path: string, key: string, ctx: Ctx): string {
  if (/^[A-Za-z_$][\w$-]*$/.test(key) && key.length <= ctx.clampChars) return path ? `${path}.${key}` : key;
  return `${path}[${show(key, ctx)}]`;
}

export const show = (s: string, ctx: Ctx): string => JSON.stringify(s.length > ctx.clampChars ? `${s.slice(0, ctx.clampChars)}…` : s);
export const own = (obj: unknown, key: string): unknown => (isJsonObject(obj) && Object.hasOwn(obj, key) ? obj[key] : undefined);
const typeName = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
export const expected = (what: string, v: unknown): string => `expected ${what}, got ${typeName(v)}`;

/** Records an error; answers undefined so a reader can `return fail(...)`. */
export function fail(ctx: Ctx, path: string, message: string): undefined {
  ctx.errors.push({ path, message });
  return undefined;
}
