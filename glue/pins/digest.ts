// What a tool's pin is made of: the fields of its definition a model or the catalog reads (name,
// title, description, input and output schema, annotations), their sha256 over canonical JSON
// (keys sorted, so a server that reorders keys does not change a digest), a second digest of
// everything but the annotations (so "only the annotations changed" is a fact), and the clamped
// copy kept in the pin file for the readable diff (description text, schema keys, hints, and the
// schemas' leaves — path and value, keys sorted — so a nested change shows where it is).
import { createHash } from "node:crypto";
import { isJsonObject } from "../support/json-object.js";
import { clip } from "../support/text/clip.js";
import { PIN_PENDING_TEXT_CHARS, PIN_SCHEMA_KEYS_MAX, PIN_SCHEMA_LEAF_CHARS, PIN_SCHEMA_LEAVES_MAX } from "../decisions/generated/spec.js";
import { canonicalJson } from "../support/canonical-json.js";

/** A listed tool as the pins see it (the catalog hands in the connector's tools as listed). */
export interface PinnableTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations: unknown;
}

/** The clamped definition kept per pin: what `atrium pins` shows a change with. */
export interface PinnedDefinition {
  title?: string;
  description: string;
  inputKeys: string[];
  outputKeys: string[];
  /** The two hints that decide read-only (spec/read-only.md), as listed (absent: undefined). */
  readOnlyHint?: unknown;
  destructiveHint?: unknown;
  /** Every annotation, as canonical JSON, clamped (a flip of another hint still shows). */
  annotations: string;
  /** The leaves of the input and output schemas ([side, path, value as JSON], keys sorted), each clamped to
   * PIN_SCHEMA_LEAF_CHARS, at most PIN_SCHEMA_LEAVES_MAX; absent in a pin written before they were kept. */
  schemaLeaves?: SchemaLeaf[];
}

/** One leaf of a schema: which schema ("input", "output"), its path ("properties.filter.type") and its value as JSON. */
export type SchemaLeaf = [side: string, path: string, value: string];

/** One definition as pinned: its digests and its clamped copy. */
export interface Pinned {
  digest: string;
  /** The digest of the definition without its annotations. */
  bodyDigest: string;
  definition: PinnedDefinition;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The top-level property names of a schema, sorted, at most PIN_SCHEMA_KEYS_MAX. */
function schemaKeys(schema: unknown): string[] {
  const props = isJsonObject(schema) && isJsonObject(schema.properties) ? Object.keys(schema.properties) : [];
  return props.sort().slice(0, PIN_SCHEMA_KEYS_MAX).map((k) => clip(k, PIN_PENDING_TEXT_CHARS));
}

/** The leaves of `schema`, depth first in sorted key order (an explicit stack: deep nesting costs no call stack), until `out` holds PIN_SCHEMA_LEAVES_MAX. */
function leavesOf(side: string, schema: unknown, out: SchemaLeaf[]): void {
  const stack: [string, unknown][] = [["", schema]];
  while (stack.length && out.length < PIN_SCHEMA_LEAVES_MAX) {
    const [path, v] = stack.pop()!;
    const children: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [`${path}[${i}]`, x])
      : isJsonObject(v) ? Object.keys(v).sort().map((k) => [path ? `${path}.${k}` : k, v[k]]) : [];
    if (children.length) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    else if (schema !== undefined) out.push([side, clip(path, PIN_SCHEMA_LEAF_CHARS), clip(JSON.stringify(v) ?? String(v), PIN_SCHEMA_LEAF_CHARS)]);
  }
}

/** The pin of one listed tool. */
export function pinOf(tool: PinnableTool): Pinned {
  const body = { name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema };
  const a = isJsonObject(tool.annotations) ? tool.annotations : undefined;
  return {
    digest: sha256(canonicalJson({ ...body, annotations: tool.annotations })),
    bodyDigest: sha256(canonicalJson(body)),
    definition: {
      ...(tool.title !== undefined && { title: clip(tool.title, PIN_PENDING_TEXT_CHARS) }),
      description: clip(tool.description, PIN_PENDING_TEXT_CHARS),
      inputKeys: schemaKeys(tool.inputSchema),
      outputKeys: schemaKeys(tool.outputSchema),
      ...(a && "readOnlyHint" in a && { readOnlyHint: a.readOnlyHint }),
      ...(a && "destructiveHint" in a && { destructiveHint: a.destructiveHint }),
      annotations: clip(canonicalJson(tool.annotations ?? null), PIN_PENDING_TEXT_CHARS),
      schemaLeaves: schemaLeavesOf(tool),
    },
  };
}

/** Both schemas' leaves, the input schema's first. */
function schemaLeavesOf(tool: PinnableTool): SchemaLeaf[] {
  const out: SchemaLeaf[] = [];
  leavesOf("input", tool.inputSchema, out);
  leavesOf("output", tool.outputSchema, out);
  return out;
}
