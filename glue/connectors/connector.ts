// One downstream server's lifecycle: start in the background (never blocking atrium or another
// connector), retry a failed start with bounded backoff, restart with backoff after a crash or,
// when remote, after its server lost atrium's session or could not be reached (remote-loss.ts: a
// new session, its tools out of the catalog until they are listed again), and settle in
// "needs_auth" when its server asks for a login it has no token for (no retry storm) until a
// person logs in (glue/auth/); then `authorized()` starts it again. The other concerns are their
// own files: opening a connection at either protocol revision (connection.ts, revision.ts), its
// tool listing and the fail-closed refresh after a list change (listing.ts; on 2026-07-28 list
// changes arrive over subscriptions/listen and a listing whose ttlMs runs out is read again:
// freshness.ts), the requests of a ready connector (requests.ts), their failures as typed errors
// (request-errors.ts), the login's errors (login-state.ts). What needs the MCP client SDK is loaded
// with the first start (client-side.ts). What the server sends on toward the host (prompts
// changes, questions) goes through passthrough.ts.
import type { Client, ProgressCallback } from "@modelcontextprotocol/client";
import { LOCAL_PRINCIPAL } from "../support/principal.js";
import type { ConnectorConfig } from "../config/schema.js";
import { AtriumError, clampEcho } from "../support/errors.js";
import { StderrRing } from "./stderr-ring.js";
import type { ConnectorTransport } from "./transports.js";
import type { DownstreamTool, ToolResult } from "./downstream-shapes.js";
import type { ExitFacts } from "./start-failure.js";
import { abortable } from "./abortable.js";
import type { Verdict } from "./revision.js";
import { Freshness } from "./freshness.js";
import type { RemoteLoss } from "./remote-loss.js";
import { DownstreamPassthrough } from "./passthrough.js";
import { readAllTools, ToolListing } from "./listing.js";
import { loginNeeded, loginRequired } from "./login-state.js";
import type { FailedOn } from "./request-errors.js";
import type { ConnectionHost } from "./connection.js";
import { CONNECTOR_BACKOFF_FACTOR, STDERR_TAIL_LINES } from "../decisions/generated/spec.js";
import { MS_PER_SECOND } from "../support/format.js";

/**
 * starting: an attempt to start is in progress (first or a retry); retrying: a start failed
 * and another attempt is scheduled; restarting: it crashed after being ready and is coming
 * back; failed: no attempt is left (the operator must act); refused: not started at all;
 * needs_auth: the remote server asks for a login atrium has no valid token for (a person must log in).
 */
export type ConnectorState = "starting" | "ready" | "retrying" | "restarting" | "failed" | "refused" | "disabled" | "stopped" | "needs_auth";

export interface ConnectorLimits { startRetries: number; backoffFirstMs: number; restartMaxMs: number; stderrBytes: number; depth: number }

type ClientSide = typeof import("./client-side.js");
let clientSide: Promise<ClientSide> | undefined;
/** The connectors' half that needs the MCP client SDK, loaded once, by the first start. */
const loadClientSide = (): Promise<ClientSide> => (clientSide ??= import("./client-side.js"));

export class Connector {
  state: ConnectorState;
  /** The protocol revision of the current (or last) connection, e.g. "2026-07-28"; undefined before one worked. */
  revision?: string;
  /** How that revision was reached, in words for doctor ("server/discover", "initialize, after …"). */
  revisionHow?: string;
  /** Why the connector is not ready (start failure, crash), for search, doctor and errors. */
  problem?: string;
  /** When the next start or restart attempt is due (epoch ms), while one is scheduled. */
  nextAttemptAt?: number;
  /** Start attempts made so far (the first one included). */
  attempts = 0;
  restarts = 0;
  readonly stderr: StderrRing;
  private client?: Client;
  private handle?: ConnectorTransport;
  /** The client SDK's half, once the first start has loaded it (a connection exists only after). */
  private side?: ClientSide;
  private timer?: NodeJS.Timeout;
  private readyAt = 0;
  private attempt?: Promise<void>;
  /** The restart attempt in progress (not one waiting for its backoff), while there is one. */
  private reconnecting?: Promise<void>;
  /** The revision that worked before, reused by later restarts and retries (revision.ts). */
  private verdict?: Verdict;
  /** Aborted when the start attempt in progress is given up (its deadline, stop). */
  private connecting?: AbortController;
  /** subscriptions/listen and the ttlMs timer of the current connection (2026-07-28). */
  private readonly fresh: Freshness;
  /** Its tools, as last listed, and the refresh after a list change. */
  private readonly listing: ToolListing;
  /** Why a config reload ended this connector, and whether a replacement is coming (retire). */
  private retired?: { why: string; replaced: boolean };
  /** This connector as a failed request's translation reads it (request-errors.ts). */
  private readonly failedOn: FailedOn;

