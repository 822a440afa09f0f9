// 2025-11-25 sessions in the shared store: whose each one is and the initialize it opened with,
// kept http_session_idle_ms after its last request, so another replica can open the same session
// (http/legacy-sessions.ts replays the initialize) when a request lands there.
import type { RedisConnection } from "./redis-connection.js";
import type { SessionRecord, SessionRecords } from "./state-store.js";

export class RedisSessions implements SessionRecords {
  constructor(private readonly redis: RedisConnection, private readonly prefix: string) {}

  async save(id: string, record: SessionRecord, idleMs: number): Promise<void> {
    const key = this.prefix + id;
    await this.redis.op("session save", (c) => c.multi().hSet(key, { principal: record.principal, init: record.init }).pExpire(key, idleMs).exec());
  }

  async touch(id: string, idleMs: number): Promise<SessionRecord | undefined> {
    const key = this.prefix + id;
    const [fields] = await this.redis.op("session read", (c) => c.multi().hGetAll(key).pExpire(key, idleMs).exec()) as unknown as [Record<string, string>];
    return fields && typeof fields.principal === "string" && typeof fields.init === "string" ? { principal: fields.principal, init: fields.init } : undefined;
  }

  async drop(id: string): Promise<void> {
    await this.redis.op("session end", (c) => c.del(this.prefix + id));
  }
}
