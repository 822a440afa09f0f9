// The question a program's write puts to the person, on the channel of the execute_code request
// that runs the program (spec/approvals.md P1): on 2025-11-25 an elicitation/create request in
// form mode, related to that request (on 2026-07-28 the same question rides an input-required
// result: mcp/parked-runs.ts). It owns the question's text (the tool, the exact arguments,
// the program's reason and source, every control, bidi and zero-width character escaped; the
// arguments in full, the rest cut at its bound in spec/bounds.md with the full length stated),
// its one-field schema, and reading the result as the person's answer. Withdrawing: the run's
// signal cancels the request (the SDK sends notifications/cancelled); the wait budget is its
// timeout. Decides nothing: whether to ask, and what the answer does, are the core's.
import { SdkError, SdkErrorCode, type ElicitRequestFormParams, type ServerContext } from "@modelcontextprotocol/server";
import { APPROVAL_SOURCE_SHOWN_CHARS, APPROVAL_TOOL_SHOWN_CHARS, ApprovalChannel, ApprovalReply, Revision } from "../decisions/generated/spec.js";
import { CHOICE_FIELD, CHOICES, elicitationOf, replyOf } from "../decisions/facts/approval.js";
import { requestCapabilities } from "../decisions/facts/host.js";
import { approvalQuestionText as words } from "../decisions/messages.js";
import type { Answer, Question, QuestionChannel } from "../calls/approvals.js";
import { clip, cutText } from "../support/text/clip.js";
import { escapeOneLine, escapeShown } from "../support/text/escape.js";

/** Program text, its lines kept and every other control, bidi or zero-width character escaped, cut at `max` characters, saying how long it was in all. */
const shown = (text: string, max: number) => cutText(escapeShown(text, { keepLines: true }), max, words.cut);
/** Text a downstream server wrote, escaped on one line and at most APPROVAL_TOOL_SHOWN_CHARS. */
const oneLine = (text: string) => clip(escapeOneLine(text), APPROVAL_TOOL_SHOWN_CHARS);

export function questionParams(q: Question): ElicitRequestFormParams {
  const message = [
    // A flow names what the run read and where it now sends (spec/approvals.md P14); connector ids are atrium's own words.
    q.flowFrom ? words.flowIntro(q.flowFrom.join(", "), oneLine(q.entry.address)) : words.intro,
    // The title and the address are the downstream server's words: one line each, cut.
    words.tool(oneLine(q.entry.title ?? q.entry.name), oneLine(q.entry.address), q.entry.connectorId),
    // In full, never cut: arguments over APPROVAL_ARGS_SHOWN_CHARS are refused before any question (calls/approvals.ts).
    `${words.args}: ${q.argsShown}`,
    // One line: a reason cannot lay out lines of its own that read like atrium's.
    `${words.reason}: ${q.reason === undefined ? words.noReason : escapeOneLine(q.reason)}`,
    `${words.source}:\n${shown(q.source, APPROVAL_SOURCE_SHOWN_CHARS)}`,
  ].join("\n");
  const choices = [{ const: CHOICES.once, title: words.once }, ...(q.restCalls > 0 ? [{ const: CHOICES.rest, title: words.rest(q.restCalls) }] : [])];
  return {
    mode: "form",
    message,
    requestedSchema: { type: "object", properties: { [CHOICE_FIELD]: { type: "string", title: words.choice, oneOf: choices } }, required: [CHOICE_FIELD] },
  };
}

/**
 * The question channel of one execute_code request. The elicitation/create request goes out
 * through the request's own `send` rather than `elicitInput`: the SDK's elicitInput refuses a
 * client whose `elicitation` is an empty object, which 2025-11-25 reads as form mode (the facts
 * table of spec/approvals.md), and it throws on an answer outside the schema, which is an answer
 * here (`malformed`, P9).
 */
export function questionChannel(revision: Revision, session: unknown, ctx: ServerContext): QuestionChannel {
  return {
    revision,
    elicitation: elicitationOf(requestCapabilities(revision, session, ctx.mcpReq.envelope)),
    // On 2026-07-28 the question is an input-required result of the run's own request, which the
    // run parks for (mcp/parked-runs.ts); a request's elicitation/create is 2025-11-25's alone.
    serves: revision === Revision.r2025_11_25 ? ApprovalChannel.elicitation_request : ApprovalChannel.none,
    async ask(q, { signal, timeoutMs }): Promise<Answer> {
      try {
        const result = await ctx.mcpReq.send({ method: "elicitation/create", params: questionParams(q) }, { signal, timeout: timeoutMs });
        return { reply: replyOf(result), timedOut: false };
      } catch (e) {
        // The run ended: nothing is answered, and nothing runs.
        signal.throwIfAborted();
        if (e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout) return { reply: ApprovalReply.cancel, timedOut: true };
        // An error in place of an answer, or a result the SDK could not read: not one of the answers offered.
        return { reply: ApprovalReply.malformed, timedOut: false };
      }
    },
  };
}