  constructor(
    readonly config: ConnectorConfig,
    private readonly limits: ConnectorLimits,
    private readonly version: string,
    private readonly onChange: () => void,
    refusal?: string,
    private readonly passthrough = new DownstreamPassthrough(),
    /** Whose login a per-user connector's requests carry (`local` for every other connector). */
    readonly owner: string = LOCAL_PRINCIPAL.id,
  ) {
    this.stderr = new StderrRing(limits.stderrBytes);
    this.fresh = new Freshness({
      live: (client) => client === this.client && this.state === "ready",
      changed: (client, cause) => this.listing.changed(client, cause),
      backoff: (step) => this.backoff(step),
      retries: limits.startRetries,
      restartMaxMs: limits.restartMaxMs,
      timeoutMs: config.startTimeoutMs,
      explain: (e) => this.side?.sdk1Message(e) ?? String(e),
    });
    this.listing = new ToolListing({
      id: config.id,
      current: () => this.client,
      listed: (client, ttlMs) => this.fresh.listed(client, ttlMs),
      changed: () => this.onChange(),
      refreshFailed: (e, cause) => {
        this.problem = `could not refresh its tools after it ${cause}: ${clampEcho(this.explain(e, undefined))}; its tools need approval until a listing succeeds`;
      },
      backoff: (step) => this.backoff(step),
      retries: limits.startRetries,
      timeoutMs: config.startTimeoutMs,
    });
    this.failedOn = {
      id: config.id,
      config,
      ready: () => this.state === "ready",
      unavailable: () => this.unavailable(),
      loginEnded: (why) => {
        this.problem = why;
        void this.settleNeedsAuth();
        return loginRequired(this.id, this.state, this.problem);
      },
    };
    this.state = config.disabled ? "disabled" : refusal ? "refused" : "starting";
    this.problem = refusal;
  }

  get id(): string { return this.config.id; }
  /** Its tools as last listed (a name's first definition; a refused name is not among them). */
  get tools(): DownstreamTool[] { return this.listing.tools; }
  set tools(tools: DownstreamTool[]) { this.listing.tools = tools; }
  /** Names the listing carried more than once (spec R11: never read-only). */
  get duplicates(): Set<string> { return this.listing.duplicates; }
  /** Tool names refused at listing for a control, bidi or zero-width character (not listed, not callable). */
  get refusedNames(): Set<string> { return this.listing.refusedNames; }
  /** From tools/list_changed (or its last listing's ttlMs running out) until the new list is in (spec R10: never read-only). */
  get refreshing(): boolean { return this.listing.refreshing; }
  /** How this connection keeps its list fresh, for doctor: subscriptions/listen or tools/list_changed, and a ttlMs timer. */
  get freshness(): string[] { return this.fresh.words; }
  get pid(): number | null { return this.handle?.pid() ?? null; }
  /** Whether atrium will try again by itself (spec E8: only then is `unavailable` retryable). */
  get recovering(): boolean { return this.state === "starting" || this.state === "retrying" || this.state === "restarting"; }

  /** The first start attempt; resolves when it succeeded or failed (a retry may follow). Never rejects. */
  start(after?: Promise<void>): Promise<void> {
    if (this.state !== "starting") return Promise.resolve();
    return this.attempt ?? this.tryStart(after); // started once only (serve's startAll, a reload's apply)
  }

