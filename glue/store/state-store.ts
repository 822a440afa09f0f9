// The seam between what outlives a request and where it is kept. One process keeps it in memory
// (memory-store.ts); replicas keep it in Redis or Valkey (redis-store.ts, `atrium.store.url`), so any
// replica can serve any request. Each part is owned: a stash or a session record answers only the
// principal that left it, and another principal's id answers like one never issued.
import { AtriumError } from "../support/errors.js";
import type { OwnedStash } from "../results/stash.js";
import type { RateWindows } from "./rate-windows.js";
import type { Bus } from "../support/bus.js";
import type { LoginOwners } from "../auth/store.js";
import type { PinStorage } from "../pins/pin-storage.js";

/** A stash every principal shares, each seeing only its own entries (results: get_result; views: get_view). */
export interface SharedStash {
  for(owner: string): OwnedStash;
}

/** What a 2025-11-25 session needs to be served by any replica: whose it is and how it opened. */
export interface SessionRecord {
  principal: string;
  /** The initialize request's JSON, replayed to open the session on another replica. */
  init: string;
}

/** 2025-11-25 sessions by id, each kept while it is used (http_session_idle_ms after its last request). */
export interface SessionRecords {
  save(id: string, record: SessionRecord, idleMs: number): Promise<void>;
  /** The record, its idle time restarted; undefined when never issued, ended or idle too long. */
  touch(id: string, idleMs: number): Promise<SessionRecord | undefined>;
  drop(id: string): Promise<void>;
}

/** A stash's bounds: how long an entry lives and how many UTF-8 bytes all of them hold. */
export interface StashLimits { ttlMs: number; maxBytes: number }
/** The bounds each part is kept under, the same in memory and in the store. */
export interface StoreLimits { results: StashLimits; views: StashLimits }

export interface StateStore {
  readonly kind: "memory" | "redis";
  readonly results: SharedStash;
  readonly views: SharedStash;
  readonly rates: RateWindows;
  /** Undefined in memory: a session lives in the one process that opened it. */
  readonly sessions?: SessionRecords;
  /** Undefined in memory: messages between replicas (a retry carried to the replica holding its run). */
  readonly bus?: Bus;
  /** Per-user downstream logins shared by every replica (sealed with ATRIUM_STORE_KEY); `start` reads them in. */
  readonly logins?: LoginOwners & { start(): Promise<void> };
  /** Undefined in memory: the pins every replica judges by (else each process's pin file); `start` reads them in. */
  readonly pins?: PinStorage & { start(): Promise<void> };
  /** Whether the store answers now (/readyz). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** The store did not answer in time or is unreachable: the request is `unavailable`, and a retry may find it back. */
export class StoreUnavailable extends AtriumError {
  constructor(what: string) {
    super("unavailable", `atrium's shared store did not answer (${what}); try again shortly`, { recovering: true, details: { store: "unavailable" } });
  }
}
