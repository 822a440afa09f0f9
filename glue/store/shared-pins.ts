// The pins in the shared store (team mode, `atrium.store`): one record every replica judges its
// listings against, so a tool quarantined, accepted or rejected on one replica (or by `atrium pins`
// run anywhere against the store) is so on all. The record is a hash {rev, data}; a write says which
// revision it changed and is refused when another writer came first (the writer then reads the
// record again and judges again: an operator's accept is never overwritten by a replica that had not
// seen it). Reads are synchronous: each replica keeps the pins in memory, read at start, again when
// another writer says it wrote, and checked when the store answers again after a loss. Until the
// first read, the pins in memory are the "could not be read" kind: every tool without an accepted
// pin is quarantined (spec/pins.md N8), and nothing is written. A store that lost the record (a
// restart without persistence) gets it back from a replica that holds it. A record that is too
// large or not atrium's is set aside (renamed) and a new one starts as after an unreadable file.
import { randomUUID } from "node:crypto";
import { MS_PER_MINUTE } from "../support/format.js";
import { PIN_FILE_BYTES_MAX, STORE_PINS_TTL_MINUTES } from "../decisions/generated/spec.js";
import type { Bus } from "../support/bus.js";
import { emptyPins, parsePins, type PinData } from "../pins/pin-file.js";
import type { PinStorage } from "../pins/pin-storage.js";
import type { RedisConnection } from "./redis-connection.js";

const CHANGED = "pins:changed";
const TTL_MS = STORE_PINS_TTL_MINUTES * MS_PER_MINUTE;

// KEYS[1]: the record. ARGV: the longest data read, the TTL to renew. Answers {} when there is no
// record, {rev} when its data is over the bound, {rev, data} otherwise.
const READ = `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {} end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('HSTRLEN', KEYS[1], 'data') > tonumber(ARGV[1]) then return {rev} end
return {rev, redis.call('HGET', KEYS[1], 'data')}
`;

// KEYS[1]: the record. ARGV: the revision the writer read, the new data, the TTL. Answers the new
// revision, or 0 when the record is no longer at the revision the writer read.
const WRITE = `
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'data', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return rev + 1
`;

/** Another writer came first; the pins were read again. */
class PinsChangedMeanwhile extends Error {}

export class SharedPins implements PinStorage {
  readonly where: string;
  private data: PinData = emptyPins(new Date().toISOString());
  /** The record's revision `data` was read at or written as; 0 before the first write. */
  private rev = 0;
  /** What the store holds as far as this replica knows (undefined: nothing yet). */
  private stored: string | undefined;
  private loaded = false;
  private subscribed = false;
  private readonly writer = randomUUID();
  private readonly listeners: (() => void)[] = [];
  private writes: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private warned = false;

  constructor(private readonly redis: RedisConnection, private readonly bus: Bus, private readonly key: string, private readonly warn: (line: string) => void) {
    this.where = `the shared store (${key})`;
    // Back after a loss (a restart, a network cut): the record may be gone or newer.
    redis.client.on("ready", () => {
      if (this.loaded) void this.serialize(() => this.resync()).catch(() => {});
    });
  }

  /** Whether the pins were read from the store (until then every tool without a pin is quarantined). */
  get ready(): boolean {
    return this.loaded;
  }

  /** Reads the record and hears other writers from now on; throws while the store does not answer (call again). */
  async start(): Promise<void> {
    if (this.loaded) return;
    if (!this.subscribed) {
      await this.bus.subscribe(CHANGED, (writer) => {
        if (writer !== this.writer && this.loaded) void this.serialize(() => this.reread()).catch(() => {});
      });
      this.subscribed = true;
    }
    await this.serialize(async () => {
      await this.reread();
      this.loaded = true;
      this.changed();
    });
  }

  load(): PinData {
    return structuredClone(this.data);
  }

  save(data: PinData): void {
    this.data = structuredClone(data);
    if (!this.loaded) return; // not read yet: kept in memory only, never written over the record
    void this.serialize(() => this.write()).catch(() => {});
  }

  watch(changed: () => void): void {
    this.listeners.push(changed);
  }

  /** Waits for the writes so far; throws when the last one was not kept (the store failed, or another writer came first). */
  async flush(): Promise<void> {
    await this.writes;
    if (this.failure) throw this.failure;
  }