  /**
   * Removed or replaced by a config reload (config/reload.ts): stops for good; a call still in
   * flight ends `unavailable` with `why`, retryable only when a replacement is starting.
   */
  retire(why: string, replaced: boolean): Promise<void> {
    this.retired = { why, replaced };
    return this.stop();
  }

  /**
   * Waits, bounded, until this connector can be judged: a start or restart attempt in progress
   * finishes, and a listing that is changing is in. Never waits for another connector.
   */
  async whenSettled(signal?: AbortSignal): Promise<void> {
    if (this.state === "starting" && this.attempt) await abortable(this.attempt, signal, this.config.startTimeoutMs);
    if (this.state === "restarting" && this.reconnecting) await abortable(this.reconnecting, signal, this.config.startTimeoutMs);
    if (this.listing.refreshing && this.listing.rereading) await abortable(this.listing.rereading, signal, this.config.startTimeoutMs);
  }

  /** A listing that is still changing after the wait: the call cannot be judged yet. */
  listingUnsettled(): AtriumError {
    return this.listing.unsettled(this.client !== undefined, this.problem, this.state);
  }

  /** One tools/call. Its deadline is this connector's timeoutMs, or the time its caller has left
   * (`timeLeftMs`, a program's run) when that is shorter. With `onprogress` the call carries a
   * progress token and each of the downstream's progress notifications goes there, unchecked. */
  async call(name: string, args: Record<string, unknown>, opts: { timeLeftMs?: number; signal?: AbortSignal; onprogress?: ProgressCallback }): Promise<ToolResult> {
    const { client, side } = this.live();
    return side.callTool(client, this.failedOn, name, args, opts);
  }

  /** One resources/read (a downstream app's UI document), with this connector's deadline; the answer as read, failures typed like a call's. */
  async readResource(uri: string, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
    const { client, side } = this.live();
    return side.readResource(client, this.failedOn, uri, opts);
  }

  /** Whether the server of the current connection offers prompts (its capabilities say so). */
  get offersPrompts(): boolean {
    return this.state === "ready" && this.client?.getServerCapabilities()?.prompts !== undefined;
  }

  /** One prompts/list page or prompts/get, with this connector's deadline; the answer as read, failures typed like a call's. */
  async prompts(method: "prompts/list" | "prompts/get", params: Record<string, unknown>, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
    const { client, side } = this.live();
    return side.askPrompts(client, this.failedOn, method, params, opts);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.connecting?.abort();
    this.nextAttemptAt = undefined;
    if (this.state !== "disabled" && this.state !== "refused") this.setState("stopped");
    await this.dropClient();
  }

  /** The unavailable error for this connector's current state, with when it tries again and the stderr tail. */
  unavailable(): AtriumError {
    if (this.state === "needs_auth") return loginRequired(this.id, this.state, this.problem);
    const tail = this.stderr.tail(STDERR_TAIL_LINES);
    const why =
      this.state === "disabled" ? "is disabled in the config"
      : this.state === "starting" ? `is still starting (attempt ${this.attempts}${this.problem ? `; the last one failed: ${this.problem}` : ""})`
      : this.state === "stopped" ? (this.retired?.why ?? "has been stopped")
      : (this.problem ?? `is ${this.state}`);
    const next = this.nextAttemptAt === undefined ? "" : `; atrium tries again in ${Math.max(0, Math.ceil((this.nextAttemptAt - Date.now()) / MS_PER_SECOND))} s`;
    const giveUp = this.state === "failed" ? `; no attempts are left: fix the cause, then restart atrium (atrium doctor shows the details)` : "";
    return new AtriumError("unavailable", `connector ${this.id} ${why}${next}${giveUp}${tail ? `; its stderr ends with:\n${tail}` : ""}`, {
      details: { connector: this.id, state: this.state, ...(this.nextAttemptAt !== undefined && { nextAttemptAt: new Date(this.nextAttemptAt).toISOString() }) },
      recovering: this.retired?.replaced ?? this.recovering,
    });
  }

