// Team mode's login receiver (spec/oauth.md O13): a per-user login's browser is not on atrium's
// machine, so it comes back to atrium's own `<publicUrl>/oauth/callback`, served by
// `serve --http` (http/server.ts routes it here, before any bearer token is asked: a browser
// returning from a login has none). Each login started by `authorize_connector` opens one entry
// keyed by its `state` (random, OAUTH_STATE_BYTES); a redirect completes exactly the login whose
// state it carries, so the code is exchanged for the principal that started it, and for no one
// else. An entry is used once, ends after OAUTH_LOGIN_WAIT_MS, and at most
// TEAM_LOGINS_PENDING_MAX are open (the oldest is given up past it). The callback URL itself is
// judged by the core before a login starts (O13), and so is every redirect URI a registration
// answer names. With replicas the browser may come back to another replica than the one whose
// login waits: a state unknown here is asked of the others over the store's bus, and the one
// waiting for it answers (within STORE_OP_MS; else it is a state no login waits for).
import type { Core } from "../decisions/core.js";
import { randomUUID } from "node:crypto";
import { OAUTH_CALLBACK_PARAM_CHARS_MAX, OAUTH_LOGIN_WAIT_MS, OAuthTeamRedirect, STORE_OP_MS, TEAM_LOGINS_PENDING_MAX } from "../decisions/generated/spec.js";
import type { Bus } from "../support/bus.js";
import { isJsonObject } from "../support/json-object.js";
import { teamRedirectFacts } from "../decisions/facts/oauth.js";
import { oauthTeamRedirectText } from "../decisions/messages.js";
import { codeName } from "../decisions/code-names.js";
import { HTTP_STATUS } from "../support/wire.js";
import { PAGES, redirectOutcome, type Callback, type Receiver } from "./receiver.js";

interface Waiting { resolve(c: Callback): void; reject(e: Error): void; timer: NodeJS.Timeout }

/** One answer to a browser at the callback: a status and a plain-text page. */
export interface CallbackPage { status: number; page: string }

export class TeamCallbacks {
  /** Open logins by state, oldest first. */
  private readonly waiting = new Map<string, Waiting>();

  /** Callbacks this replica asked the others about, waiting for the answer. */
  private readonly asked = new Map<string, (page: CallbackPage) => void>();
  private bus?: Bus;

  /** `callbackUrl`: `<publicUrl>/oauth/callback` (the listen address when no publicUrl is set), read when a login starts. */
  constructor(private readonly core: Core, private readonly callbackUrl: () => string) {}

  /** With replicas: hears the other replicas' callbacks (answering those whose login waits here) and their answers to this one's. */
  async share(bus: Bus): Promise<void> {
    this.bus = bus;
    await bus.subscribe(LOGINS, (text) => {
      const m = parsed(text);
      if (typeof m?.target !== "string" || typeof m.reply !== "string" || typeof m.corr !== "string" || !this.waits(m.target)) return;
      void bus.publish(m.reply, JSON.stringify({ corr: m.corr, ...this.answerHere(m.target) })).catch(() => {});
    });
    await bus.subscribe(replyChannel(bus.replica), (text) => {
      const m = parsed(text);
      if (typeof m?.corr === "string" && typeof m.status === "number" && typeof m.page === "string") this.asked.get(m.corr)?.({ status: m.status, page: m.page });
    });
  }

  /** Why `uri` may not receive a team login's code (O13), or undefined when it is atrium's own callback over TLS or on loopback. */
  refusal(uri: string): string | undefined {
    const callback = this.callbackUrl();
    const answer = this.core.oauthTeamRedirect(teamRedirectFacts(uri, callback));
    if (answer === OAuthTeamRedirect.accepted) return undefined;
    return oauthTeamRedirectText[codeName(OAuthTeamRedirect, answer) ?? "invalid_facts"](uri, callback);
  }

