// The service behind authorize_connector: one login at a time per connector, kept across calls
// (a later call while it is pending waits, bounded, for it), and the connector started again when
// it completes, whoever is waiting. It reaches connectors only through the port app.ts hands it.
import type { ConnectorConfig } from "../config/schema.js";
import { AtriumError, type NextAction } from "../support/errors.js";
import { OAUTH_LOGIN_WAIT_MS, OAUTH_TOOL_WAIT_MS } from "../decisions/generated/spec.js";
import { oauthOffered } from "./offered.js";
import { startLogin, type LoginStart } from "./flow.js";
import type { TokenStore } from "./store.js";

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

/** `connected`: the login completed and the connector was started again (never rejects). */
interface Pending { url: string; connected: Promise<void>; failed?: Error; endsAt: number; cancel(): void }

const again = (connector: string): NextAction => ({ tool: "authorize_connector", arguments: { connector }, purpose: "start the login again" });

export class Authorizer {
  private readonly pending = new Map<string, Pending>();

  /** `toolWaitMs`: how long one call waits for a pending login (OAUTH_TOOL_WAIT_MS). */
  constructor(private readonly connectors: () => ConnectorPort[], private readonly store: TokenStore, private readonly toolWaitMs = OAUTH_TOOL_WAIT_MS) {}

  /** Runs one authorize_connector call. */
  async authorize(id: string, opts: { openUrl?: OpenUrl; signal?: AbortSignal } = {}): Promise<Authorization> {
    const c = this.connectors().find((x) => x.id === id && oauthOffered(x.config));
    if (!c) {
      const http = this.connectors().filter((x) => oauthOffered(x.config)).map((x) => x.id);
      throw new AtriumError("invalid_args", `${JSON.stringify(id)} is not a remote (Streamable HTTP) connector atrium logs in to; ${http.length ? `those are: ${http.join(", ")}` : "none is configured"}`);
    }
    await c.settled();
    if (c.state() === "ready") return this.ready(c);
    let p = this.pending.get(id);
    if (!p) {
      if (c.state() !== "needs_auth") throw c.unavailable();
      // A login that happened elsewhere (`atrium auth login` in a terminal) is picked up first.
      if (this.store.get(c.id, c.config.kind === "http" ? c.config.url : "")?.tokens) {
        await c.authorized();
        if (c.state() === "ready") return this.ready(c);
      }
      const start = await this.begin(c);
      if (start.kind === "authorized") return this.connect(c);
      p = this.track(c, start);
      if (opts.openUrl) {
        const action = await opts.openUrl.open(p.url, `Log in to ${c.id} so atrium can use its tools.`).catch(() => "cancel" as const);
        if (action !== "accept") {
          this.drop(c.id, p);
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

  private async begin(c: ConnectorPort): Promise<LoginStart> {
    if (c.config.kind !== "http") throw new AtriumError("invalid_args", `${c.id} is not a remote connector`);
    try {
      return await startLogin(c.config, this.store);
    } catch (e) {
      throw new AtriumError("auth_required", `${c.id}: ${(e as Error).message}`, { details: { connector: c.id }, nextAction: again(c.id), recovering: false });
    }
  }

  private track(c: ConnectorPort, start: Extract<LoginStart, { kind: "pending" }>): Pending {
    const p: Pending = { url: start.authorizationUrl, connected: Promise.resolve(), endsAt: Date.now() + OAUTH_LOGIN_WAIT_MS, cancel: start.cancel };
    // Whoever waits or not, a completed login brings the connector back; a failed one is kept for the next call to tell.
    p.connected = start.done.then(
      async () => {
        await c.authorized();
        if (this.pending.get(c.id) === p) this.pending.delete(c.id); // a later need for a login starts a new one
      },
      (e: unknown) => { p.failed = e instanceof Error ? e : new Error(String(e)); },
    );
    this.pending.set(c.id, p);
    return p;
  }

  private drop(id: string, p: Pending): void {
    if (this.pending.get(id) === p) this.pending.delete(id);
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
      this.drop(c.id, p);
      throw new AtriumError("auth_required", `${c.id}: ${p.failed.message}; call authorize_connector again to start over`, { details: { connector: c.id }, nextAction: again(c.id), recovering: false });
    }
    if (c.state() === "ready") {
      this.drop(c.id, p);
      return this.ready(c);
    }
    if (Date.now() >= p.endsAt) {
      this.drop(c.id, p);
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