  /** A person logged in (authorize_connector, `atrium auth login`): start again now, with a fresh count of attempts. */
  async authorized(): Promise<void> {
    if (this.state === "disabled" || this.state === "refused" || this.state === "stopped") return;
    if (this.state === "starting" && this.attempt) await this.attempt;
    clearTimeout(this.timer);
    this.attempts = 0;
    this.restarts = 0;
    await this.tryStart();
  }

  /** The current connection, when this connector is ready; else its unavailable error. */
  private live(): { client: Client; side: ClientSide } {
    const client = this.client;
    if (this.state !== "ready" || !client || !this.side) throw this.unavailable();
    return { client, side: this.side };
  }

  /** A ready connector whose login ended: its tools leave the catalog until a person logs in again. */
  private async settleNeedsAuth(): Promise<void> {
    clearTimeout(this.timer);
    this.nextAttemptAt = undefined;
    this.listing.clear();
    this.setState("needs_auth");
    await this.dropClient();
  }

  /** A failed start in words a person can act on (start-failure.ts; before the client SDK loaded, the error's own). */
  private explain(e: unknown, exit: ExitFacts | undefined): string {
    return this.side ? this.side.explainStartFailure(this.config, e, exit) : e instanceof Error ? e.message : String(e);
  }

  /** One start attempt; on failure schedules the next one while retries are left. */
  /** `after`: what must end before the first try (the connector this one replaces stopping; serve: initialize answered). */
  private tryStart(after?: Promise<void>): Promise<void> {
    this.attempts++;
    this.nextAttemptAt = undefined;
    this.setState("starting");
    const attempt = (async () => {
      if (after) await after;
      if (this.state !== "starting") return; // stopped meanwhile
      try {
        await this.connect();
        this.setState("ready");
      } catch (e) {
        const login = loginNeeded(this.config, e);
        this.problem = login ? login.message : `failed to start: ${clampEcho(this.explain(e, this.handle?.exit()))}`;
        await this.dropClient();
        if (this.state !== "starting") return; // stopped meanwhile
        if (login) return this.setState("needs_auth");
        if (this.attempts <= this.limits.startRetries) this.schedule("retrying", () => this.tryStart());
        else this.setState("failed");
      }
    })();
    this.attempt = attempt;
    return attempt;
  }

  /** What opening a connection needs of this connector (connection.ts). */
  private connectionHost(): ConnectionHost {
    return {
      config: this.config, stderr: this.stderr, version: this.version, passthrough: this.passthrough, depth: this.limits.depth, owner: this.owner,
      drop: () => this.dropClient(),
      adopt: (client, handle) => { this.handle = handle; this.client = client; },
      handle: () => this.handle,
      isCurrent: (client) => client === this.client,
      listChanged: (client, cause) => this.listing.changed(client, cause),
      closed: (client) => this.onClosed(client),
      remoteLost: (handle, loss) => this.remoteLost(handle, loss),
    };
  }

