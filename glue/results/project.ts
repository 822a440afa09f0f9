// Field projection for call_tool `fields`: keep only the listed dot paths, shaped like
// the original. `[]` maps over an array (`incidents[].id`, or `[].id` at the root).
// Objects keep their shape (possibly `{}`), missing leaves are absent, and an array
// element with nothing to project (a primitive where an object was expected) becomes
// null so positions line up with the original.

import { FIELD_PATH_CHARS_MAX, FIELD_PATH_ECHO_CHARS, FIELD_PATH_SEGMENTS_MAX, FIELD_PATHS_MAX } from "../decisions/generated/spec.js";

// Never written into an output object, never read from an input: treated as missing.
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

export class ProjectionError extends Error {
  override readonly name = "ProjectionError";
  constructor(
    /** The offending path as given (may be a non-string). */
    readonly path: unknown,
    readonly reason: string,
  ) {
    super(`invalid field path ${describe(path)}: ${reason}`);
  }
}

// The path is caller-written text echoed in an error: clamp it.
function describe(path: unknown): string {
  const s = typeof path === "string" ? JSON.stringify(path) : typeof path;
  return s.length > FIELD_PATH_ECHO_CHARS ? `${s.slice(0, FIELD_PATH_ECHO_CHARS - 1)}…` : s;
}

type Step = { key: string } | { each: true };
interface Node {
  leaf: boolean;
  keys: Map<string, Node>;
  each?: Node;
}

const SEGMENT = /^([^.[\]]*)((?:\[\])*)$/;

/** Steps of a path, or null when it names a forbidden key (then it is skipped as missing). */
function parsePath(path: unknown): Step[] | null {
  if (typeof path !== "string") throw new ProjectionError(path, "must be a string");
  if (path.length === 0) throw new ProjectionError(path, "is empty");
  if (path.length > FIELD_PATH_CHARS_MAX) throw new ProjectionError(path, `is longer than ${FIELD_PATH_CHARS_MAX} characters`);
  const segments = path.split(".");
  if (segments.length > FIELD_PATH_SEGMENTS_MAX) throw new ProjectionError(path, `has more than ${FIELD_PATH_SEGMENTS_MAX} segments`);
  const steps: Step[] = [];
  let forbidden = false;
  for (const seg of segments) {
    const m = SEGMENT.exec(seg);
    if (!m || seg.length === 0) throw new ProjectionError(path, seg.length === 0 ? "has an empty segment" : `bad segment ${JSON.stringify(seg)} (use name, name[] or [])`);
    const [, name, brackets] = m as unknown as [string, string, string];
    if (name) {
      if (FORBIDDEN.has(name)) forbidden = true; // keep validating the rest
      steps.push({ key: name });
    }
    for (let i = 0; i < brackets.length / "[]".length; i++) steps.push({ each: true });
  }
  return forbidden ? null : steps;
}

const newNode = (): Node => ({ leaf: false, keys: new Map() });

function insert(root: Node, steps: Step[]): void {
  let node = root;
  for (const step of steps) {
    if (node.leaf) return; // an ancestor path already keeps the whole subtree
    if ("key" in step) {
      let next = node.keys.get(step.key);
      if (!next) node.keys.set(step.key, (next = newNode()));
      node = next;
    } else node = node.each ??= newNode();
  }
  node.leaf = true;
}

const MISSING = Symbol("missing");

function project(value: unknown, node: Node): unknown {
  if (node.leaf) return value;
  if (Array.isArray(value)) {
    const each = node.each;
    if (!each) return MISSING;
    return value.map((el) => {
      const r = project(el, each);
      return r === MISSING ? null : r;
    });
  }
  if (value === null || typeof value !== "object" || node.keys.size === 0) return MISSING;
  const out: Record<string, unknown> = {};
  for (const [key, child] of node.keys) {
    if (!Object.hasOwn(value, key)) continue; // own data only: no inherited toString & co.
    const r = project((value as Record<string, unknown>)[key], child);
    if (r !== MISSING) out[key] = r;
  }
  return out;
}

/**
 * `value` restricted to the dot paths in `fields`, merged into one shaped value.
 * An empty list asks for no projection and returns `value` as is. A value with no place
 * for any path (a primitive, an object where `[]` expected one) gives undefined.
 * Throws ProjectionError for a malformed path or too many paths.
 */
export function projectFields(value: unknown, fields: string[]): unknown {
  if (!Array.isArray(fields)) throw new ProjectionError(fields, "fields must be a list of paths");
  if (fields.length > FIELD_PATHS_MAX) throw new ProjectionError(fields[FIELD_PATHS_MAX], `more than ${FIELD_PATHS_MAX} paths`);
  if (fields.length === 0) return value;
  const root = newNode();
  for (const path of fields) {
    const steps = parsePath(path);
    if (steps) insert(root, steps);
  }
  const r = project(value, root);
  return r === MISSING ? undefined : r;
}
