// A downstream server's question to the person (elicitation/create, spec/approvals.md P12): its
// size checked (schema bytes, URL characters), the core's downstreamAsk judging whether it goes
// on to this host connection, the question put with a first line naming the connector that asks
// and its message cut at ELICIT_MESSAGE_CHARS_MAX, the wait bounded by ELICIT_WAIT_MS and the
// caller's signal (the downstream withdrawing it, the call that caused it ending), and the answer
// checked (a form answer over ELICIT_ANSWER_BYTES_MAX goes back as cancel) before it is the asking
// connector's, and only its: it is the answer to that connector's own request. A URL question's
// completion (notifications/elicitation/complete) is passed on under the id the host was given.
// Whose question it is (P13) the core decides from the calls out to the asking connector
// (calls/calls-in-flight.ts): one program run's is counted with its questions, its clock stopped
// while the person answers and withdrawn when the run ends; a shared one is declined.
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/server";
import type { Core } from "../decisions/core.js";
import { codeName } from "../decisions/code-names.js";
import { downstreamDeclineText, downstreamOwnerText } from "../decisions/messages.js";
import { callsInFlight } from "./calls-in-flight.js";
import { QuestionOwner, DownstreamAsk, ELICIT_ANSWER_BYTES_MAX, ELICIT_MESSAGE_CHARS_MAX, ELICIT_SCHEMA_BYTES_MAX, ELICIT_URL_CHARS_MAX, ELICIT_WAIT_MS, QuestionFit, QuestionMode, APPROVAL_TOOL_SHOWN_CHARS, type ElicitationSupport, type Revision } from "../decisions/generated/spec.js";
import { isJsonObject } from "../support/json-object.js";
import { clip, cutText } from "../support/text/clip.js";

/** The `_meta` key of a declined answer that says why atrium declined on the person's behalf. */
const DECLINED_META_KEY = "atrium/declined";

/** A decline atrium gives on the person's behalf, with the reason for the asking server. */
export const declined = (reason: string): ElicitResult => ({ action: "decline", _meta: { [DECLINED_META_KEY]: reason } });

/** Who puts a downstream's question to the person: `ask` resolves with the answer for the asking
 * connector; `complete` passes on that connector's notifications/elicitation/complete. */
export interface DownstreamAsker {
  ask(connectorId: string, params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult>;
  complete(connectorId: string, elicitationId: unknown): void;
}

/** One host connection as a place to ask: its revision and elicitation fact (P1), and the request that asks it. */
export interface HostToAsk {
  revision: Revision;
  elicitation: ElicitationSupport;
  ask(params: ElicitRequestFormParams | ElicitRequestURLParams, options: { signal: AbortSignal; timeout: number }): Promise<ElicitResult>;
  /** Sends notifications/elicitation/complete for a URL question put to this host. */
  complete(elicitationId: string): Promise<void>;
}

/** A URL question's id as the host sees it: the connector's own id under the connector's name, so two connectors' ids never meet. */
const hostElicitationId = (connectorId: string, id: unknown) => `${connectorId}/${clip(String(id ?? ""), ELICIT_URL_CHARS_MAX)}`;

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? "");

/** The question's mode and whether it fits its bounds, as the core's facts. */
function factsOf(params: Record<string, unknown>): { mode: QuestionMode; fit: QuestionFit } {
  const mode = params.mode === undefined || params.mode === "form" ? QuestionMode.form : params.mode === "url" ? QuestionMode.url : QuestionMode.other;
  const fits = mode === QuestionMode.form ? bytes(params.requestedSchema) <= ELICIT_SCHEMA_BYTES_MAX : mode === QuestionMode.url ? typeof params.url === "string" && params.url.length <= ELICIT_URL_CHARS_MAX : true;
  return { mode, fit: fits ? QuestionFit.fits : QuestionFit.too_large };
}

/** The question as the person sees it: a first line naming the connector, then its own message, cut. */
function worded(connectorId: string, message: unknown): string {
  const who = clip(connectorId.replace(/\s+/g, " "), APPROVAL_TOOL_SHOWN_CHARS);
  return `The connector "${who}" asks (atrium passes its question on):\n${cutText(typeof message === "string" ? message : "", ELICIT_MESSAGE_CHARS_MAX)}`;
}

/** The host's answer as the asking connector gets it: the action, and a form answer's content within its bound. */
function answerOf(result: unknown, mode: QuestionMode): ElicitResult {
  if (!isJsonObject(result) || (result.action !== "accept" && result.action !== "decline" && result.action !== "cancel")) return { action: "cancel" };
  if (result.action !== "accept") return { action: result.action };
  if (mode === QuestionMode.url) return { action: "accept" };
  if (!isJsonObject(result.content) || bytes(result.content) > ELICIT_ANSWER_BYTES_MAX) return { action: "cancel" };
  return { action: "accept", content: result.content as ElicitResult["content"] };
}

/** The asker for one host connection: every downstream question judged by the core, then put or declined. */
export function askerFor(core: Core, host: HostToAsk): DownstreamAsker {
  /** URL questions this host was asked and not yet told are complete, by host id. */
  const openUrls = new Set<string>();
  const ask = async (connectorId: string, params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult> => {
    const { mode, fit } = factsOf(params);
    const d = core.downstreamAsk(host.revision, host.elicitation, mode, fit);
    if (d !== DownstreamAsk.forward) {
      const name = codeName(DownstreamAsk, d);
      return declined(downstreamDeclineText[name === undefined || name === "forward" ? "invalid_facts" : name]);
    }
    const message = worded(connectorId, params.message);
    const question: ElicitRequestFormParams | ElicitRequestURLParams = mode === QuestionMode.url
      ? { mode: "url", message, url: params.url as string, elicitationId: hostElicitationId(connectorId, params.elicitationId) }
      : { mode: "form", message, requestedSchema: params.requestedSchema as ElicitRequestFormParams["requestedSchema"] };
    const put = async (withdrawn: AbortSignal, timeout: number): Promise<ElicitResult> => {
      try {
        const answer = answerOf(await host.ask(question, { signal: withdrawn, timeout }), mode);
        if (question.mode === "url" && answer.action === "accept") openUrls.add(question.elicitationId);
        return answer;
      } catch {
        return { action: "cancel" }; // withdrawn, timed out, or the host failed to answer: the person gave no answer
      }
    };
    const { runs, direct } = callsInFlight.callersOf(connectorId);
    const run = runs.length === 1 ? runs[0] : undefined;
    const owner = core.downstreamOwner(runs.length, direct, run?.approvals.questionsAsked ?? 0, run?.approvals.questionsAllowed ?? 0);
    if (owner === QuestionOwner.not_a_run) return put(signal, ELICIT_WAIT_MS);
    if (owner !== QuestionOwner.run || !run) {
      const name = codeName(QuestionOwner, owner);
      return declined(downstreamOwnerText[name === "decline_shared" || name === "decline_budget" ? name : "invalid_facts"]);
    }
    const answer = await run.approvals.downstream(run.clock, signal, (withdrawn, room) => put(withdrawn, Math.min(room, ELICIT_WAIT_MS)));
    return answer ?? declined(downstreamOwnerText.wait_spent);
  };
  // Only a URL question this host accepted, from the same connector, is passed on as complete, once.
  const complete = (connectorId: string, elicitationId: unknown) => {
    const id = hostElicitationId(connectorId, elicitationId);
    if (openUrls.delete(id)) void host.complete(id).catch(() => {});
  };
  return { ask, complete };
}