  private async connect(): Promise<void> {
    const deadline = this.config.startTimeoutMs;
    const attempt = new AbortController();
    this.connecting = attempt;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        attempt.abort();
        reject(new Error(`it did not answer initialize and list its tools within ${deadline} ms (startTimeoutMs)`));
      }, deadline);
    });
    const run = async () => {
      const side = (this.side ??= await loadClientSide());
      const reached = await side.openConnection(this.connectionHost(), this.verdict, attempt.signal).catch((e: unknown) => {
        this.verdict = undefined; // what worked before did not: the next attempt negotiates afresh
        throw e;
      });
      const client = this.client!;
      this.revision = reached.revision;
      this.revisionHow = reached.how;
      this.verdict = reached.verdict;
      await this.fresh.follow(client, reached.modern);
      const listed = await readAllTools(client, deadline);
      this.listing.set(listed.tools);
      this.fresh.listed(client, listed.ttlMs);
    };
    try {
      await Promise.race([run(), timeout]);
    } finally {
      clearTimeout(timer);
      if (this.connecting === attempt) this.connecting = undefined;
    }
    this.problem = undefined;
    this.readyAt = Date.now();
  }

  private onClosed(client: Client): void {
    if (client !== this.client || this.state === "stopped" || this.state === "disabled") return;
    this.client = undefined;
    if (this.state === "starting") return; // the start attempt reports the failure
    const exit = this.handle?.exit();
    this.problem = `exited unexpectedly${exit?.code != null ? ` (code ${exit.code})` : exit?.signal ? ` (${exit.signal})` : ""}; restarting`;
    this.scheduleRestart();
  }

  /**
   * A ready remote connector's server no longer knows its session, or cannot be reached: the
   * connection is dropped (its calls in flight end `unavailable`) and a new one, with a new
   * `initialize`, is made in the background. Its tools leave the catalog meanwhile: they are
   * not callable, and whatever the server lists when it is back is judged afresh.
   */
  private remoteLost(handle: ConnectorTransport, loss: RemoteLoss): void {
    if (handle !== this.handle || this.state !== "ready") return; // a start attempt reports its own failure
    const client = this.client;
    this.client = undefined;
    this.problem = loss.kind === "session_unknown"
      ? `lost its session: its server answered HTTP ${loss.status} for it (the server probably restarted), so atrium starts a new session`
      : `lost its server: ${clampEcho(this.explain(loss.cause, undefined))}; atrium reconnects in the background`;
    this.listing.clear();
    // A server that answered is up: the new session is asked for at once, unless the last loss was recent.
    this.scheduleRestart(loss.kind === "session_unknown");
    // Closed after the SDK has the answer that told of the loss, never inside its request.
    queueMicrotask(() => void closeQuietly(client, handle));
  }

  /**
   * A connection that was ready is gone: restart with backoff (a connector that stayed up longer
   * than the longest backoff starts its backoff over); `atOnceIfFirst`: with no wait when this is
   * the first restart of that backoff.
   */
  private scheduleRestart(atOnceIfFirst = false): void {
    if (Date.now() - this.readyAt > this.limits.restartMaxMs) this.restarts = 0;
    this.listing.refreshing = false;
    this.fresh.stop();
    const now = atOnceIfFirst && this.restarts === 0;
    this.schedule("restarting", () => this.restart(), this.restarts++, now);
  }

  /** One restart attempt, kept while it runs so a call can wait for it (whenSettled). */
  private restart(): Promise<void> {
    const attempt = this.restartOnce().finally(() => { if (this.reconnecting === attempt) this.reconnecting = undefined; });
    this.reconnecting = attempt;
    return attempt;
  }

  private async restartOnce(): Promise<void> {
    if (this.state !== "restarting") return;
    this.nextAttemptAt = undefined;
    try {
      await this.connect();
      this.setState("ready");
    } catch (e) {
      const login = loginNeeded(this.config, e);
      const how = this.config.kind === "http" ? "lost its connection and could not connect again" : "crashed and could not restart";
      this.problem = login ? login.message : `${how}: ${clampEcho(this.explain(e, this.handle?.exit()))}`;
      await this.dropClient();
      if (login && this.state === "restarting") return this.settleNeedsAuth();
      if (this.state === "restarting") this.schedule("restarting", () => this.restart(), this.restarts++);
    }
  }

  /** Backoff: doubles from connector_backoff_first_ms up to connector_restart_max_ms (a step so large that the product overflows to Infinity is capped the same). */
  private backoff(step: number): number {
    return Math.min(this.limits.restartMaxMs, this.limits.backoffFirstMs * CONNECTOR_BACKOFF_FACTOR ** step);
  }

  private schedule(state: "retrying" | "restarting", run: () => Promise<void>, step = this.attempts - 1, now = false): void {
    const delay = now ? 0 : this.backoff(step);
    this.nextAttemptAt = Date.now() + delay;
    this.setState(state);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void run(), delay);
    this.timer.unref();
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.fresh.stop();
    await closeQuietly(client, this.handle);
  }

  private setState(state: ConnectorState): void {
    if (this.state === state) return;
    this.state = state;
    this.onChange();
  }
}

async function closeQuietly(client: Client | undefined, handle: ConnectorTransport | undefined): Promise<void> {
  try { await client?.close(); } catch { /* already gone */ }
  try { await handle?.transport.close(); } catch { /* already gone */ }
}
