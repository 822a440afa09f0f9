// Programs one principal may run at once (principal_programs): the core judges whether one more
// fits (budgetCheck); past it execute_code answers rate_limited with retryAfterMs, the time until
// the oldest of that principal's runs reaches program_wall_ms (a run waiting for a person may
// hold its slot longer). The `local` principal (stdio, loopback without auth) is one person with
// no one to be fair to: it is not counted, and its programs queue for sandbox workers as before.
// Kept in memory behind `ProgramSlots`, the seam a shared store (team mode II) implements.
import type { Core } from "../decisions/core.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import { LOCAL_PRINCIPAL, type Principal } from "../support/principal.js";

export type SlotAnswer = { ok: true; release: () => void } | { ok: false; retryAfterMs: number; limit: number };

export interface ProgramSlots {
  /** Takes a slot for `principal`'s run starting at `now` (release it when the run ends), or says how long until one frees. */
  take(principal: Principal, now: number, wallMs: number): SlotAnswer;
}

export class MemoryProgramSlots implements ProgramSlots {
  /** Each counted principal's running programs: when each must end by (start + program_wall_ms). */
  private readonly running = new Map<string, Set<{ endsBy: number }>>();

  constructor(private readonly core: Core, private readonly limit: number = core.limitDefault(Budget.principal_programs)) {}

  take(principal: Principal, now: number, wallMs: number): SlotAnswer {
    if (principal.id === LOCAL_PRINCIPAL.id) return { ok: true, release: () => {} };
    const runs = this.running.get(principal.id) ?? new Set();
    if (this.core.budgetCheck(Budget.principal_programs, runs.size, 1, this.limit) !== BudgetCheck.ok) {
      const soonest = Math.min(...[...runs].map((r) => r.endsBy));
      return { ok: false, retryAfterMs: Math.max(1, soonest - now), limit: this.limit };
    }
    const run = { endsBy: now + wallMs };
    runs.add(run);
    this.running.set(principal.id, runs);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        runs.delete(run);
        if (runs.size === 0 && this.running.get(principal.id) === runs) this.running.delete(principal.id);
      },
    };
  }
}