  /** One read or write at a time, in order. */
  private serialize(step: () => Promise<void>): Promise<void> {
    const next = this.writes.then(step);
    this.writes = next.catch(() => {});
    return next;
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  private async write(): Promise<void> {
    const text = JSON.stringify(this.data);
    if (text === this.stored) return;
    if (Buffer.byteLength(text) > PIN_FILE_BYTES_MAX) {
      this.fail(new Error(`the pins would take more than ${PIN_FILE_BYTES_MAX} bytes (PIN_FILE_BYTES_MAX); they were not written`));
      return;
    }
    let rev: number;
    try {
      rev = Number(await this.redis.op("pins write", (c) => c.eval(WRITE, { keys: [this.key], arguments: [String(this.rev), text, String(TTL_MS)] })));
    } catch (e) {
      this.fail(e as Error);
      return;
    }
    if (rev === 0) {
      // Another writer came first: its pins are read, and every listing is judged against them again.
      this.failure = new PinsChangedMeanwhile(`the pins in ${this.where} changed meanwhile; nothing was written`);
      await this.reread();
      return;
    }
    this.rev = rev;
    this.stored = text;
    this.failure = undefined;
    await this.bus.publish(CHANGED, this.writer).catch(() => {});
  }

  private fail(e: Error): void {
    this.failure = e;
    if (!this.warned) this.warn(`atrium: the pins could not be written to ${this.where} (${e.message}); they are kept in this process and written when the store answers again`);
    this.warned = true;
  }

  /** The record as the store holds it now. */
  private async read(): Promise<{ rev: number; text: string; data: PinData } | { missing: true } | { bad: string }> {
    const [rev, text] = (await this.redis.op("pins read", (c) => c.eval(READ, { keys: [this.key], arguments: [String(PIN_FILE_BYTES_MAX), String(TTL_MS)] }))) as string[];
    if (rev === undefined) return { missing: true };
    if (text === undefined) return { bad: `over PIN_FILE_BYTES_MAX (${PIN_FILE_BYTES_MAX} bytes)` };
    const data = parsePins(text);
    return data ? { rev: Number(rev), text, data } : { bad: "not atrium's pins (corrupt or foreign)" };
  }

  /** Reads the record; when it differs from what this replica holds, judges again. */
  private async reread(): Promise<void> {
    const r = await this.read();
    if ("missing" in r) return this.lost();
    if ("bad" in r) return this.setAside(r.bad);
    this.take(r);
  }

  private take(r: { rev: number; text: string; data: PinData }): void {
    this.rev = r.rev;
    this.stored = r.text;
    const before = JSON.stringify(this.data);
    this.data = r.data;
    if (this.loaded && before !== r.text) this.changed();
  }

  /** No record: the first replica of a new store starts with none; one that holds pins writes them back. */
  private async lost(): Promise<void> {
    this.rev = 0;
    this.stored = undefined;
    if (!this.loaded) {
      this.data = emptyPins();
      return;
    }
    this.warn(`atrium: the pins were gone from ${this.where} (restarted without persistence?); this replica wrote back the ones it holds`);
    await this.write();
  }

  private async setAside(why: string): Promise<void> {
    const at = new Date().toISOString();
    const aside = `${this.key}:bad-${at}`;
    await this.redis.op("pins set aside", async (c) => {
      await c.rename(this.key, aside);
      await c.pExpire(aside, TTL_MS);
    });
    this.warn(`atrium: the pins in ${this.where} could not be used (${why}); they were set aside as ${aside}. Every tool without an accepted pin is quarantined until the operator accepts it (atrium pins).`);
    this.rev = 0;
    this.stored = undefined;
    this.data = emptyPins(at);
    await this.write();
    if (this.loaded) this.changed();
  }

  /** After the store came back: the record may be gone (write it back), newer (read it), or where this replica's unwritten pins started (write them). */
  private async resync(): Promise<void> {
    const unwritten = JSON.stringify(this.data) !== this.stored;
    const r = await this.read();
    if ("missing" in r) return this.lost();
    if ("bad" in r) return this.setAside(r.bad);
    if (unwritten && r.rev === this.rev) return this.write();
    this.take(r);
  }
}
