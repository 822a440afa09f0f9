// A listed tool → the facts of its pin (spec/pins.md): state, policy, scope and direction, as
// codes of the generated tables for the core's pinGate. Pure: what the tool is now, what its
// connector's pins say, whether its definition was flagged, and the connector's policy.
import { PinDirection, PinPolicy, PinScope, PinState, type PinStateName } from "../decisions/generated/spec.js";
import type { PinFacts } from "../decisions/core.js";
import type { Pinned, PinnedDefinition } from "./digest.js";
import type { ConnectorPins, ToolPins } from "./pin-file.js";

/** A connector's `pins` setting in atrium.json. */
export type PinPolicySetting = "pin" | "auto-accept" | "off";
export const PIN_POLICY_SETTINGS: readonly PinPolicySetting[] = ["pin", "auto-accept", "off"];
const POLICY: Record<PinPolicySetting, PinPolicy> = { pin: PinPolicy.pin, "auto-accept": PinPolicy.auto_accept, off: PinPolicy.off };

/** The facts of a tool nothing pinned (an entry a test built): judged as with pins "off". */
export const NO_PIN_FACTS: PinFacts = { state: PinState.matches, policy: PinPolicy.off, scope: PinScope.definition, direction: PinDirection.none };

export interface ToolPinFacts { facts: PinFacts; state: PinStateName }

/** readOnlyHint as the catalog reads it: only `true` is read-only (absent or malformed: may write). */
const readOnly = (d: PinnedDefinition) => d.readOnlyHint === true;
/** destructiveHint: only `false` is not destructive (absent or malformed: may destroy). */
const destructive = (d: PinnedDefinition) => d.destructiveHint !== false;

/** How the two hints moved from the pin to now. */
export function directionOf(was: PinnedDefinition, now: PinnedDefinition): PinDirection {
  const towardWrite = (readOnly(was) && !readOnly(now)) || (!destructive(was) && destructive(now));
  const towardRead = (!readOnly(was) && readOnly(now)) || (destructive(was) && !destructive(now));
  if (towardWrite && towardRead) return PinDirection.mixed;
  if (towardWrite) return PinDirection.toward_write;
  if (towardRead) return PinDirection.toward_read_only;
  return PinDirection.none;
}

/**
 * The facts of one tool: `record` is its connector's pins (undefined: never pinned),
 * `unreadable` whether an earlier pin file was set aside, `flagged` whether this definition
 * raised a suspicious-pattern flag.
 */
export function pinFactsOf(now: Pinned, record: ConnectorPins | undefined, tool: ToolPins | undefined, flagged: boolean, unreadable: boolean, setting: PinPolicySetting): ToolPinFacts {
  const policy = POLICY[setting];
  const facts = (state: PinStateName, scope: PinScope = PinScope.definition, direction: PinDirection = PinDirection.none): ToolPinFacts => ({ state, facts: { state: PinState[state], policy, scope, direction } });
  const accepted = tool?.accepted;
  if (accepted?.digest === now.digest) return facts("matches");
  if (flagged) return facts("suspicious");
  if (!accepted) {
    if (tool?.pending?.state === "store_unreadable" || (!record && unreadable)) return facts("store_unreadable");
    return facts(record ? "new_tool" : "unpinned");
  }
  const scope = accepted.bodyDigest === now.bodyDigest ? PinScope.annotations_only : PinScope.definition;
  return facts("changed", scope, directionOf(accepted.definition, now.definition));
}
