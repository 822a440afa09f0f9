// How one connection keeps its connector's tool list fresh, beside tools/list_changed:
// 2026-07-28 has no unsolicited notifications, so a server that advertises tools.listChanged is
// followed over a subscriptions/listen stream (opened again with backoff when it ends), and a
// listing whose ttlMs runs out is read again. Both end in the connector's list-change path, which
// fails closed until the new list is in (spec R10). Never a busy loop: the ttlMs timer waits
// CONNECTOR_LIST_TTL_MIN_MS at least, and a stream that keeps ending is given up.
import type { Client, McpSubscription } from "@modelcontextprotocol/client";
import { CONNECTOR_LIST_TTL_MAX_MS, CONNECTOR_LIST_TTL_MIN_MS } from "../decisions/generated/spec.js";
import { clampEcho } from "../support/errors.js";

export interface FreshnessHooks {
  /** Whether `client` is still the connector's live, ready connection. */
  live(client: Client): boolean;
  /** The connector's list-change path (fail closed, then re-list); `cause` words why. */
  changed(client: Client, cause: string): void;
  /** The connector's backoff for a step. */
  backoff(step: number): number;
  /** Steps of re-subscribing before giving up (connector_start_retries), and the longest backoff (a stream that lived longer starts over). */
  retries: number;
  restartMaxMs: number;
  timeoutMs: number;
  /** A failure in words (start-failure.ts sdk1Message, loaded with the client SDK). */
  explain(e: unknown): string;
}

export class Freshness {
  /** How the connection hears of list changes, in words for doctor. */
  private follows = "";
  private ttlNote = "";
  private ttlTimer?: NodeJS.Timeout;
  private subscription?: McpSubscription;
  private subscribedAt = 0;
  /** Consecutive re-subscriptions after the stream ended (the backoff step). */
  private step = 0;

  constructor(private readonly hooks: FreshnessHooks) {}

  /** For doctor: subscriptions/listen or tools/list_changed, and the ttlMs timer. */
  get words(): string[] {
    return [this.follows, this.ttlNote].filter((w) => w !== "");
  }

  /**
   * A new connection: 2025-11-25 hears the server's tools/list_changed; 2026-07-28 opens a
   * subscriptions/listen stream when the server advertises tools.listChanged (before the first
   * listing, so no change falls between them). A stream that cannot be opened is not fatal.
   */
  async follow(client: Client, modern: boolean): Promise<void> {
    this.stop();
    this.step = 0;
    this.follows = await this.listen(client, modern);
  }

  /** After each listing: a 2026-07-28 list past its ttlMs is read again; ttlMs 0 or none sets no timer. */
  listed(client: Client, ttlMs: number | undefined): void {
    clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    this.ttlNote = "";
    if (client.getProtocolEra() !== "modern" || ttlMs === undefined || !(ttlMs > 0)) return;
    const delay = Math.min(CONNECTOR_LIST_TTL_MAX_MS, Math.max(CONNECTOR_LIST_TTL_MIN_MS, ttlMs));
    this.ttlNote = `ttlMs ${ttlMs}: listed again every ${delay} ms`;
    this.ttlTimer = setTimeout(() => {
      if (this.hooks.live(client)) this.hooks.changed(client, `let its tool list's ttlMs (${ttlMs} ms) run out`);
    }, delay);
    this.ttlTimer.unref();
  }

  /** The connection is gone: no timer, and an ending stream is not followed again. */
  stop(): void {
    clearTimeout(this.ttlTimer);
    this.ttlTimer = undefined;
    this.subscription = undefined;
  }

  private async listen(client: Client, modern: boolean): Promise<string> {
    const announces = client.getServerCapabilities()?.tools?.listChanged === true;
    if (!modern || !announces) return announces ? "tools/list_changed" : "";
    try {
      const subscription = await client.listen({ toolsListChanged: true }, { timeout: this.hooks.timeoutMs });
      this.subscription = subscription;
      this.subscribedAt = Date.now();
      void subscription.closed.then((how) => this.ended(client, subscription, how));
      return "subscriptions/listen";
    } catch (e) {
      return `no subscriptions/listen (${clampEcho(this.hooks.explain(e))})`;
    }
  }

  /** The stream ended while the connection lives on: open it again with backoff, then re-list for what was missed. */
  private async ended(client: Client, subscription: McpSubscription, how: string): Promise<void> {
    if (how === "local" || this.subscription !== subscription) return;
    this.subscription = undefined;
    if (Date.now() - this.subscribedAt > this.hooks.restartMaxMs) this.step = 0;
    while (this.hooks.live(client)) {
      if (this.step > this.hooks.retries) {
        this.follows = "no subscriptions/listen (its stream kept ending)";
        return;
      }
      await new Promise((r) => setTimeout(r, this.hooks.backoff(this.step++)).unref());
      if (!this.hooks.live(client)) return;
      this.follows = await this.listen(client, true);
      if (this.subscription) return this.hooks.changed(client, "lost its subscription to list changes");
    }
  }
}
