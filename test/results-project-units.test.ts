// Field projection (glue/results/project.ts), in process: each malformed path refused with its
// reason and the path echoed (quoted, clamped to FIELD_PATH_ECHO_CHARS), the error's own fields;
// repeated [] as as many array steps; a value with no place for a path (an array where a key was
// asked, an object where [] was asked, null) gives nothing there.
import { describe, expect, it } from "vitest";
import { ProjectionError, projectFields } from "../glue/results/project.js";
import { FIELD_PATH_CHARS_MAX, FIELD_PATH_ECHO_CHARS, FIELD_PATH_SEGMENTS_MAX, FIELD_PATHS_MAX } from "../glue/decisions/generated/spec.js";

const refusal = (fields: unknown): ProjectionError => {
  try {
    projectFields({}, fields as string[]);
  } catch (e) {
    return e as ProjectionError;
  }
  throw new Error("not refused");
};

describe("a malformed path", () => {
  it("is refused with its reason and the path as JSON", () => {
    expect(refusal([5]).message).toBe("invalid field path number: must be a string");
    expect(refusal([""]).message).toBe('invalid field path "": is empty');
    expect(refusal(["a..b"]).message).toBe('invalid field path "a..b": has an empty segment');
    expect(refusal(["a.b[x]"]).message).toBe('invalid field path "a.b[x]": bad segment "b[x]" (use name, name[] or [])');
    expect(refusal(["a[]b"]).message).toBe('invalid field path "a[]b": bad segment "a[]b" (use name, name[] or [])');
    expect(refusal(["a.".repeat(FIELD_PATH_SEGMENTS_MAX) + "a"]).reason).toBe(`has more than ${FIELD_PATH_SEGMENTS_MAX} segments`);
    expect(refusal(["a".repeat(FIELD_PATH_CHARS_MAX + 1)]).reason).toBe(`is longer than ${FIELD_PATH_CHARS_MAX} characters`);
    expect(refusal(5).message).toBe("invalid field path number: fields must be a list of paths");
  });

  it("the error names itself and keeps the path and reason", () => {
    const e = refusal(["ok", 7]);
    expect(e).toBeInstanceOf(ProjectionError);
    expect(e.name).toBe("ProjectionError");
    expect(e.path).toBe(7);
    expect(e.reason).toBe("must be a string");
  });

  it("too many paths names the first one past the bound", () => {
    const fields = Array.from({ length: FIELD_PATHS_MAX + 2 }, (_, i) => `f${i}`);
    const e = refusal(fields);
    expect(e.path).toBe(`f${FIELD_PATHS_MAX}`);
    expect(e.message).toBe(`invalid field path "f${FIELD_PATHS_MAX}": more than ${FIELD_PATHS_MAX} paths`);
  });

  it("the path echoed is clamped to FIELD_PATH_ECHO_CHARS: a quoted path of exactly that length whole, a longer one cut with …", () => {
    const exact = `${"c".repeat(FIELD_PATH_ECHO_CHARS - 5)}[x]`; // JSON: FIELD_PATH_ECHO_CHARS characters
    expect(refusal([exact]).message).toBe(`invalid field path ${JSON.stringify(exact)}: bad segment ${JSON.stringify(exact)} (use name, name[] or [])`);
    const over = `${"c".repeat(FIELD_PATH_ECHO_CHARS - 4)}[x]`; // JSON: one character more
    expect(refusal([over]).message.startsWith(`invalid field path ${JSON.stringify(over).slice(0, FIELD_PATH_ECHO_CHARS - 1)}…: bad segment`)).toBe(true);
  });
});

describe("projecting", () => {
  it("repeated [] is as many array steps; [] after a name maps over that array", () => {
    expect(projectFields({ m: [[{ a: 1, b: 2 }], [{ a: 3 }]] }, ["m[][].a"])).toEqual({ m: [[{ a: 1 }], [{ a: 3 }]] });
    expect(projectFields([[1, 2], [3]], ["[][]"])).toEqual([[1, 2], [3]]);
  });

  it("a value with no place for the path gives nothing there", () => {
    expect(projectFields([{ a: 1 }], ["a"])).toBeUndefined();
    expect(projectFields({ a: 1 }, ["[].a"])).toBeUndefined();
    expect(projectFields({ a: { b: 1 } }, ["a[].b"])).toEqual({});
    expect(projectFields({ a: null }, ["a.b"])).toEqual({});
    expect(projectFields({ a: [1, { b: 2 }] }, ["a[].b"])).toEqual({ a: [null, { b: 2 }] });
    expect(projectFields(null, ["a"])).toBeUndefined();
  });

  it("a forbidden segment drops only its own path", () => {
    expect(projectFields({ a: 1, b: 2 }, ["a", "constructor.x", "b"])).toEqual({ a: 1, b: 2 });
  });
});
