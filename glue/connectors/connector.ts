// One downstream server: start in the background (never blocking atrium or another
// connector), retry a failed start with bounded backoff, list its tools to completion, follow
// tools/list_changed (its tools are not read-only until the new list is in), restart with
// backoff after a crash or, when remote, after its server lost atrium's session or could not be
// reached (remote-loss.ts: a new session, its tools out of the catalog until they are listed
// again), and turn every failure of a call into a typed error. It reaches either
// protocol revision (revision.ts); on 2026-07-28 list changes arrive over subscriptions/listen,
// and a listing whose ttlMs runs out is read again, fail-closed like a list change. A remote
// connector whose server asks for a login it has no token for settles in "needs_auth" (no retry
// storm) until a person logs in (glue/auth/); then `authorized()` starts it again. What the server sends
// on toward the host (prompts changes, questions) goes through connectors/passthrough.ts.
import { LOCAL_PRINCIPAL } from "../support/principal.js";
import { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, type ProgressCallback, type VersionNegotiationOptions } from "@modelcontextprotocol/client";
import type { ConnectorConfig } from "../config/schema.js";
import { escapeShown } from "../support/text/escape.js";
import { toolNameTextOf } from "../decisions/facts/pins.js";
import { AtriumError, clampEcho } from "../support/errors.js";
import { StderrRing } from "./stderr-ring.js";
import { createTransport, type ConnectorTransport } from "./transports.js";
import { LooseResult, readToolResult, readToolsPage, type DownstreamTool, type ToolResult } from "./downstream-shapes.js";
import { explainStartFailure, sdk1Message } from "./start-failure.js";
import { abortable } from "./abortable.js";
import { reachRevision, type Verdict } from "./revision.js";
import { Freshness } from "./freshness.js";
import type { RemoteLoss } from "./remote-loss.js";
import { DownstreamPassthrough } from "./passthrough.js";
import { CONNECTOR_BACKOFF_FACTOR, CONNECTOR_LIST_PAGES_MAX, STDERR_TAIL_LINES } from "../decisions/generated/spec.js";
import { MS_PER_SECOND } from "../support/format.js";
import { DROPPED_ANSWER_CODE, HTTP_STATUS } from "../support/wire.js";
import { needsLogin, refusedWithoutLogin } from "../auth/needs-login.js";
import { machineGrant, oauthOffered } from "../auth/offered.js";
import { core } from "../decisions/core.js";
import { codeName } from "../decisions/code-names.js";
import { connectorFacts } from "../decisions/facts/oauth.js";
import { oauthMachineRefusedText, oauthUnauthorizedText } from "../decisions/messages.js";
import { AuthChallenge, OAuthUnauthorized, ResourceMetadata, ToolNameAnswer } from "../decisions/generated/spec.js";

/**
 * starting: an attempt to start is in progress (first or a retry); retrying: a start failed
 * and another attempt is scheduled; restarting: it crashed after being ready and is coming
 * back; failed: no attempt is left (the operator must act); refused: not started at all;
 * needs_auth: the remote server asks for a login atrium has no valid token for (a person must log in).
 */
export type ConnectorState = "starting" | "ready" | "retrying" | "restarting" | "failed" | "refused" | "disabled" | "stopped" | "needs_auth";

export interface ConnectorLimits { startRetries: number; backoffFirstMs: number; restartMaxMs: number; stderrBytes: number; depth: number }

