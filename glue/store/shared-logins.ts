// Per-user downstream logins (team mode, `"auth": "per-user"`) kept in the shared store, so a
// person logged in through one replica is logged in on all. Each record is kept under a hash of
// its connector, URL and owner, sealed (login-cipher.ts) with that store key as additional data. Reads are synchronous
// (a connector's OAuth provider reads its tokens in the middle of a request): each replica keeps
// the records in memory, read from the store at start and again whenever another replica says it
// wrote one; a write updates memory at once, then the store, then tells the others. A record that
// does not open with this key, or names another key than its own, is not read.
import { createHash } from "node:crypto";
import { MS_PER_MINUTE } from "../support/format.js";
import { STORE_LOGIN_TTL_MINUTES, STORE_LOGINS_MAX } from "../decisions/generated/spec.js";
import { isJsonObject } from "../support/json-object.js";
import type { Bus } from "../support/bus.js";
import { keyOf, withTokens, type AuthRecord, type LoginOwners, type LoginRecords } from "../auth/store.js";
import type { RedisConnection } from "./redis-connection.js";
import { open, seal } from "./login-cipher.js";

const CHANGED = "logins:changed";

export class SharedLogins implements LoginOwners {
  private readonly records = new Map<string, AuthRecord>();

  constructor(private readonly redis: RedisConnection, private readonly bus: Bus, private readonly prefix: string, private readonly key: Buffer, private readonly log: (line: string) => void) {}

  /** Reads every record from the store and hears the others' writes from now on. */
  async start(): Promise<void> {
    await this.bus.subscribe(CHANGED, (k) => void this.reread(k).catch(() => {}));
    let read = 0;
    for await (const keys of this.redis.client.scanIterator({ MATCH: `${this.prefix}*` })) {
      for (const storeKey of keys) {
        if (read >= STORE_LOGINS_MAX) return;
        const sealed = await this.redis.op("login read", (c) => c.get(storeKey));
        const record = sealed ? this.unseal(storeKey, sealed) : undefined;
        if (record) {
          this.records.set(keyOf(record.connector, record.url, record.owner), record);
          read++;
        }
      }
    }
  }

  ownedBy(principalId: string): LoginRecords {
    return {
      get: (connector, url) => this.records.get(keyOf(connector, url, principalId)),
      update: (connector, url, change) => this.write(connector, url, principalId, change),
      saveTokens: (connector, url, tokens, issuedBy) => this.write(connector, url, principalId, withTokens(tokens, issuedBy)),
    };
  }

  private write(connector: string, url: string, owner: string, change: (r: AuthRecord) => AuthRecord | undefined): void {
    const k = keyOf(connector, url, owner);
    const next = change(this.records.get(k) ?? { connector, url, owner });
    if (next) this.records.set(k, { ...next, connector, url, owner });
    else this.records.delete(k);
    const stored = this.records.get(k);
    void this.persist(k, stored).catch((e: Error) => this.log(`atrium: a per-user login of ${connector} could not be written to the shared store (${e.message}); other replicas will ask that person to log in again`));
  }

  private async persist(k: string, record: AuthRecord | undefined): Promise<void> {
    const storeKey = this.storeKey(k);
    if (record) await this.redis.op("login write", (c) => c.set(storeKey, seal(this.key, JSON.stringify(record), storeKey), { PX: STORE_LOGIN_TTL_MINUTES * MS_PER_MINUTE }));
    else await this.redis.op("login delete", (c) => c.del(storeKey));
    await this.bus.publish(CHANGED, k);
  }

  /** Another replica wrote the record under `k`: read it again (gone from the store: gone here). */
  private async reread(k: string): Promise<void> {
    const storeKey = this.storeKey(k);
    const sealed = await this.redis.op("login read", (c) => c.get(storeKey));
    const record = sealed ? this.unseal(storeKey, sealed) : undefined;
    if (record) this.records.set(k, record);
    else this.records.delete(k);
  }

  private storeKey(k: string): string {
    return this.prefix + createHash("sha256").update(k).digest("base64url");
  }

  /** The record sealed under `storeKey`, when it opens with this key and is the record that key names. */
  private unseal(storeKey: string, sealed: string): AuthRecord | undefined {
    const plain = open(this.key, sealed, storeKey);
    if (plain === undefined) return undefined;
    let r: unknown;
    try {
      r = JSON.parse(plain);
    } catch {
      return undefined;
    }
    if (!isJsonObject(r) || typeof r.connector !== "string" || typeof r.url !== "string" || typeof r.owner !== "string") return undefined;
    return this.storeKey(keyOf(r.connector, r.url, r.owner)) === storeKey ? (r as unknown as AuthRecord) : undefined;
  }
}
