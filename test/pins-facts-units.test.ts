// The facts of a listed tool's pin (glue/pins/facts.ts), in process: each policy setting's code,
// the state and its scope and direction (definition and none unless the definition changed), a
// store that could not be read (a pending store_unreadable, or no record while the file was set
// aside) against a known connector's new tool, and every way the two hints can move.
import { describe, expect, it } from "vitest";
import { pinOf, type PinnableTool } from "../glue/pins/digest.js";
import { directionOf, pinFactsOf } from "../glue/pins/facts.js";
import { PinDirection, PinPolicy, PinScope, PinState } from "../glue/decisions/generated/spec.js";
import type { ConnectorPins, ToolPins } from "../glue/pins/pin-file.js";

const tool = (over: Partial<PinnableTool> = {}): PinnableTool => ({ name: "lookup", description: "Looks up.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true }, ...over });
const record: ConnectorPins = { key: "k", id: "c", where: "w", tools: [] };

describe("the facts of a tool", () => {
  it("carry the policy of each setting", () => {
    const now = pinOf(tool());
    expect(pinFactsOf(now, undefined, undefined, false, false, "pin").facts.policy).toBe(PinPolicy.pin);
    expect(pinFactsOf(now, undefined, undefined, false, false, "auto-accept").facts.policy).toBe(PinPolicy.auto_accept);
    expect(pinFactsOf(now, undefined, undefined, false, false, "off").facts.policy).toBe(PinPolicy.off);
  });

  it("a state other than changed has scope definition and direction none, and its code", () => {
    const now = pinOf(tool());
    for (const [r, t, flagged, unreadable, state] of [
      [undefined, undefined, false, false, "unpinned"],
      [record, { name: "lookup", accepted: now }, false, false, "matches"],
      [record, undefined, true, false, "suspicious"],
      [record, undefined, false, false, "new_tool"],
      [undefined, undefined, false, true, "store_unreadable"],
    ] as const) {
      expect(pinFactsOf(now, r, t, flagged, unreadable, "pin")).toEqual({ state, facts: { state: PinState[state], policy: PinPolicy.pin, scope: PinScope.definition, direction: PinDirection.none } });
    }
  });

  it("store_unreadable: a tool whose pending change says so, even with a record; a known connector's new tool is new_tool while the file was set aside", () => {
    const now = pinOf(tool());
    const pending = { name: "lookup", pending: { ...now, state: "store_unreadable", flags: [], firstSeen: "t" } } as ToolPins;
    expect(pinFactsOf(now, record, pending, false, false, "pin").state).toBe("store_unreadable");
    const pendingNew = { name: "lookup", pending: { ...now, state: "new_tool", flags: [], firstSeen: "t" } } as ToolPins;
    expect(pinFactsOf(now, record, pendingNew, false, false, "pin").state).toBe("new_tool");
    expect(pinFactsOf(now, record, undefined, false, true, "pin").state).toBe("new_tool");
    expect(pinFactsOf(now, record, { name: "lookup" }, false, true, "pin").state).toBe("new_tool");
  });

  it("a changed definition: its scope (annotations only or the definition) and its direction", () => {
    const was = pinOf(tool({ annotations: { readOnlyHint: true } }));
    const t = { name: "lookup", accepted: was };
    expect(pinFactsOf(pinOf(tool({ annotations: { readOnlyHint: false } })), record, t, false, false, "pin")).toEqual({ state: "changed", facts: { state: PinState.changed, policy: PinPolicy.pin, scope: PinScope.annotations_only, direction: PinDirection.toward_write } });
    expect(pinFactsOf(pinOf(tool({ description: "other" })), record, t, false, false, "pin").facts).toEqual({ state: PinState.changed, policy: PinPolicy.pin, scope: PinScope.definition, direction: PinDirection.none });
  });
});

describe("the direction of the hints", () => {
  const def = (a: unknown) => pinOf(tool({ annotations: a })).definition;
  const d = (a: unknown, b: unknown) => directionOf(def(a), def(b));

  it("readOnlyHint alone: only true is read-only", () => {
    expect(d({ readOnlyHint: true, destructiveHint: false }, { readOnlyHint: false, destructiveHint: false })).toBe(PinDirection.toward_write);
    expect(d({ readOnlyHint: false, destructiveHint: false }, { readOnlyHint: true, destructiveHint: false })).toBe(PinDirection.toward_read_only);
    expect(d({ readOnlyHint: 1, destructiveHint: false }, { readOnlyHint: true, destructiveHint: false })).toBe(PinDirection.toward_read_only);
    expect(d({ readOnlyHint: true, destructiveHint: false }, { readOnlyHint: true, destructiveHint: false })).toBe(PinDirection.none);
  });

  it("destructiveHint alone: only false is not destructive", () => {
    expect(d({ readOnlyHint: false, destructiveHint: false }, { readOnlyHint: false, destructiveHint: true })).toBe(PinDirection.toward_write);
    expect(d({ readOnlyHint: false, destructiveHint: true }, { readOnlyHint: false, destructiveHint: false })).toBe(PinDirection.toward_read_only);
    expect(d({ readOnlyHint: false, destructiveHint: 0 }, { readOnlyHint: false, destructiveHint: false })).toBe(PinDirection.toward_read_only);
    expect(d({ readOnlyHint: false }, { readOnlyHint: false, destructiveHint: "no" })).toBe(PinDirection.none);
  });

  it("both ways at once is mixed, in either pairing", () => {
    expect(d({ readOnlyHint: true, destructiveHint: true }, { readOnlyHint: false, destructiveHint: false })).toBe(PinDirection.mixed);
    expect(d({ readOnlyHint: false, destructiveHint: false }, { readOnlyHint: true, destructiveHint: true })).toBe(PinDirection.mixed);
  });
});
