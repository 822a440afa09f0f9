// One program run's approvals (spec/approvals.md): what the run has asked the person, how long it
// has waited, and the standing grants it holds (at most one per tool and argument key set, with
// the calls left). For each call of a tool that may write it extracts the facts, asks the core
// (approvalAsk), and does what the answer says: run under a grant, refuse, or put the question
// through the request's channel with the run's wall clock stopped (P11) and the answer judged by
// the core (approvalReply). Questions of one run are put one at a time, in the order of the calls.
// Each question asked, and each write let through or turned down by an answer or a grant, is an
// activity event (connector, tool and a reason code: never the arguments, the reason or the source).
import type { Core } from "../decisions/core.js";
import type { CatalogEntry } from "../catalog/entry.js";
import { APPROVAL_ARGS_SHOWN_CHARS, ApprovalAsk, ApprovalCause, ApprovalOffer, ApprovalOutcome, ApprovalOutcomeReason, Budget, BudgetCheck, GrantMatch, GrantState, type ApprovalChannel, type ApprovalReply, type ElicitationSupport, type Revision } from "../decisions/generated/spec.js";
import { codeName } from "../decisions/code-names.js";
import { argKeySet, markOf } from "../decisions/facts/approval.js";
import { approvalDeclinedText, approvalRefusalText } from "../decisions/messages.js";
import { AtriumError, overBudget } from "../support/errors.js";
import { approvalRequired, dataFlowRefused } from "./approval-refusal.js";
import { noActivity, type ActivitySink } from "../activity/events.js";
import { escapeShown } from "../support/text/escape.js";

/** A write whose arguments the question could not show in full: invalid_args naming the bound, before anything is asked. */
const argsTooLongToShow = (entry: CatalogEntry, chars: number) => new AtriumError(
  "invalid_args",
  `${entry.address} was not asked and did not run: its arguments are ${chars} characters as shown, over APPROVAL_ARGS_SHOWN_CHARS (${APPROVAL_ARGS_SHOWN_CHARS}), and a question never hides part of them; pass smaller arguments (split the write, or leave out what the tool does not need)`,
  { details: { address: entry.address, bound: "APPROVAL_ARGS_SHOWN_CHARS", limit: APPROVAL_ARGS_SHOWN_CHARS, chars } },
);

/** What the person is shown: the call (its arguments as JSON, escaped and in full), the program's reason and source, and how many further calls "the rest" would cover (0: not offered). */
export interface Question { entry: CatalogEntry; argsShown: string; reason?: string; source: string; restCalls: number; flowFrom?: readonly string[] }
/** The person's answer as a reply code; `timedOut` when the wait ran out with the question open (then the reply is `cancel`). */
export interface Answer { reply: ApprovalReply; timedOut: boolean }

/** The channel one execute_code request can put questions through, and the facts of its host. */
export interface QuestionChannel {
  revision: Revision;
  elicitation: ElicitationSupport;
  /** How this channel puts a question (ApprovalChannel): an elicitation request, an input-required result, or none. */
  serves: ApprovalChannel;
  /** Puts one question; rejects (and withdraws the question) when `signal` aborts. */
  ask(question: Question, opts: { signal: AbortSignal; timeoutMs: number }): Promise<Answer>;
}

export interface ApprovalLimits { perRun: number; waitMs: number; grantCalls: number }
/** The run as approvals see it: its end, and its wall clock to stop while the person decides. */
export interface RunClock { signal: AbortSignal; pause(): () => void }