  /** A receiver for the login that sent `state`; throws, before anything is sent anywhere, when the callback URL is refused. */
  open(state: string, waitMs: number = OAUTH_LOGIN_WAIT_MS): Receiver {
    const redirectUrl = this.callbackUrl();
    const refused = this.refusal(redirectUrl);
    if (refused) throw new Error(`the login cannot start: ${refused}`);
    let settle!: { resolve(c: Callback): void; reject(e: Error): void };
    const result = new Promise<Callback>((resolve, reject) => { settle = { resolve, reject }; });
    result.catch(() => {}); // whoever stopped waiting sees no unhandled rejection
    const end = (e: Error) => {
      const w = this.waiting.get(state);
      if (!w) return;
      this.waiting.delete(state);
      clearTimeout(w.timer);
      w.reject(e);
    };
    const timer = setTimeout(() => end(new Error(`no login arrived within ${waitMs} ms (OAUTH_LOGIN_WAIT_MS)`)), waitMs);
    timer.unref();
    this.waiting.set(state, { ...settle, timer });
    if (this.waiting.size > TEAM_LOGINS_PENDING_MAX) {
      const oldest = this.waiting.keys().next().value!;
      const w = this.waiting.get(oldest)!;
      this.waiting.delete(oldest);
      clearTimeout(w.timer);
      w.reject(new Error(`given up: more than ${TEAM_LOGINS_PENDING_MAX} logins were waiting for their browser (TEAM_LOGINS_PENDING_MAX)`));
    }
    return { redirectUrl, result, close: () => end(new Error("the login was not completed")), refusal: (uri) => this.refusal(uri), native: false };
  }

  /** Logins waiting for their browser now. */
  get pending(): number {
    return this.waiting.size;
  }

  /** The answer to a GET of the callback with this request target: the login its state names completes (or fails), once, on whichever replica it waits. */
  async answer(target: string): Promise<CallbackPage> {
    if (target.length > OAUTH_CALLBACK_PARAM_CHARS_MAX) return { status: HTTP_STATUS.badRequest, page: PAGES.tooLong };
    if (this.waits(target) || !this.bus) return this.answerHere(target);
    const bus = this.bus;
    const corr = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    try {
      const answered = new Promise<CallbackPage>((resolve) => this.asked.set(corr, resolve));
      const listening = await bus.publish(LOGINS, JSON.stringify({ corr, reply: replyChannel(bus.replica), target }));
      // Only this replica hears: no other holds a login.
      if (listening <= 1) return this.answerHere(target);
      const late = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), STORE_OP_MS); });
      return (await Promise.race([answered, late])) ?? this.answerHere(target);
    } catch {
      return this.answerHere(target);
    } finally {
      clearTimeout(timer);
      this.asked.delete(corr);
    }
  }

  /** Whether the login this target's state names waits in this process. */
  private waits(target: string): boolean {
    const state = new URL(target, "http://atrium.invalid").searchParams.get("state");
    return state !== null && this.waiting.has(state);
  }

  private answerHere(target: string): CallbackPage {
    const q = new URL(target, "http://atrium.invalid").searchParams;
    const state = q.get("state");
    const w = state === null ? undefined : this.waiting.get(state);
    // A state no login is waiting for (never sent, used, expired, another atrium's) exchanges nothing.
    if (!w || state === null) return { status: HTTP_STATUS.badRequest, page: PAGES.wrongState };
    this.waiting.delete(state);
    clearTimeout(w.timer);
    const outcome = redirectOutcome(q);
    if (!outcome.ok) {
      w.reject(outcome.error);
      return { status: HTTP_STATUS.badRequest, page: PAGES.failed };
    }
    w.resolve(outcome.callback);
    return { status: HTTP_STATUS.ok, page: PAGES.done };
  }
}

/** The channel every replica hears for callbacks whose login may wait elsewhere. */
const LOGINS = "logins";
const replyChannel = (replica: string) => `logins:${replica}`;

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const m: unknown = JSON.parse(text);
    return isJsonObject(m) ? m : undefined;
  } catch {
    return undefined;
  }
}
