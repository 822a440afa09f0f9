// principal_requests_per_minute across replicas: each principal's window is a sorted set of its
// request times in the store. One script trims the window, counts it and adds this request; the
// core judges the count (as in memory), and a refused request is taken out again, so it is not
// counted. The window key lives one minute after its last request.
import { randomUUID } from "node:crypto";
import type { Core } from "../decisions/core.js";
import { Budget, BudgetCheck } from "../decisions/generated/spec.js";
import { MS_PER_MINUTE } from "../support/format.js";
import type { RateAnswer, RateWindows } from "./rate-windows.js";
import type { RedisConnection } from "./redis-connection.js";

// KEYS: the window. ARGV: now, window ms, member. Returns [requests before this one, oldest time].
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local used = redis.call('ZCARD', KEYS[1])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {used, oldest[2]}
`;

export class RedisRateWindows implements RateWindows {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly core: Core,
    private readonly limit: number = core.limitDefault(Budget.principal_requests_per_minute),
  ) {}

  async take(principal: string, now: number): Promise<RateAnswer> {
    const key = `${this.prefix}${principal}`;
    const member = `${now}:${randomUUID()}`;
    const [used, oldest] = (await this.redis.op("rate window", (c) => c.eval(TAKE, { keys: [key], arguments: [String(now), String(MS_PER_MINUTE), member] }))) as [number, string];
    if (this.core.budgetCheck(Budget.principal_requests_per_minute, used, 1, this.limit) === BudgetCheck.ok) return { ok: true };
    await this.redis.op("rate window", (c) => c.zRem(key, member));
    return { ok: false, retryAfterMs: Math.max(1, Number(oldest) + MS_PER_MINUTE - now), limit: this.limit };
  }
}
