// State in Redis or Valkey (`atrium.store.url`): results, views, rate windows, 2025-11-25
// sessions, pins, per-user logins and the bus between replicas, every key under `atrium.store.keyPrefix` and with a TTL, values under the same caps as
// in memory. Loaded only when a store is configured.
import type { Core } from "../decisions/core.js";
import { connectRedis, type StoreHooks } from "./redis-connection.js";
import { RedisRateWindows } from "./redis-rate-windows.js";
import { RedisSessions } from "./redis-sessions.js";
import { RedisStash } from "./redis-stash.js";
import { redisBus } from "./redis-bus.js";
import { SharedLogins } from "./shared-logins.js";
import { SharedPins } from "./shared-pins.js";
import type { StateStore, StoreLimits } from "./state-store.js";

/** `loginKey`: ATRIUM_STORE_KEY's key, which per-user logins are sealed with (none: no per-user logins kept). */
export function redisStore(core: Core, config: { url: string; keyPrefix: string }, limits: StoreLimits, hooks: StoreHooks, loginKey?: Buffer): StateStore {
  const { log } = hooks;
  const redis = connectRedis(config.url, hooks);
  const p = config.keyPrefix;
  const bus = redisBus(redis, p);
  return {
    kind: "redis",
    results: new RedisStash(redis, `${p}results:`, limits.results),
    views: new RedisStash(redis, `${p}views:`, limits.views),
    rates: new RedisRateWindows(redis, `${p}rate:`, core),
    sessions: new RedisSessions(redis, `${p}session:`),
    bus,
    pins: new SharedPins(redis, bus, `${p}pins`, log),
    ...(loginKey && { logins: new SharedLogins(redis, bus, `${p}login:`, loginKey, log) }),
    async ready() {
      try {
        return (await redis.op("ping", (c) => c.ping())) === "PONG";
      } catch {
        return false;
      }
    },
    async close() {
      await bus.close();
      await redis.close();
    },
  };
}
