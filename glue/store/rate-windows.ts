// Requests per principal in a sliding minute (principal_requests_per_minute): the core judges
// whether one more fits (budgetCheck); past it the request is refused with rate_limited and how
// long until the oldest request in the window leaves it. One principal's burst is refused at
// the door, before its body is read, so it costs others nothing. Behind `RateWindows`: in memory
// here, in the shared store for replicas (redis-rate-windows.ts).
import type { Core } from "../decisions/core.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import { MS_PER_MINUTE } from "../support/format.js";

export type RateAnswer = { ok: true } | { ok: false; retryAfterMs: number; limit: number };

export interface RateWindows {
  /** Counts one request of `principal` at `now` when it fits; else how long until one would. */
  take(principal: string, now: number): Promise<RateAnswer>;
}

export class MemoryRateWindows implements RateWindows {
  /** Each principal's request times within the last minute, oldest first (at most `limit` of them). */
  private readonly windows = new Map<string, number[]>();
  private sweptAt = 0;

  constructor(private readonly core: Core, private readonly limit: number = core.limitDefault(Budget.principal_requests_per_minute)) {}

  async take(principal: string, now: number): Promise<RateAnswer> {
    this.sweep(now);
    const times = this.windows.get(principal) ?? [];
    while (times.length > 0 && times[0] <= now - MS_PER_MINUTE) times.shift();
    if (this.core.budgetCheck(Budget.principal_requests_per_minute, times.length, 1, this.limit) !== BudgetCheck.ok) {
      return { ok: false, retryAfterMs: Math.max(1, times[0] + MS_PER_MINUTE - now), limit: this.limit };
    }
    times.push(now);
    this.windows.set(principal, times);
    return { ok: true };
  }

  /** Once a minute, principals with no request in the last minute are forgotten (the map holds the active ones only). */
  private sweep(now: number): void {
    if (now - this.sweptAt < MS_PER_MINUTE) return;
    this.sweptAt = now;
    for (const [p, times] of this.windows) if (times.length === 0 || times[times.length - 1] <= now - MS_PER_MINUTE) this.windows.delete(p);
  }
}
