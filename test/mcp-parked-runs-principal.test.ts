// Issue 20 item 3: a parked run (2026-07-28 requestState) belongs to the principal whose request
// parked it; another principal's retry with that requestState finds what a never-issued one finds.
import { describe, it, expect } from "vitest";
import { ParkedRuns } from "../glue/mcp/parked-runs.js";
import { LOCAL_PRINCIPAL, tokenPrincipal } from "../glue/support/principal.js";

describe("parked runs belong to their principal", () => {
  const alice = tokenPrincipal("https://issuer.example", "alice", [], []);
  const bob = tokenPrincipal("https://issuer.example", "bob", [], []);

  it("another principal's retry with a requestState opens nothing, exactly as a state never minted", () => {
    const runs = new ParkedRuns();
    const run = runs.start("async () => 1", alice);
    runs.list(run);
    const state = runs.mint(run, 0);
    expect(runs.open(state, alice)).toEqual({ run, seq: 0 });
    expect(runs.open(state, bob)).toBeUndefined();
    expect(runs.open(state, LOCAL_PRINCIPAL)).toBeUndefined();
    expect(runs.open(state, bob)).toEqual(runs.open(`${state.slice(0, -1)}x`, bob));
  });
});
