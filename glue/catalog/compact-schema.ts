// A compact, model-facing rendering of an untrusted downstream JSON Schema: the keywords
// that help build valid arguments, none of the noise, bounded in depth, breadth and size.
// Never used for validation (the original schema is), so markers may be added.
import { clipAtWord } from "../support/text/clip.js";
import { isJsonObject } from "../support/json-object.js";
import {
  SCHEMA_DEPTH_MAX,
  SCHEMA_DESCRIPTION_CHARS_MAX,
  SCHEMA_ENUM_VALUES_MAX,
  SCHEMA_FORMAT_CHARS_MAX,
  SCHEMA_NODES_MAX,
  SCHEMA_PROPERTIES_MAX,
  SCHEMA_TYPES_MAX,
  SCHEMA_VALUE_CHARS_MAX,
  SCHEMA_VARIANTS_MAX,
} from "../decisions/generated/spec.js";

/** Markers this renderer adds: how much it dropped. @internal exported for its tests. */
export const ENUM_OMITTED = "x-enumOmitted";
const PROPERTIES_OMITTED = "x-propertiesOmitted";

const NUMERIC_KEYS = [
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  "minLength", "maxLength", "minItems", "maxItems",
] as const;
const VARIANT_KEYS = ["anyOf", "oneOf", "allOf"] as const;

type Json = Record<string, unknown>;

/** Define an own data property: never runs a setter, whatever the key ("__proto__" is dropped anyway). */
function put(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

interface State {
  root: unknown;
  nodes: number;
  refs: string[]; // $refs being expanded on the current path: a repeat is recursion
}

/** Copy a JSON value (default, enum member, const), bounded and without "__proto__" keys. */
function cloneValue(v: unknown, depth: number): unknown {
  if (typeof v === "string") return clipAtWord(v, SCHEMA_VALUE_CHARS_MAX);
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (v === null || typeof v === "boolean") return v;
  if (depth >= SCHEMA_DEPTH_MAX) return null;
  if (Array.isArray(v)) return v.slice(0, SCHEMA_ENUM_VALUES_MAX).map((x) => cloneValue(x, depth + 1));
  if (isJsonObject(v)) {
    const out: Json = {};
    for (const k of Object.keys(v).slice(0, SCHEMA_PROPERTIES_MAX)) if (k !== "__proto__") put(out, k, cloneValue(v[k], depth + 1));
    return out;
  }
  return null;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a stray "%" is just a character
  }
}

const clampDescription = (d: string): string => clipAtWord(d.replace(/\s+/g, " ").trim(), SCHEMA_DESCRIPTION_CHARS_MAX);

/** Resolve a local JSON pointer ("#/$defs/Item"); anything else is unresolvable. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = safeDecode(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (isJsonObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

function compactNode(node: unknown, depth: number, st: State): unknown {
  if (typeof node === "boolean") return node; // true/false are valid schemas
  if (!isJsonObject(node) || depth >= SCHEMA_DEPTH_MAX || ++st.nodes > SCHEMA_NODES_MAX) return {};

  const ref = node.$ref;
  if (typeof ref === "string") {
    if (st.refs.includes(ref)) return {}; // recursive type: stop here
    const target = resolveRef(st.root, ref);
    if (target === undefined) return {};
    st.refs.push(ref);
    try {
      const out = compactNode(target, depth, st);
      // A description beside the $ref describes this use of the type: it wins.
      if (isJsonObject(out) && typeof node.description === "string") {
        put(out, "description", clampDescription(node.description));
      }
      return out;
    } finally {
      st.refs.pop();
    }
  }

  const out: Json = {};
  const type = node.type;
  if (typeof type === "string") put(out, "type", type);
  else if (Array.isArray(type)) {
    const types = type.filter((t) => typeof t === "string").slice(0, SCHEMA_TYPES_MAX);
    if (types.length > 0) put(out, "type", types);
  }

  if (typeof node.description === "string") {
    const d = clampDescription(node.description);
    if (d) put(out, "description", d);
  }
  if (typeof node.format === "string") put(out, "format", clipAtWord(node.format, SCHEMA_FORMAT_CHARS_MAX));
  if (Object.hasOwn(node, "default")) put(out, "default", cloneValue(node.default, depth));
  if (Object.hasOwn(node, "const")) put(out, "const", cloneValue(node.const, depth));
  if (Array.isArray(node.enum)) {
    put(out, "enum", node.enum.slice(0, SCHEMA_ENUM_VALUES_MAX).map((v) => cloneValue(v, depth)));
    if (node.enum.length > SCHEMA_ENUM_VALUES_MAX) put(out, ENUM_OMITTED, node.enum.length - SCHEMA_ENUM_VALUES_MAX);
  }
  for (const k of NUMERIC_KEYS) {
    const v = node[k];
    if (typeof v === "number" && Number.isFinite(v)) put(out, k, v);
  }

  if (isJsonObject(node.properties)) {
    const keys = Object.keys(node.properties).filter((k) => k !== "__proto__");
    const props: Json = {};
    for (const k of keys.slice(0, SCHEMA_PROPERTIES_MAX)) put(props, k, compactNode(node.properties[k], depth + 1, st));
    put(out, "properties", props);
    if (keys.length > SCHEMA_PROPERTIES_MAX) put(out, PROPERTIES_OMITTED, keys.length - SCHEMA_PROPERTIES_MAX);
  }
  if (Array.isArray(node.required)) {
    const req = node.required.filter((k): k is string => typeof k === "string" && k !== "__proto__");
    if (req.length > 0) put(out, "required", req.slice(0, SCHEMA_PROPERTIES_MAX));
  }
  if (Array.isArray(node.items)) {
    put(out, "items", node.items.slice(0, SCHEMA_VARIANTS_MAX).map((s) => compactNode(s, depth + 1, st)));
  } else if (node.items !== undefined) {
    put(out, "items", compactNode(node.items, depth + 1, st));
  }
  // A map-like object's value schema is informative; `false`/`true` is noise for the model.
  if (isJsonObject(node.additionalProperties)) {
    put(out, "additionalProperties", compactNode(node.additionalProperties, depth + 1, st));
  }
  for (const k of VARIANT_KEYS) {
    const v = node[k];
    if (Array.isArray(v) && v.length > 0) put(out, k, v.slice(0, SCHEMA_VARIANTS_MAX).map((s) => compactNode(s, depth + 1, st)));
  }
  return out;
}

/** Compact form of a JSON Schema for the model; never throws, whatever it is given. */
export function compactSchema(schema: unknown): unknown {
  try {
    return compactNode(schema, 0, { root: schema, nodes: 0, refs: [] });
  } catch {
    return {}; // e.g. a Proxy or getter that throws: describe nothing rather than fail
  }
}
