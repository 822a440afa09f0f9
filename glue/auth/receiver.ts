// The loopback redirect receiver of one login (RFC 8252 §7.3): an HTTP server on 127.0.0.1 (an
// ephemeral port unless the config names one) that takes exactly one redirect to /callback whose
// `state` is the one this login sent. A missing or wrong state is refused (400, and the page says
// so; nothing is exchanged), so is a second redirect after the one accepted (a replay), and so is
// an overlong query. It answers the browser with a short plain page and closes after use, when
// the login is given up, or when the login wait (OAUTH_LOGIN_WAIT_MS) runs out.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { OAUTH_CALLBACK_PARAM_CHARS_MAX, OAUTH_LOGIN_WAIT_MS } from "../decisions/generated/spec.js";
import { HTTP_STATUS, PLAIN_PAGE } from "../support/wire.js";
import { notLoopback } from "../config/loopback.js";

export interface Callback { code: string; iss?: string }

/** Where one login's browser comes back: this loopback receiver, or atrium's own team callback (team-callbacks.ts). */
export interface Receiver {
  /** http://127.0.0.1:<port>/callback, or <publicUrl>/oauth/callback */
  redirectUrl: string;
  /** The accepted redirect's code; rejects when the AS answered an error, the wait ran out, or the receiver was closed. */
  result: Promise<Callback>;
  close(): void;
  /** Why a redirect URI a registration answer names may not receive this login's code (O1–O3, or O13 in team mode), if it may not. */
  refusal(uri: string): string | undefined;
  /** A native app's loopback receiver (RFC 8252), or atrium's own web callback (team mode). */
  readonly native: boolean;
}

const PAGE = PLAIN_PAGE;

/** The pages a redirect is answered with, in the person's words (shared by both receivers). */
export const PAGES = {
  tooLong: "Refused: this request is too long to be a login redirect.\n",
  replay: "Refused: this login was already completed; a second redirect is not accepted.\n",
  wrongState: "Refused: the state of this redirect does not match the login atrium started, so nothing was exchanged. Start the login again from atrium.\n",
  failed: "The login did not complete. You can close this window and start it again from atrium.\n",
  done: "Signed in to atrium's connector. You can close this window.\n",
} as const;

/** What a redirect with the expected state carries: its code, or why the login failed (the AS's error, bounded). */
export function redirectOutcome(q: URLSearchParams): { ok: true; callback: Callback } | { ok: false; error: Error } {
  const error = q.get("error");
  const code = q.get("code");
  if (error || !code) {
    const described = q.get("error_description");
    return { ok: false, error: new Error(`the authorization server answered ${error ?? "without a code"}${described ? ` (${described.slice(0, OAUTH_CALLBACK_PARAM_CHARS_MAX)})` : ""}`) };
  }
  return { ok: true, callback: { code, iss: q.get("iss") ?? undefined } };
}

/** `port` 0 (the default) is an ephemeral port. */
export async function startReceiver(expectedState: string, opts: { port?: number; path?: string; waitMs?: number } = {}): Promise<Receiver> {
  const path = opts.path ?? "/callback";
  let settle!: { resolve: (c: Callback) => void; reject: (e: Error) => void };
  const result = new Promise<Callback>((resolve, reject) => { settle = { resolve, reject }; });
  result.catch(() => {}); // a caller that stopped waiting does not see an unhandled rejection
  let used = false;
  let closed = false;
  const http = createServer((req, res) => {
    const raw = req.url ?? "/";
    if (raw.length > OAUTH_CALLBACK_PARAM_CHARS_MAX) {
      res.writeHead(HTTP_STATUS.badRequest, PAGE).end(PAGES.tooLong);
      return;
    }
    const url = new URL(raw, "http://127.0.0.1");
    if (url.pathname !== path) {
      res.writeHead(HTTP_STATUS.notFound, PAGE).end("Not found.\n");
      return;
    }
    const q = url.searchParams;
    if (used) {
      res.writeHead(HTTP_STATUS.badRequest, PAGE).end(PAGES.replay);
      return;
    }
    if (q.get("state") !== expectedState) {
      res.writeHead(HTTP_STATUS.badRequest, PAGE).end(PAGES.wrongState);
      return;
    }
    used = true;
    const outcome = redirectOutcome(q);
    if (!outcome.ok) {
      res.writeHead(HTTP_STATUS.badRequest, PAGE).end(PAGES.failed);
      settle.reject(outcome.error);
    } else {
      res.writeHead(HTTP_STATUS.ok, PAGE).end(PAGES.done);
      settle.resolve(outcome.callback);
    }
    res.on("finish", () => close());
  });
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    settle.reject(new Error("the login was not completed"));
    http.close();
    http.closeIdleConnections();
  };
  const timer = setTimeout(() => {
    settle.reject(new Error(`no login arrived within ${opts.waitMs ?? OAUTH_LOGIN_WAIT_MS} ms (OAUTH_LOGIN_WAIT_MS)`));
    close();
  }, opts.waitMs ?? OAUTH_LOGIN_WAIT_MS);
  timer.unref();
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return { redirectUrl: `http://127.0.0.1:${port}${path}`, result, close, refusal: notLoopback, native: true };
}
