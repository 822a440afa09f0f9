// A stash in the shared store: the same promises as the in-memory one (results/stash.ts), for every
// replica. An entry is a hash {owner, text} with the stash's TTL; an index (ids by expiry), their
// sizes and the total bytes are kept beside it, and one script puts an entry after dropping the
// expired ones and, oldest first, as many as the new one needs room for, so the stash's bytes stay
// under its bound across replicas. A get answers only the owner (another's id reads as never issued).
import { randomUUID } from "node:crypto";
import { utf8Length } from "../results/utf8.js";
import type { RedisConnection } from "./redis-connection.js";
import type { SharedStash, StashLimits } from "./state-store.js";
import type { OwnedStash } from "../results/stash.js";

// KEYS: index (zset id → insertion number: oldest first, even within one millisecond), sizes
// (hash id → bytes), total (string), the insertion counter. ARGV: ttlMs, maxBytes, id, owner, text,
// bytes, entry key prefix. Entries share one TTL, so the oldest expire first: the sweep drops
// entries from the front while theirs is gone.
const PUT = `
local ttl, max, bytes = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[6])
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
local function evict(id)
  local size = tonumber(redis.call('HGET', KEYS[2], id) or '0')
  redis.call('DEL', ARGV[7] .. id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  total = total - size
end
while true do
  local first = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not first or redis.call('EXISTS', ARGV[7] .. first) == 1 then break end
  evict(first)
end
while total + bytes > max do
  local first = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not first then break end
  evict(first)
end
local seq = redis.call('INCR', KEYS[4])
redis.call('HSET', ARGV[7] .. ARGV[3], 'owner', ARGV[4], 'text', ARGV[5])
redis.call('PEXPIRE', ARGV[7] .. ARGV[3], ttl)
redis.call('ZADD', KEYS[1], seq, ARGV[3])
redis.call('HSET', KEYS[2], ARGV[3], bytes)
total = total + bytes
redis.call('SET', KEYS[3], total, 'PX', ttl)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[4], ttl)
return total
`;

export class RedisStash implements SharedStash {
  constructor(
    private readonly redis: RedisConnection,
    /** e.g. "atrium:results:" */
    private readonly prefix: string,
    private readonly limits: StashLimits,
  ) {}

  for(owner: string): OwnedStash {
    return { put: (text) => this.put(owner, text), get: (id) => this.get(owner, id) };
  }

  async put(owner: string, text: string): Promise<string | undefined> {
    const bytes = utf8Length(text);
    if (bytes > this.limits.maxBytes) return undefined;
    const id = randomUUID();
    const p = this.prefix;
    await this.redis.op("stash put", (c) => c.eval(PUT, {
      keys: [`${p}index`, `${p}sizes`, `${p}bytes`, `${p}seq`],
      arguments: [String(this.limits.ttlMs), String(this.limits.maxBytes), id, owner, text, String(bytes), `${p}e:`],
    }));
    return id;
  }

  async get(owner: string, id: string): Promise<string | undefined> {
    const [who, text] = await this.redis.op("stash get", (c) => c.hmGet(`${this.prefix}e:${id}`, ["owner", "text"]));
    return who === owner && typeof text === "string" ? text : undefined;
  }
}
