// How a failed auth exchange of a background start or call (a refresh, discovery on a 401) is
// worded for the connector's problem text, which the model reads (spec/oauth.md O12): atrium's
// own judgements (JudgedRefusal, a missed deadline, a byte cap) keep their words; anything else
// came from a foreign answer and is said as its kind, an HTTP status and a bounded, escaped OAuth
// error code at most, never as the answer's text.
import { OAuthError } from "@modelcontextprotocol/client";
import { NoAnswerInTime } from "./bounded-fetch.js";
import { clampEcho } from "../support/errors.js";

/** A refusal atrium decided itself (the core's answer in atrium's words); safe to show. */
export class JudgedRefusal extends Error {}

const STATUS = /\bHTTP (?<status>[1-5]\d\d)\b/;
const CAP = /answered more than \d+ bytes/;

/** The words for a background auth failure: never a foreign answer's body. */
export function backgroundFailure(e: unknown): Error {
  if (e instanceof JudgedRefusal || e instanceof NoAnswerInTime) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (CAP.test(message)) return new Error(clampEcho(message));
  if (e instanceof OAuthError) return new Error(`the authorization server refused (OAuth error ${JSON.stringify(clampEcho(String(e.code)))})`);
  const status = STATUS.exec(message)?.groups?.status;
  return new Error(`the authorization exchange failed${status ? ` (HTTP ${status})` : ""}; its answer is not shown`);
}
