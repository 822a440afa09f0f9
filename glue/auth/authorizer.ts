// The service behind authorize_connector: one login at a time per principal and connector, kept
// across calls (a later call while it is pending waits, bounded, for it), and the connector
// started again when it completes, whoever is waiting. It reaches connectors only through the
// port app.ts hands it, as the asking principal sees them (a per-user connector: its own
// instance, its own login records). In team mode a per-user login's browser comes back to
// atrium's own callback (team-callbacks.ts), and a shared connector's login is the operator's
// (`atrium auth login` on atrium's machine): one person never logs everyone in.
import type { ConnectorConfig } from "../config/schema.js";
import type { LoginRecords } from "./store.js";
import { AtriumError, type NextAction } from "../support/errors.js";
import { OAUTH_LOGIN_WAIT_MS, OAUTH_TOOL_WAIT_MS } from "../decisions/generated/spec.js";
import { oauthOffered } from "./offered.js";
import type { LoginStart } from "./flow.js";
import type { LoginOwners } from "./store.js";
import type { TeamCallbacks } from "./team-callbacks.js";
import { LOCAL_PRINCIPAL } from "../support/principal.js";

/** What the authorizer may see and do of one connector. */
export interface ConnectorPort {
  id: string;
  config: ConnectorConfig;
  state(): string;
  toolCount(): number;
  /** Waits, bounded, for a start attempt in progress. */
  settled(): Promise<void>;
  /** Starts it again after a login. */
  authorized(): Promise<void>;
  /** Its current error (auth_required while it needs a login). */
  unavailable(): AtriumError;
}

export type Authorization =
  | { connector: string; status: "ready"; tools: number }
  | { connector: string; status: "login_pending"; authorizationUrl: string; waitEndsAt: string };

/** Asks the host to open a URL (URL-mode elicitation): `open` answers the person's action, `done` says the login it was for completed. */
export interface OpenUrl {
  open(url: string, message: string): Promise<"accept" | "decline" | "cancel">;
  done(): Promise<void>;
}

/** `connected`: the login completed and the connector was started again (never rejects). `key`: its principal and connector. */
interface Pending { key: string; url: string; connected: Promise<void>; failed?: Error; endsAt: number; cancel(): void }

/** Who asks, and which connectors they may see (a hidden one answers as one that does not exist). */
export interface Asker { principalId: string; visible(connectorId: string): boolean }

const LOCAL_ASKER: Asker = { principalId: LOCAL_PRINCIPAL.id, visible: () => true };
const perUser = (config: ConnectorConfig) => config.kind === "http" && config.auth === "per-user";

const again = (connector: string): NextAction => ({ tool: "authorize_connector", arguments: { connector }, purpose: "start the login again" });

export class Authorizer {
  private readonly pending = new Map<string, Pending>();

  /**
   * `connectors(owner)`: the connectors as that principal sees them. `toolWaitMs`: how long one
   * call waits for a pending login (OAUTH_TOOL_WAIT_MS). `team`: atrium's own login callback, in
   * team mode (serve --http with auth).
   */
  constructor(private readonly connectors: (owner: string) => ConnectorPort[], private readonly store: LoginOwners, private readonly toolWaitMs = OAUTH_TOOL_WAIT_MS, private readonly team?: TeamCallbacks) {}

  /** Runs one authorize_connector call for `asker` (`local` when none is named). */
  async authorize(id: string, opts: { openUrl?: OpenUrl; signal?: AbortSignal; asker?: Asker } = {}): Promise<Authorization> {
    const asker = opts.asker ?? LOCAL_ASKER;
    const offered = this.connectors(asker.principalId).filter((x) => oauthOffered(x.config) && asker.visible(x.id));
    const c = offered.find((x) => x.id === id);
    if (!c) {
      const http = offered.map((x) => x.id);
      throw new AtriumError("invalid_args", `${JSON.stringify(id)} is not a remote (Streamable HTTP) connector atrium logs in to; ${http.length ? `those are: ${http.join(", ")}` : "none is configured"}`);
    }
    const teamLogin = this.team !== undefined && asker.principalId !== LOCAL_PRINCIPAL.id;
    if (teamLogin && !perUser(c.config)) {
      throw new AtriumError("auth_required", `${c.id} has one login for everyone who uses this atrium, so no one person logs it in from a host: the operator runs \`atrium auth login ${c.id}\` on atrium's machine, or sets "auth": "per-user" on it so that each person logs in with their own account`, { details: { connector: c.id }, recovering: false });
    }
    await c.settled();
    if (c.state() === "ready") return this.ready(c);
    const key = JSON.stringify([asker.principalId, id]);
    const store = this.store.ownedBy(perUser(c.config) ? asker.principalId : LOCAL_PRINCIPAL.id);
    let p = this.pending.get(key);
    if (!p) {
      if (c.state() !== "needs_auth") throw c.unavailable();
      // A login that happened elsewhere (`atrium auth login` in a terminal) is picked up first; not
      // stored tokens a 403 found too narrow (a step-up waits for a new login, spec/oauth.md O14).
      const record = store.get(c.id, c.config.kind === "http" ? c.config.url : "");
      if (record?.tokens && record.stepUpScope === undefined) {
        await c.authorized();
        if (c.state() === "ready") return this.ready(c);
      }
      const start = await this.begin(c, store, teamLogin ? this.team : undefined);
      if (start.kind === "authorized") return this.connect(c);
      p = this.track(c, key, start);
      if (opts.openUrl) {
        const action = await opts.openUrl.open(p.url, `Log in to ${c.id} so atrium can use its tools.`).catch(() => "cancel" as const);
        if (action !== "accept") {
          this.drop(p);
          throw new AtriumError("auth_required", `the person did not open the login for ${c.id} (${action}); call authorize_connector again when they want to log in`, { details: { connector: c.id }, nextAction: again(c.id), recovering: false });
        }
      } else {
        return this.pendingAnswer(c, p);
      }
    }
    const answer = await this.wait(c, p, opts.signal);
    if (answer.status === "ready") await opts.openUrl?.done().catch(() => {});
    return answer;
  }

