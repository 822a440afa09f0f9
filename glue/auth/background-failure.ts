// How a failed auth exchange of a background start or call (a refresh, discovery on a 401) is
// worded for the connector's problem text, which the model reads (spec/oauth.md O12): atrium's
// own judgements (JudgedRefusal, a missed deadline, a byte cap) keep their words, also where the
// core would otherwise say the server offers no login (ownJudgement); anything else
// came from a foreign answer and is said as its kind, an HTTP status and an OAuth error code the
// SDK knows at most (any other code is the server's own text), never as the answer's text. A person's login (flow.ts) keeps the SDK's own
// wording of a malformed answer, but an OAuth error answer (whose description and raw body are the
// server's text) is said the same way (oauthErrorWords).
import { OAuthError, OAuthErrorCode, RegistrationRejectedError } from "@modelcontextprotocol/client";
import { NoAnswerInTime } from "../support/within-deadline.js";
import { clampEcho } from "../support/errors.js";

/** A refusal atrium decided itself (the core's answer in atrium's words); safe to show. */
export class JudgedRefusal extends Error {}

const STATUS = /\bHTTP (?<status>[1-5]\d\d)\b/;
const CAP = /answered more than \d+ bytes/;

const statusOf = (message: string): string => {
  const status = STATUS.exec(message)?.groups?.status;
  return status ? ` (HTTP ${status})` : "";
};

/** The OAuth error codes the SDK knows (RFC 6749 §5.2 and the extensions it reads): any other `error` is the server's own text. */
const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(OAuthErrorCode));

/** A known OAuth error code as itself; any other is not shown (it may echo what the server was sent). */
const codeWords = (code: unknown): string => (typeof code === "string" && KNOWN_CODES.has(code) ? `OAuth error ${JSON.stringify(code)}` : "an OAuth error code atrium does not know, not shown");

/** An OAuth error answer in atrium's words: its code (bounded, escaped) and HTTP status, never its description or body; undefined for any other failure. */
export function oauthErrorWords(e: unknown): string | undefined {
  if (e instanceof RegistrationRejectedError) {
    let code: unknown;
    try { code = (JSON.parse(e.body) as { error?: unknown }).error; } catch { code = undefined; }
    return `the authorization server refused the client registration (HTTP ${Number(e.status)}${typeof code === "string" ? `, ${codeWords(code)}` : ""}); its answer is not shown`;
  }
  if (!(e instanceof OAuthError)) return undefined;
  return `the authorization server refused (${codeWords(e.code)}${statusOf(e.message)}); its answer is not shown`;
}

/**
 * atrium's own judgement of an exchange (a refused resource or issuer, a missed deadline, a byte
 * cap), in its own words; undefined for a failure a foreign answer caused. Such a refusal is said
 * as it is: it is not a server that "advertises no login" (nothing refused was kept to judge by).
 */
export function ownJudgement(e: unknown): Error | undefined {
  if (e instanceof JudgedRefusal || e instanceof NoAnswerInTime) return e;
  const message = e instanceof Error ? e.message : String(e);
  return CAP.test(message) ? new Error(clampEcho(message)) : undefined;
}

/** The words for a background auth failure: never a foreign answer's body. */
export function backgroundFailure(e: unknown): Error {
  const own = ownJudgement(e);
  if (own) return own;
  const message = e instanceof Error ? e.message : String(e);
  return new Error(oauthErrorWords(e) ?? `the authorization exchange failed${statusOf(message)}; its answer is not shown`);
}
