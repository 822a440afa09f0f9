// Approvals inside programs (spec/approvals.md, P1–P15). Fails closed.
import { ApprovalAsk, ApprovalCause, ApprovalChannel, ApprovalMark, ApprovalOffer, ApprovalOutcome, ApprovalOutcomeReason, ApprovalReply, Budget, BudgetCheck, DownstreamAsk, ElicitationSupport, GrantMatch, GrantState, LimitCheck, QuestionFit, QuestionMode, QuestionOwner, Revision } from "./generated/spec";
import { budgetCheck, limitAccepts } from "./budgets";

/** Packs a question's answer: answer | channel << 4 | offer << 8. */
function packAsk(answer: i32, channel: i32, offer: i32): i32 {
  return answer | (channel << 4) | (offer << 8);
}

/** Packs what follows an answer: outcome | reason << 4 | grant << 12. */
function packReply(outcome: i32, reason: i32, grant: i32): i32 {
  return outcome | (reason << 4) | (grant << 12);
}

function isWhole(v: f64): bool {
  return isFinite<f64>(v) && Math.floor(v) == v;
}

function isMatch(m: i32): bool {
  return m >= GrantMatch.same && m <= GrantMatch.other;
}

function isCause(c: i32): bool {
  return c >= ApprovalCause.write && c <= ApprovalCause.data_flow;
}

/** P1–P7, P14, P15: whether a program's write, or its data flow, is asked, run under a grant, or refused, packed (see packAsk). */
export function approvalAsk(revision: i32, elicitation: i32, mark: i32, grant: i32, grantTool: i32, grantKeys: i32, grantRun: i32, grantLeft: f64, asked: f64, askLimit: f64, grantLimit: f64, cause: i32, grantCause: i32): i32 {
  const none = ApprovalChannel.none, notOffered = ApprovalOffer.not_offered;
  if (revision < Revision.r2025_11_25 || revision > Revision.r2026_07_28 || elicitation < ElicitationSupport.none || elicitation > ElicitationSupport.form_and_url || mark < ApprovalMark.in_programs || mark > ApprovalMark.outside_programs_only || grant < GrantState.none || grant > GrantState.held || !isMatch(grantTool) || !isMatch(grantKeys) || !isMatch(grantRun) || !isCause(cause) || !isCause(grantCause)) {
    return packAsk(ApprovalAsk.invalid_facts, none, notOffered); // P7
  }
  if (limitAccepts(Budget.approval_grant_calls, grantLimit) != LimitCheck.ok || !isWhole(grantLeft) || grantLeft < 0 || grantLeft > grantLimit) return packAsk(ApprovalAsk.invalid_facts, none, notOffered); // P7
  const room = budgetCheck(Budget.approvals_per_run, asked, 1, askLimit);
  if (room != BudgetCheck.ok && room != BudgetCheck.over) return packAsk(ApprovalAsk.invalid_facts, none, notOffered); // P7
  if (mark == ApprovalMark.outside_programs_only) return packAsk(ApprovalAsk.refuse_operator_outside_programs, none, notOffered); // P3
  const covers = cause == ApprovalCause.write || grantCause == ApprovalCause.data_flow; // P15
  if (grant == GrantState.held && grantTool == GrantMatch.same && grantKeys == GrantMatch.same && grantRun == GrantMatch.same && grantLeft >= 1 && covers) {
    return packAsk(ApprovalAsk.run_granted, none, notOffered); // P4
  }
  if (elicitation != ElicitationSupport.form && elicitation != ElicitationSupport.form_and_url) {
    return packAsk(cause == ApprovalCause.data_flow ? ApprovalAsk.refuse_data_flow : ApprovalAsk.refuse_no_elicitation, none, notOffered); // P2, P14
  }
  if (room == BudgetCheck.over) return packAsk(ApprovalAsk.refuse_budget, none, notOffered); // P5
  const channel = revision == Revision.r2025_11_25 ? ApprovalChannel.elicitation_request : ApprovalChannel.input_required; // P1
  return packAsk(ApprovalAsk.ask, channel, grantLimit >= 1 ? ApprovalOffer.offered : notOffered); // P6
}

/** P8–P10: what follows the person's answer, packed (see packReply). */
export function approvalReply(reply: i32, offer: i32, grantLimit: f64): i32 {
  if (reply < ApprovalReply.accept_once || reply > ApprovalReply.malformed || offer < ApprovalOffer.not_offered || offer > ApprovalOffer.offered || limitAccepts(Budget.approval_grant_calls, grantLimit) != LimitCheck.ok || (offer == ApprovalOffer.offered && grantLimit < 1)) {
    return packReply(ApprovalOutcome.declined, ApprovalOutcomeReason.invalid_facts, 0); // P10
  }
  if (reply == ApprovalReply.accept_once) return packReply(ApprovalOutcome.run_once, ApprovalOutcomeReason.accepted, 0); // P8
  if (reply == ApprovalReply.accept_rest) {
    if (offer != ApprovalOffer.offered) return packReply(ApprovalOutcome.declined, ApprovalOutcomeReason.rest_not_offered, 0); // P9
    return packReply(ApprovalOutcome.run_and_grant, ApprovalOutcomeReason.accepted_rest, <i32>grantLimit); // P8
  }
  if (reply == ApprovalReply.decline) return packReply(ApprovalOutcome.declined, ApprovalOutcomeReason.declined, 0); // P8
  if (reply == ApprovalReply.cancel) return packReply(ApprovalOutcome.declined, ApprovalOutcomeReason.cancelled, 0); // P8
  return packReply(ApprovalOutcome.declined, ApprovalOutcomeReason.malformed, 0); // P9
}

/** P12: whether a downstream's question goes on to the host, or is declined on the person's behalf (and why). */
export function downstreamAsk(revision: i32, elicitation: i32, mode: i32, fit: i32): i32 {
  if (revision < Revision.r2025_11_25 || revision > Revision.r2026_07_28 || elicitation < ElicitationSupport.none || elicitation > ElicitationSupport.form_and_url || mode < QuestionMode.form || mode > QuestionMode.other || fit < QuestionFit.fits || fit > QuestionFit.too_large) {
    return DownstreamAsk.invalid_facts;
  }
  if (fit == QuestionFit.too_large) return DownstreamAsk.decline_too_large;
  if (mode == QuestionMode.other) return DownstreamAsk.decline_unknown_mode;
  if (revision == Revision.r2026_07_28) return DownstreamAsk.decline_no_channel;
  const both = elicitation == ElicitationSupport.form_and_url;
  if (mode == QuestionMode.form) return both || elicitation == ElicitationSupport.form ? DownstreamAsk.forward : DownstreamAsk.decline_not_declared;
  return both || elicitation == ElicitationSupport.url_only ? DownstreamAsk.forward : DownstreamAsk.decline_not_declared;
}

/** P13: whose question a forwarded downstream question is (the runs and direct calls in flight to the asking connector), and whether that run may still ask. */
export function downstreamOwner(runs: i32, direct: i32, asked: i32, askLimit: i32): i32 {
  if (runs < 0 || direct < 0 || asked < 0 || askLimit < 0) return QuestionOwner.invalid_facts;
  if (runs == 0) return QuestionOwner.not_a_run;
  if (runs > 1 || direct > 0) return QuestionOwner.decline_shared;
  return asked < askLimit ? QuestionOwner.run : QuestionOwner.decline_budget;
}
