// The state store's promises, held by the in-memory store and by the Redis one against a real
// redis-server alike: owned stashes (another principal's id reads as never issued), the bytes
// bound (oldest go first), rate windows that answer exactly as in memory on the same clock,
// session records, a TTL on every key under the prefix, and a store that does not answer made a
// typed, retryable `unavailable` within STORE_OP_MS instead of a hang.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import { core } from "../glue/decisions/core.js";
import { memoryStore } from "../glue/store/memory-store.js";
import { redisStore } from "../glue/store/redis-store.js";
import { StoreUnavailable, type StateStore, type StoreLimits } from "../glue/store/state-store.js";
import { MS_PER_MINUTE } from "../glue/support/format.js";
import { startRedis, type RedisServer as TestRedis } from "./harness/redis-server.js";
import { waitFor } from "./harness/until.js";

let redis: TestRedis;
const stores: StateStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await redis?.stop();
});

const limits: StoreLimits = { results: { ttlMs: 60_000, maxBytes: 100 }, views: { ttlMs: 60_000, maxBytes: 100 } };
let prefixes = 0;
async function open(kind: "memory" | "redis", l: StoreLimits = limits, failed?: (op: string) => void): Promise<StateStore> {
  const store = kind === "memory" ? memoryStore(core(), l) : redisStore(core(), { url: redis.url, keyPrefix: `t${++prefixes}:` }, l, { log: () => {}, failed });
  stores.push(store);
  await waitFor(() => store.ready(), `the ${kind} store ready`);
  return store;
}

describe.each(["memory", "redis"] as const)("the %s store keeps the same promises", (kind) => {
  it("a stash entry answers its owner only; another principal's get reads exactly as an id never issued", async () => {
    const s = await open(kind);
    const id = (await s.results.for("p:alice").put("alice's rows"))!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await s.results.for("p:alice").get(id)).toBe("alice's rows");
    expect(await s.results.for("p:bob").get(id)).toBeUndefined();
    expect(await s.results.for("p:bob").get("00000000-0000-4000-8000-000000000000")).toBeUndefined();
    // Results and views are two stashes: an id of one is not found in the other.
    expect(await s.views.for("p:alice").get(id)).toBeUndefined();
  });

  it("keeps a stash under its bytes: a text over the bound alone is refused, and room is made oldest first", async () => {
    const s = await open(kind);
    const mine = s.results.for("local");
    expect(await mine.put("x".repeat(101))).toBeUndefined();
    const a = (await mine.put("a".repeat(40)))!;
    const b = (await mine.put("b".repeat(40)))!;
    const c = (await mine.put("c".repeat(40)))!;
    expect(await mine.get(a)).toBeUndefined();
    expect(await mine.get(b)).toBe("b".repeat(40));
    expect(await mine.get(c)).toBe("c".repeat(40));
    // Oldest first even for puts within one millisecond: of twenty in a row, the last two are kept.
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await mine.put(String(i).padStart(40, "x")))!);
    const kept = [];
    for (const id of ids) kept.push(await mine.get(id));
    expect(kept.map((t, i) => (t === undefined ? undefined : i))).toEqual([...Array(18).fill(undefined), 18, 19]);
    // Multi-byte text is counted in UTF-8 bytes, not characters: 34 × 3 bytes is over 100.
    expect(await mine.put("€".repeat(34))).toBeUndefined();
  });

  it("rate windows answer as the memory ones do on the same clock: admitted, refused with the time until the oldest leaves, admitted again", async () => {
    const s = await open(kind);
    const t0 = 1_000_000;
    const answers = [];
    for (let i = 0; i < 600; i++) answers.push(await s.rates.take("p:busy", t0 + i));
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(await s.rates.take("p:busy", t0 + 600)).toEqual({ ok: false, retryAfterMs: MS_PER_MINUTE - 600, limit: 600 });
    // A refused request is not counted, and another principal has a window of its own.
    expect(await s.rates.take("p:other", t0 + 600)).toEqual({ ok: true });
    expect(await s.rates.take("p:busy", t0 + MS_PER_MINUTE)).toEqual({ ok: true });
    expect(await s.rates.take("p:busy", t0 + MS_PER_MINUTE)).toMatchObject({ ok: false });
  });
});

describe("the redis store", () => {
  it("keeps 2025-11-25 session records: saved, read back with their idle time restarted, dropped", async () => {
    const s = await open("redis");
    await s.sessions!.save("s1", { principal: "p:alice", init: '{"jsonrpc":"2.0"}' }, 60_000);
    expect(await s.sessions!.touch("s1", 60_000)).toEqual({ principal: "p:alice", init: '{"jsonrpc":"2.0"}' });
    expect(await s.sessions!.touch("never", 60_000)).toBeUndefined();
    await s.sessions!.drop("s1");
    expect(await s.sessions!.touch("s1", 60_000)).toBeUndefined();
  });

  it("puts a TTL on every key it writes, all under its prefix", async () => {
    const s = await open("redis");
    await s.results.for("p:a").put("r");
    await s.views.for("p:a").put("v");
    await s.rates.take("p:a", Date.now());
    await s.sessions!.save("s", { principal: "p:a", init: "{}" }, 60_000);
    const peek = createClient({ url: redis.url });
    await peek.connect();
    try {
      const keys = await peek.keys("*");
      const mine = keys.filter((k) => k.startsWith(`t${prefixes}:`));
      expect(mine.length).toBeGreaterThanOrEqual(4);
      for (const k of mine) expect(await peek.pTTL(k), k).toBeGreaterThan(0);
    } finally {
      peek.destroy();
    }
  });

  it("a store that stops answering makes each operation a retryable `unavailable` (STORE_OP_MS), counted by operation, /readyz false, and it recovers by itself", async () => {
    const failures: string[] = [];
    const s = await open("redis", limits, (op) => failures.push(op));
    const mine = s.results.for("p:a");
    const id = (await mine.put("kept"))!;
    failures.length = 0; // pings before the first connection counted too
    redis.pause();
    try {
      const failed = await mine.get(id).then(() => undefined, (e: unknown) => e);
      expect(failed).toBeInstanceOf(StoreUnavailable);
      expect((failed as StoreUnavailable).toJSON()).toMatchObject({ code: "unavailable", retryable: true });
      expect(await s.ready()).toBe(false);
      expect(failures).toEqual(["stash get", "ping"]);
    } finally {
      redis.resume();
    }
    await waitFor(() => s.ready(), "the store answering again");
    expect(await mine.get(id)).toBe("kept");
  }, 30_000);
});