export class RunApprovals {
  private asked = 0;
  private waited = 0;
  /** Each standing grant by tool address and argument key set: the calls it has left, and what it was given for (P15). */
  private readonly grants = new Map<string, { left: number; cause: ApprovalCause }>();
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly core: Core,
    private readonly limits: ApprovalLimits,
    private readonly channel: QuestionChannel,
    /** The operator's keepOutsidePrograms of a connector. */
    private readonly keptOutside: (connectorId: string) => readonly string[] | undefined,
    private readonly source: string,
    private readonly activity: ActivitySink = noActivity,
  ) {}

  /** The questions this run has put to the person (its writes' and its connectors', P13), and how many it may. */
  get questionsAsked(): number { return this.asked; }
  get questionsAllowed(): number { return this.limits.perRun; }

  /**
   * P13: a downstream's question the core judged this run's, counted with its questions and put
   * by `put` with the run's wall clock stopped and the wait counted against approval_wait_ms;
   * withdrawn (put's signal aborts) when the run ends. Undefined, and not put, when the run's
   * wait budget is spent.
   */
  async downstream<T>(run: RunClock, signal: AbortSignal, put: (signal: AbortSignal, timeoutMs: number) => Promise<T>): Promise<T | undefined> {
    const { waitMs } = this.limits;
    if (this.core.budgetCheck(Budget.approval_wait_ms, this.waited, 1, waitMs) !== BudgetCheck.ok) return undefined;
    const room = this.core.budgetRoom(Budget.approval_wait_ms, this.waited, waitMs);
    this.asked++;
    const resume = run.pause();
    const started = performance.now();
    try {
      return await put(AbortSignal.any([signal, run.signal]), room);
    } finally {
      this.waited += Math.min(room, Math.ceil(performance.now() - started));
      resume();
    }
  }

  /** Resolves when the call may run; throws the typed refusal or approval_declined otherwise. `flowFrom`: the private connectors this run read, when the call is a flow (spec/data-flow.md F2). */
  gate(entry: CatalogEntry, args: Record<string, unknown>, argsJson: string, reason: string | undefined, run: RunClock, flowFrom?: readonly string[]): Promise<void> {
    const mine = this.turn.then(() => this.judge(entry, args, argsJson, reason, run, flowFrom));
    this.turn = mine.catch(() => {});
    return mine;
  }

  private async judge(entry: CatalogEntry, args: Record<string, unknown>, argsJson: string, reason: string | undefined, run: RunClock, flowFrom?: readonly string[]): Promise<void> {
    run.signal.throwIfAborted();
    const key = `${entry.address}\n${argKeySet(args)}`;
    const held = this.grants.get(key);
    const left = held?.left;
    const cause = flowFrom ? ApprovalCause.data_flow : ApprovalCause.write;
    const { perRun, waitMs, grantCalls } = this.limits;
    const d = this.core.approvalAsk({
      revision: this.channel.revision,
      elicitation: this.channel.elicitation,
      mark: markOf(this.keptOutside(entry.connectorId), entry.name),
      grant: left === undefined ? GrantState.none : GrantState.held,
      grantTool: GrantMatch.same,
      grantKeys: GrantMatch.same,
      grantRun: GrantMatch.same,
      grantLeft: left ?? 0,
      asked: this.asked,
      askLimit: perRun,
      grantLimit: grantCalls,
      cause,
      grantCause: held?.cause ?? ApprovalCause.write,
    });
    switch (d.answer) {
      case ApprovalAsk.run_granted:
        this.grants.set(key, { left: (left ?? 0) - 1, cause: held?.cause ?? cause });
        this.activity.approval("given", entry.connectorId, entry.name, "standing_grant");
        return;
      case ApprovalAsk.refuse_operator_outside_programs:
        throw approvalRequired(entry, args, argsJson, { text: approvalRefusalText.outside_programs, reason: "kept_outside_programs" });
      case ApprovalAsk.refuse_budget:
        throw overBudget("approvals_per_run", perRun, this.asked, 1, approvalRefusalText.approvals_per_run);
      case ApprovalAsk.refuse_data_flow:
        throw dataFlowRefused(entry, flowFrom ?? [], "no_question");
      case ApprovalAsk.ask:
        break;
      default: // refuse_no_elicitation, invalid_facts: today's refusal
        throw approvalRequired(entry, args, argsJson);
    }
    // The question travels as the core said or not at all: a channel this request cannot serve
    // (an elicitation request on 2026-07-28, which the SDK refuses) fails closed.
    if (d.channel !== this.channel.serves) throw approvalRequired(entry, args, argsJson, { text: approvalRefusalText.channel_not_served, reason: "channel_not_served" });
    // Never ask a question that hides an argument: arguments the question cannot show in full are refused.
    const argsShown = escapeShown(argsJson);
    if (argsShown.length > APPROVAL_ARGS_SHOWN_CHARS) throw argsTooLongToShow(entry, argsShown.length);
    if (this.core.budgetCheck(Budget.approval_wait_ms, this.waited, 1, waitMs) !== BudgetCheck.ok) throw overBudget("approval_wait_ms", waitMs, this.waited, 1, approvalRefusalText.approval_wait_ms);
    const room = this.core.budgetRoom(Budget.approval_wait_ms, this.waited, waitMs);
    const offered = d.offer === ApprovalOffer.offered;
    this.asked++;
    this.activity.approval("asked", entry.connectorId, entry.name);
    const resume = run.pause();
    const started = performance.now();
    let answer: Answer;
    try {
      answer = await this.channel.ask({ entry, argsShown, reason, source: this.source, restCalls: offered ? grantCalls : 0, ...(flowFrom && { flowFrom }) }, { signal: run.signal, timeoutMs: room });
    } catch (e) {
      this.activity.approval("declined", entry.connectorId, entry.name, "withdrawn");
      throw e;
    } finally {
      this.waited += Math.min(room, Math.ceil(performance.now() - started));
      resume();
    }
    if (run.signal.aborted) this.activity.approval("declined", entry.connectorId, entry.name, "withdrawn");
    run.signal.throwIfAborted();
    const r = this.core.approvalReply(answer.reply, d.offer, grantCalls);
    if (r.outcome === ApprovalOutcome.run_and_grant) this.grants.set(key, { left: r.grant, cause });
    if (r.outcome === ApprovalOutcome.run_once || r.outcome === ApprovalOutcome.run_and_grant) {
      this.activity.approval("given", entry.connectorId, entry.name, codeName(ApprovalOutcome, r.outcome));
      return;
    }
    const why = answer.timedOut ? "timed_out" : (codeName(ApprovalOutcomeReason, r.reason) ?? "invalid_facts");
    this.activity.approval("declined", entry.connectorId, entry.name, why);
    throw new AtriumError("approval_declined", `${entry.address} did not run: ${approvalDeclinedText[why]}`, { details: { address: entry.address, reason: why } });
  }
}