  private async begin(c: ConnectorPort, store: LoginRecords, team: TeamCallbacks | undefined): Promise<LoginStart> {
    if (c.config.kind !== "http") throw new AtriumError("invalid_args", `${c.id} is not a remote connector`);
    try {
      // The login flow (and with it the MCP client SDK's auth) loads with the first login, never at start.
      const { startLogin } = await import("./flow.js");
      return await startLogin(c.config, store, team && { receiver: async (state, waitMs) => team.open(state, waitMs) });
    } catch (e) {
      throw new AtriumError("auth_required", `${c.id}: ${(e as Error).message}`, { details: { connector: c.id }, nextAction: again(c.id), recovering: false });
    }
  }

  private track(c: ConnectorPort, key: string, start: Extract<LoginStart, { kind: "pending" }>): Pending {
    const p: Pending = { key, url: start.authorizationUrl, connected: Promise.resolve(), endsAt: Date.now() + OAUTH_LOGIN_WAIT_MS, cancel: start.cancel };
    // Whoever waits or not, a completed login brings the connector back; a failed one is kept for the next call to tell.
    p.connected = start.done.then(
      async () => {
        await c.authorized();
        if (this.pending.get(key) === p) this.pending.delete(key); // a later need for a login starts a new one
      },
      (e: unknown) => { p.failed = e instanceof Error ? e : new Error(String(e)); },
    );
    this.pending.set(key, p);
    return p;
  }

  private drop(p: Pending): void {
    if (this.pending.get(p.key) === p) this.pending.delete(p.key);
    p.cancel();
  }

  /** Waits up to toolWaitMs for a pending login, then answers what is true then. */
  private async wait(c: ConnectorPort, p: Pending, signal?: AbortSignal): Promise<Authorization> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => { timer = setTimeout(r, this.toolWaitMs); });
    const aborted = new Promise<void>((r) => signal?.addEventListener("abort", () => r(), { once: true }));
    await Promise.race([p.connected, bound, aborted]);
    clearTimeout(timer);
    if (p.failed) {
      this.drop(p);
      throw new AtriumError("auth_required", `${c.id}: ${p.failed.message}; call authorize_connector again to start over`, { details: { connector: c.id }, nextAction: again(c.id), recovering: false });
    }
    if (c.state() === "ready") {
      this.drop(p);
      return this.ready(c);
    }
    if (Date.now() >= p.endsAt) {
      this.drop(p);
      throw new AtriumError("auth_required", `no login for ${c.id} arrived within ${OAUTH_LOGIN_WAIT_MS} ms (OAUTH_LOGIN_WAIT_MS); call authorize_connector again for a new URL`, { details: { connector: c.id }, nextAction: again(c.id), recovering: false });
    }
    return this.pendingAnswer(c, p);
  }

  private async connect(c: ConnectorPort): Promise<Authorization> {
    await c.authorized();
    if (c.state() === "ready") return this.ready(c);
    throw c.unavailable();
  }

  private ready(c: ConnectorPort): Authorization {
    return { connector: c.id, status: "ready", tools: c.toolCount() };
  }

  private pendingAnswer(c: ConnectorPort, p: Pending): Authorization {
    return { connector: c.id, status: "login_pending", authorizationUrl: p.url, waitEndsAt: new Date(p.endsAt).toISOString() };
  }
}
