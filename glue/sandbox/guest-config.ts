// What the prelude is told about one run: one guest global per identifier (connectors whose ids
// map to the same identifier share one, which refuses every call with ambiguous_tool_alias), the
// typed error of each ambiguous name built here so its retryable comes from the core, the typed
// error a call past HOST_CALL_REFUSALS_MAX throws, and the text limits the prelude cuts to.
import { HOST_CALL_REFUSALS_MAX } from "../decisions/generated/spec.js";
import { AtriumError } from "../support/errors.js";
import type { AliasConnector } from "./protocol.js";
import type { WorkerLimits } from "./run-limits.js";

interface GuestTool { ident: string; address?: string; ambiguous?: string }
/** @internal exported for its tests. */
export interface GuestGlobal { ident: string; connectorId: string; tools: GuestTool[]; ambiguous?: string }
export interface GuestConfig { globals: GuestGlobal[]; refusalsOver: string; limits: { errorText: number; value: number; log: number } }

/** What every host call throws once the run has had HOST_CALL_REFUSALS_MAX calls refused: the same for every run, built once. */
let refusalsOverJson: string | undefined;
const refusalsOver = () => (refusalsOverJson ??= JSON.stringify(new AtriumError("budget_exceeded", `HOST_CALL_REFUSALS_MAX reached: ${HOST_CALL_REFUSALS_MAX} host calls of this run were refused, so every further call throws where it is made; await each call and stop at the first refusal (its details name the budget)`, { details: { bound: "HOST_CALL_REFUSALS_MAX", limit: HOST_CALL_REFUSALS_MAX, room: 0 } }).toJSON()));

const ambiguous = (message: string) => JSON.stringify(new AtriumError("ambiguous_tool_alias", message).toJSON());

/** @internal exported for its tests. */
export function guestGlobals(aliases: readonly AliasConnector[]): GuestGlobal[] {
  const byIdent = new Map<string, AliasConnector[]>();
  for (const c of aliases) byIdent.set(c.ident, [...(byIdent.get(c.ident) ?? []), c]);
  return [...byIdent].map(([ident, group]): GuestGlobal => {
    const ids = [...new Set(group.flatMap((c) => [c.connectorId, ...c.ambiguousWith]))];
    if (ids.length > 1) {
      return {
        ident, connectorId: ids[0]!, tools: [],
        ambiguous: ambiguous(`${ident} is ambiguous: connector ids ${ids.join(", ")} share the identifier ${ident}; use atrium.call with the exact address, e.g. atrium.call("${ids[0]}.<tool>", args)`),
      };
    }
    const c = group[0]!;
    return {
      ident, connectorId: c.connectorId,
      tools: c.tools.map((t) => (t.address !== null
        ? { ident: t.ident, address: t.address }
        : { ident: t.ident, ambiguous: ambiguous(`${ident}.${t.ident} is ambiguous: tools ${t.candidates.join(", ")} share one identifier; use atrium.call with the exact address`) })),
    };
  });
}

export function guestConfig(aliases: readonly AliasConnector[], limits: WorkerLimits): GuestConfig {
  return { globals: guestGlobals(aliases), refusalsOver: refusalsOver(), limits: { errorText: limits.errorTextChars, value: limits.returnChars, log: limits.logChars } };
}