export class Connector {
  state: ConnectorState;
  tools: DownstreamTool[] = [];
  /** Names the listing carried more than once (spec R11: never read-only). */
  duplicates = new Set<string>();
  /** Tool names refused at listing for a control, bidi or zero-width character (not listed, not callable); each is said once on stderr. */
  readonly refusedNames = new Set<string>();
  /** From tools/list_changed (or its last listing's ttlMs running out) until the new list is in (spec R10: never read-only). */
  refreshing = false;
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
  private timer?: NodeJS.Timeout;
  private readyAt = 0;
  private attempt?: Promise<void>;
  /** The restart attempt in progress (not one waiting for its backoff), while there is one. */
  private reconnecting?: Promise<void>;
  private listing?: Promise<void>;
  /** The re-listing after tools/list_changed used up its retries: no longer recovering by itself. */
  private relistGaveUp = false;
  /** What started the refresh in progress, for its words. */
  private refreshCause = "announced that its tools changed";
  /** The revision that worked before, reused by later restarts and retries (revision.ts). */
  private verdict?: Verdict;
  /** Aborted when the start attempt in progress is given up (its deadline, stop). */
  private connecting?: AbortController;
  /** subscriptions/listen and the ttlMs timer of the current connection (2026-07-28). */
  private readonly fresh: Freshness;
  /** Why a config reload ended this connector, and whether a replacement is coming (retire). */
  private retired?: { why: string; replaced: boolean };

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
      changed: (client, cause) => this.listChanged(client, cause),
      backoff: (step) => this.backoff(step),
      retries: limits.startRetries,
      restartMaxMs: limits.restartMaxMs,
      timeoutMs: config.startTimeoutMs,
    });
    this.state = config.disabled ? "disabled" : refusal ? "refused" : "starting";
    this.problem = refusal;
  }

  get id(): string { return this.config.id; }
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
    if (this.refreshing && this.listing) await abortable(this.listing, signal, this.config.startTimeoutMs);
  }

  /** A listing that is still changing after the wait: the call cannot be judged yet. */
  listingUnsettled(): AtriumError {
    const recovering = this.client !== undefined && !this.relistGaveUp;
    const why = recovering ? "the new list is not in yet; retry shortly" : `no new list could be read (${this.problem ?? "it failed"}); its tools stay behind approval until it announces another change or restarts`;
    return new AtriumError("unavailable", `connector ${this.id} ${this.refreshCause} and ${why}`, { details: { connector: this.id, state: this.state }, recovering });
  }

  /** One tools/call. Its deadline is this connector's timeoutMs, or the time its caller has left
   * (`timeLeftMs`, a program's run) when that is shorter. With `onprogress` the call carries a
   * progress token and each of the downstream's progress notifications goes there, unchecked. */
  async call(name: string, args: Record<string, unknown>, opts: { timeLeftMs?: number; signal?: AbortSignal; onprogress?: ProgressCallback }): Promise<ToolResult> {
    const client = this.client;
    if (this.state !== "ready" || !client) throw this.unavailable();
    const timeoutMs = Math.min(this.config.timeoutMs, Math.ceil(opts.timeLeftMs ?? Infinity));
    if (timeoutMs <= 0) throw new AtriumError("timeout", `no time is left for ${this.id}.${name}: the program's run is out of time (program_wall_ms)`, { details: { address: `${this.id}.${name}`, budget: "program_wall_ms" } });
    let raw: Record<string, unknown>;
    try {
      raw = await client.request({ method: "tools/call", params: { name, arguments: args } }, LooseResult, { timeout: timeoutMs, signal: opts.signal, onprogress: opts.onprogress });
    } catch (e) {
      throw this.callError(name, e, { timeoutMs, signal: opts.signal });
    }
    const read = readToolResult(raw);
    if (!read.ok) throw new AtriumError("connector_call_failed", `${this.id}.${name} returned a malformed result: ${read.reason}`, { details: { connector: this.id } });
    return read.value;
  }

  /** One resources/read (a downstream app's UI document), with this connector's deadline; the answer as read, failures typed like a call's. */
  async readResource(uri: string, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
    const client = this.client;
    if (this.state !== "ready" || !client) throw this.unavailable();
    try {
      return await client.request({ method: "resources/read", params: { uri } }, LooseResult, { timeout: this.config.timeoutMs, signal: opts.signal });
    } catch (e) {
      throw this.callError(uri, e, { timeoutMs: this.config.timeoutMs, signal: opts.signal });
    }
  }

  /** Whether the server of the current connection offers prompts (its capabilities say so). */
  get offersPrompts(): boolean {
    return this.state === "ready" && this.client?.getServerCapabilities()?.prompts !== undefined;
  }

  /** One prompts/list page or prompts/get, with this connector's deadline; the answer as read, failures typed like a call's. */
  async prompts(method: "prompts/list" | "prompts/get", params: Record<string, unknown>, opts: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
    const client = this.client;
    if (this.state !== "ready" || !client) throw this.unavailable();
    try {
      return await client.request({ method, params } as never, LooseResult, { timeout: this.config.timeoutMs, signal: opts.signal });
    } catch (e) {
      throw this.callError(method, e, { timeoutMs: this.config.timeoutMs, signal: opts.signal });
    }
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
    if (this.state === "needs_auth") return this.loginRequired();
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

  /**
   * A plain 401 (no login provider judged it): what the core says it means (O5) for this
   * connector's credentials, with no protected resource metadata sought nor challenge read. Never a login here: a
   * connector atrium logs in to hears of one through its provider (NeedsLogin). A machine client's
   * (O15) is a 401 to the new token its provider just got: the operator's to resolve.
   */
  private unauthorized(details: Record<string, unknown>): AtriumError {
    // O15: the provider already got a new token with the operator's client credentials, and the server refused it too.
    if (machineGrant(this.config)) return new AtriumError("auth_required", oauthMachineRefusedText(this.id), { details });
    const meaning = core().oauthUnauthorized(connectorFacts(this.config).credentials, ResourceMetadata.not_found, AuthChallenge.other);
    const name = codeName(OAuthUnauthorized, meaning);
    return new AtriumError("auth_required", oauthUnauthorizedText[name === undefined || name === "needs_login" ? "invalid_facts" : name](this.id), { details });
  }

  /** The error for a connector that needs a login: not retryable; the next action is authorize_connector. */
  private loginRequired(): AtriumError {
    return new AtriumError("auth_required", `connector ${this.id} needs a person to log in before its tools can be used (${this.problem ?? "the server asks for a login"}); call authorize_connector and show the person the URL it gives, or run \`atrium auth login ${this.id}\` in a terminal`, {
      details: { connector: this.id, state: this.state },
      nextAction: { tool: "authorize_connector", arguments: { connector: this.id }, purpose: "start the login a person must complete" },
      recovering: false,
    });
  }

  /** A ready connector whose login ended: its tools leave the catalog until a person logs in again. */
  private async settleNeedsAuth(): Promise<void> {
    clearTimeout(this.timer);
    this.nextAttemptAt = undefined;
    this.tools = [];
    this.duplicates = new Set();
    this.refreshing = false;
    this.setState("needs_auth");
    await this.dropClient();
  }

  /** One start attempt; on failure schedules the next one while retries are left. */
  /** `after`: what must end before the first try (the connector this one replaces stopping). */
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
        const login = oauthOffered(this.config) ? needsLogin(e) : undefined;
        this.problem = login ? login.message : `failed to start: ${clampEcho(explainStartFailure(this.config, e, this.handle?.exit()))}`;
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

  /** Opens a transport and client for one try, after closing the previous ones. */
  private async open(negotiation: VersionNegotiationOptions | undefined): Promise<{ client: Client; handle: ConnectorTransport }> {
    await this.dropClient();
    const handle: ConnectorTransport = createTransport(this.config, this.stderr, this.limits.depth, (loss) => this.remoteLost(handle, loss), this.owner);
    const client = new Client({ name: "atrium", version: this.version }, { capabilities: this.passthrough.capabilities, versionNegotiation: negotiation });
    client.setNotificationHandler("notifications/tools/list_changed", () => this.listChanged(client, "announced that its tools changed"));
    this.passthrough.install(client, this.id, () => client === this.client);
    client.onclose = () => this.onClosed(client);
    this.handle = handle;
    this.client = client;
    return { client, handle };
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
      const reached = await reachRevision(this.config, this.verdict, async (negotiation, options) => {
        if (attempt.signal.aborted) throw new Error("the start attempt was given up");
        const { client, handle } = await this.open(negotiation);
        await client.connect(handle.transport, options);
        return client;
      }, () => this.handle?.probeAnswer(), attempt.signal).catch((e: unknown) => {
        this.verdict = undefined; // what worked before did not: the next attempt negotiates afresh
        throw e;
      });
      const client = this.client!;
      this.revision = reached.revision;
      this.revisionHow = reached.how;
      this.verdict = reached.verdict;
      await this.fresh.follow(client, reached.modern);
      const listed = await this.listTools(client, deadline);
      this.setTools(listed.tools);
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

  /** Every page of tools/list, and the shortest ttlMs a page carried (2026-07-28). */
  private async listTools(client: Client, timeoutMs: number): Promise<{ tools: DownstreamTool[]; ttlMs?: number }> {
    const tools: DownstreamTool[] = [];
    let ttlMs: number | undefined;
    let cursor: string | undefined;
    for (let page = 0; page < CONNECTOR_LIST_PAGES_MAX; page++) {
      const raw = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, LooseResult, { timeout: timeoutMs });
      const read = readToolsPage(raw);
      tools.push(...read.tools);
      if (read.ttlMs !== undefined) ttlMs = Math.min(ttlMs ?? read.ttlMs, read.ttlMs);
      if (!read.nextCursor || read.nextCursor === cursor) break;
      cursor = read.nextCursor;
    }
    return { tools, ttlMs };
  }

  /**
   * Keeps the first definition of each name and remembers the names listed more than once. A name
   * with a control, bidi or zero-width character (a line break, an ESC) could lay out or repaint
   * the lines it is shown on, or read as another name: refused, said once on stderr, escaped.
   */
  private setTools(listed: DownstreamTool[]): void {
    const seen = new Set<string>();
    const duplicates = new Set<string>();
    const tools: DownstreamTool[] = [];
    for (const t of listed) {
      if (core().toolName(toolNameTextOf(t.name)) === ToolNameAnswer.refused) this.refuseName(t.name); // N10
      else if (seen.has(t.name)) duplicates.add(t.name);
      else { seen.add(t.name); tools.push(t); }
    }
    this.tools = tools;
    this.duplicates = duplicates;
  }

  private refuseName(name: string): void {
    if (this.refusedNames.has(name)) return;
    this.refusedNames.add(name);
    process.stderr.write(`atrium: connector ${this.id} refused the tool name "${escapeShown(name)}": it carries a control, bidi or zero-width character, so it is not listed and cannot be called\n`);
  }

  /** tools/list_changed (or a listing past its ttlMs): fail closed at once, then fetch the new list (retried with backoff). */
  private listChanged(client: Client, cause: string): void {
    if (client !== this.client) return;
    this.refreshing = true;
    this.refreshCause = cause;
    this.relistGaveUp = false;
    this.onChange();
    this.listing ??= this.relist(client).finally(() => { this.listing = undefined; });
  }

  private async relist(client: Client): Promise<void> {
    for (let i = 0; client === this.client; i++) {
      try {
        const listed = await this.listTools(client, this.config.startTimeoutMs);
        if (client !== this.client) return;
        this.setTools(listed.tools);
        this.fresh.listed(client, listed.ttlMs);
        this.refreshing = false;
        this.onChange();
        return;
      } catch (e) {
        this.problem = `could not refresh its tools after it ${this.refreshCause}: ${clampEcho(explainStartFailure(this.config, e, undefined))}; its tools need approval until a listing succeeds`;
        if (i >= this.limits.startRetries) { this.relistGaveUp = true; return; }
        await new Promise((r) => setTimeout(r, this.backoff(i)).unref());
      }
    }
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
      : `lost its server: ${clampEcho(explainStartFailure(this.config, loss.cause, undefined))}; atrium reconnects in the background`;
    this.tools = [];
    this.duplicates = new Set();
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
    this.refreshing = false;
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
      const login = oauthOffered(this.config) ? needsLogin(e) : undefined;
      const how = this.config.kind === "http" ? "lost its connection and could not connect again" : "crashed and could not restart";
      this.problem = login ? login.message : `${how}: ${clampEcho(explainStartFailure(this.config, e, this.handle?.exit()))}`;
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

  private callError(name: string, e: unknown, opts: { timeoutMs: number; signal?: AbortSignal }): AtriumError {
    const details = { connector: this.id, tool: name };
    if (opts.signal?.aborted) return new AtriumError("cancelled", `the call to ${this.id}.${name} was cancelled`, { details });
    // A login that expired for good (the refresh failed): the connector waits for a person.
    const login = oauthOffered(this.config) ? needsLogin(e) : undefined;
    if (login) {
      this.problem = login.message;
      void this.settleNeedsAuth();
      return this.loginRequired();
    }
    // A 401 the provider already had the core judge (O5: not a login), in the core's words.
    const refused = refusedWithoutLogin(e);
    if (refused) return new AtriumError("auth_required", oauthUnauthorizedText[codeName(OAuthUnauthorized, refused.meaning) ?? "invalid_facts"](this.id), { details });
    // A remote server's HTTP status (SdkHttpError carries it as `status`).
    if (e instanceof SdkHttpError) {
      if (e.status === HTTP_STATUS.tooManyRequests) return new AtriumError("rate_limited", `${this.id} is rate limiting calls (HTTP 429); wait and retry`, { details });
      if (e.status === HTTP_STATUS.unauthorized) return this.unauthorized(details);
      if (e.status === HTTP_STATUS.forbidden) return new AtriumError("auth_required", `${this.id} refused the credentials in its headers (HTTP ${e.status}); the operator must update them`, { details });
      if (e.status !== undefined && e.status >= HTTP_STATUS.serverError) return new AtriumError("unavailable", `${this.id} answered HTTP ${e.status}`, { details });
    }
    // A request that timed out or lost its connection (SDK 2: SdkError, no longer McpError -32001/-32000).
    if (e instanceof SdkError) {
      if (e.code === SdkErrorCode.RequestTimeout && opts.timeoutMs < this.config.timeoutMs) {
        return new AtriumError("timeout", `${this.id}.${name} did not answer within the ${opts.timeoutMs} ms its caller had left (program_wall_ms)`, { details: { ...details, timeoutMs: opts.timeoutMs, budget: "program_wall_ms" } });
      }
      if (e.code === SdkErrorCode.RequestTimeout) {
        return new AtriumError("timeout", `${this.id}.${name} did not answer within ${opts.timeoutMs} ms; retry, or if this tool is slow by nature the operator can raise "timeoutMs" for connector ${this.id} in atrium.json`, { details: { ...details, timeoutMs: opts.timeoutMs } });
      }
      if (e.code === SdkErrorCode.ConnectionClosed) return this.unavailable();
    }
    if (e instanceof ProtocolError) {
      if (e.code === DROPPED_ANSWER_CODE && (e.data as { atrium?: unknown } | undefined)?.atrium === "result_too_large") {
        return new AtriumError("result_too_large", `${this.id}.${name}: ${e.message}; ask the tool for less (filters, paging, a narrower query)`, { details });
      }
      if (e.code === ProtocolErrorCode.InvalidParams) return new AtriumError("invalid_args", `${this.id}.${name} rejected its arguments: ${clampEcho(sdk1Message(e))}`, { details });
    }
    if (this.state !== "ready") return this.unavailable();
    return new AtriumError("connector_call_failed", `${this.id}.${name} failed: ${clampEcho(sdk1Message(e))}`, { details });
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
