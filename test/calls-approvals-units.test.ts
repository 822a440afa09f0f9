// calls/approvals.ts in process, with the real core (spec/approvals.md P1–P15 as the glue carries
// them out): what one program run's approvals put to the person, what a grant covers and for how
// many calls, what each refusal is, the run's clock stopped while the person decides (P11, on a
// fake clock: no wall-clock bound), the activity events, and questions put one at a time in call
// order. The person's channel is the one part played by the test: it records what it was asked
// and answers as the test says.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunApprovals, type Answer, type Question, type QuestionChannel, type RunClock } from "../glue/calls/approvals.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";
import { core } from "../glue/decisions/core.js";
import { APPROVAL_ARGS_SHOWN_CHARS, ApprovalChannel, ApprovalReply, ElicitationSupport, Revision } from "../glue/decisions/generated/spec.js";
import { approvalDeclinedText, approvalRefusalText } from "../glue/decisions/messages.js";
import { sinkOf, type ActivityEvent } from "../glue/activity/events.js";
import { AtriumError } from "../glue/support/errors.js";

const tool = (name = "file_ticket", connectorId = "tracker"): CatalogEntry => ({
  address: `${connectorId}.${name}`, connectorId, name, description: "", inputSchema: {}, safety: "approval", reason: "not_annotated", maxResultBytes: 1, appVisibility: 0, appWrites: false,
} as unknown as CatalogEntry);

type Reply = ApprovalReply | { reply: ApprovalReply; timedOut: boolean } | ((q: Question, opts: { signal: AbortSignal; timeoutMs: number }) => Promise<Answer>);

/** A host's channel: each question is recorded, and answered by the next scripted reply. */
function channelOf(replies: Reply[], facts: { revision?: Revision; elicitation?: ElicitationSupport; serves?: ApprovalChannel } = {}) {
  const asked: { question: Question; timeoutMs: number }[] = [];
  const channel: QuestionChannel = {
    revision: facts.revision ?? Revision.r2025_11_25,
    elicitation: facts.elicitation ?? ElicitationSupport.form,
    serves: facts.serves ?? ApprovalChannel.elicitation_request,
    async ask(question, opts) {
      asked.push({ question, timeoutMs: opts.timeoutMs });
      const next = replies.shift();
      if (next === undefined) throw new Error("the test gave no answer for this question");
      if (typeof next === "function") return next(question, opts);
      return typeof next === "number" ? { reply: next, timedOut: false } : next;
    },
  };
  return { channel, asked };
}

/** A run's clock: counts how often it was stopped and started again. */
function clockOf(controller = new AbortController()) {
  const state = { paused: 0, resumed: 0 };
  const clock: RunClock = { signal: controller.signal, pause: () => { state.paused++; return () => { state.resumed++; }; } };
  return { clock, state, controller };
}

function approvalsOf(replies: Reply[], opts: { perRun?: number; waitMs?: number; grantCalls?: number; keptOutside?: Record<string, string[]>; channel?: Parameters<typeof channelOf>[1] } = {}) {
  const { channel, asked } = channelOf(replies, opts.channel);
  const events: ActivityEvent[] = [];
  const approvals = new RunApprovals(core(), { perRun: opts.perRun ?? 5, waitMs: opts.waitMs ?? 300_000, grantCalls: opts.grantCalls ?? 10 }, channel, (id) => opts.keptOutside?.[id], "async () => atrium.call(...)", sinkOf((e) => events.push(e)));
  return { approvals, asked, events };
}

const gate = (a: RunApprovals, clock: RunClock, args: Record<string, unknown> = { title: "x" }, entry = tool(), reason?: string, flowFrom?: readonly string[]) =>
  a.gate(entry, args, JSON.stringify(args), reason, clock, flowFrom);

async function refusal(p: Promise<unknown>): Promise<AtriumError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(AtriumError);
  return e as AtriumError;
}

const approvalEvents = (events: ActivityEvent[]) => events.map((e) => ("reason" in e && e.reason !== undefined ? `${e.event}:${e.reason}` : e.event));

describe("P1: a program's write is asked of the person, once per call", () => {
  it("the question carries the call, its arguments escaped in full, the program's reason and source, and offers the rest when grants are allowed", async () => {
    const { approvals, asked, events } = approvalsOf([ApprovalReply.accept_once], { grantCalls: 7 });
    const { clock } = clockOf();
    await gate(approvals, clock, { title: "a\u202Eb" }, tool(), "file the ticket");
    expect(asked).toHaveLength(1);
    const q = asked[0]!.question;
    expect(q.entry.address).toBe("tracker.file_ticket");
    // JSON leaves a bidi override raw; the question shows it as an escape.
    expect(q.argsShown).toBe('{"title":"a\\u202Eb"}');
    expect(q.reason).toBe("file the ticket");
    expect(q.source).toBe("async () => atrium.call(...)");
    expect(q.restCalls).toBe(7);
    expect(q.flowFrom).toBeUndefined();
    expect(approvals.questionsAsked).toBe(1);
    expect(approvalEvents(events)).toEqual(["approval_asked", "approval_given:run_once"]);
  });

  it("an answer of once covers that call only: the next call of the same tool is asked again", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_once, ApprovalReply.accept_once]);
    const { clock } = clockOf();
    await gate(approvals, clock);
    await gate(approvals, clock);
    expect(asked).toHaveLength(2);
    expect(approvals.questionsAsked).toBe(2);
  });

  it("on 2026-07-28 the question travels as an input-required result when the request serves that", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_once], { channel: { revision: Revision.r2026_07_28, serves: ApprovalChannel.input_required } });
    await gate(approvals, clockOf().clock);
    expect(asked).toHaveLength(1);
  });
});

describe("P2, P3, P7: calls that are never asked fail closed with today's refusal", () => {
  it("a host without form elicitation: destructive_tool_requires_approval with the tool's class reason, nothing asked", async () => {
    const { approvals, asked, events } = approvalsOf([], { channel: { elicitation: ElicitationSupport.url_only } });
    const e = await refusal(gate(approvals, clockOf().clock));
    expect(e.code).toBe("destructive_tool_requires_approval");
    expect(e.details).toMatchObject({ address: "tracker.file_ticket", reason: "not_annotated" });
    expect(asked).toHaveLength(0);
    expect(approvals.questionsAsked).toBe(0);
    expect(events).toEqual([]);
  });

  it("a tool the operator keeps outside programs is refused on a host that could be asked, naming keepOutsidePrograms", async () => {
    const { approvals, asked } = approvalsOf([], { keptOutside: { tracker: ["file_ticket"] } });
    const e = await refusal(gate(approvals, clockOf().clock));
    expect(e.code).toBe("destructive_tool_requires_approval");
    expect(e.details).toMatchObject({ reason: "kept_outside_programs" });
    expect(e.message).toContain(approvalRefusalText.outside_programs);
    expect(asked).toHaveLength(0);
  });

  it("the operator's mark is read for the called tool's own connector and name only", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_once, ApprovalReply.accept_once], { keptOutside: { other: ["file_ticket"], tracker: ["close_ticket"] } });
    await gate(approvals, clockOf().clock);
    await gate(approvals, clockOf().clock, { title: "x" }, tool("file_ticket", "desk"));
    expect(asked).toHaveLength(2);
  });

  it("a question the request cannot carry the way its revision needs is refused channel_not_served", async () => {
    // 2026-07-28 asks by an input-required result; a request that can only send an elicitation request cannot.
    const { approvals, asked } = approvalsOf([], { channel: { revision: Revision.r2026_07_28, serves: ApprovalChannel.elicitation_request } });
    const e = await refusal(gate(approvals, clockOf().clock));
    expect(e.code).toBe("destructive_tool_requires_approval");
    expect(e.details).toMatchObject({ reason: "channel_not_served" });
    expect(e.message).toContain(approvalRefusalText.channel_not_served);
    expect(asked).toHaveLength(0);
  });

  it("facts out of range (an unknown elicitation code) ask nothing and run nothing", async () => {
    const { approvals, asked } = approvalsOf([], { channel: { elicitation: 9 as ElicitationSupport } });
    const e = await refusal(gate(approvals, clockOf().clock));
    expect(e.code).toBe("destructive_tool_requires_approval");
    expect(e.details).toMatchObject({ reason: "not_annotated" });
    expect(asked).toHaveLength(0);
  });
});

describe("a question never hides an argument", () => {
  it("arguments over APPROVAL_ARGS_SHOWN_CHARS as shown are refused invalid_args naming the bound, before anything is asked", async () => {
    const { approvals, asked } = approvalsOf([]);
    const args = { body: "x".repeat(APPROVAL_ARGS_SHOWN_CHARS) };
    const e = await refusal(gate(approvals, clockOf().clock, args));
    expect(e.code).toBe("invalid_args");
    const chars = JSON.stringify(args).length;
    expect(e.details).toEqual({ address: "tracker.file_ticket", bound: "APPROVAL_ARGS_SHOWN_CHARS", limit: APPROVAL_ARGS_SHOWN_CHARS, chars });
    expect(e.message).toContain(`${chars} characters`);
    expect(asked).toHaveLength(0);
    expect(approvals.questionsAsked).toBe(0);
  });

  it("the bound counts the arguments as shown, escapes included", async () => {
    // As JSON, this fits (JSON leaves a bidi override raw); with each shown as an escape it does not.
    const body = "\u202E".repeat(APPROVAL_ARGS_SHOWN_CHARS / 4);
    expect(JSON.stringify({ body }).length).toBeLessThan(APPROVAL_ARGS_SHOWN_CHARS);
    const { approvals } = approvalsOf([]);
    const e = await refusal(gate(approvals, clockOf().clock, { body }));
    expect(e.code).toBe("invalid_args");
    expect(e.details!.chars as number).toBeGreaterThan(APPROVAL_ARGS_SHOWN_CHARS);
  });

  it("arguments exactly at the bound as shown are asked", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_once]);
    const args = { b: "x".repeat(APPROVAL_ARGS_SHOWN_CHARS - JSON.stringify({ b: "" }).length) };
    expect(JSON.stringify(args).length).toBe(APPROVAL_ARGS_SHOWN_CHARS);
    await gate(approvals, clockOf().clock, args);
    expect(asked).toHaveLength(1);
  });
});

describe("P4, P8: a standing grant covers the same tool and argument keys in this run, for approval_grant_calls calls", () => {
  it("the rest of the run: the next approval_grant_calls calls run without a question, the one after is asked again", async () => {
    const { approvals, asked, events } = approvalsOf([ApprovalReply.accept_rest, ApprovalReply.accept_once], { grantCalls: 2 });
    const { clock } = clockOf();
    await gate(approvals, clock, { title: "1" });
    await gate(approvals, clock, { title: "2" });
    await gate(approvals, clock, { title: "3" });
    expect(asked).toHaveLength(1);
    await gate(approvals, clock, { title: "4" });
    expect(asked).toHaveLength(2);
    expect(approvalEvents(events)).toEqual(["approval_asked", "approval_given:run_and_grant", "approval_given:standing_grant", "approval_given:standing_grant", "approval_asked", "approval_given:run_once"]);
  });

  it("calls run under a grant are not questions: they spend nothing of approvals_per_run", async () => {
    const { approvals } = approvalsOf([ApprovalReply.accept_rest], { perRun: 1, grantCalls: 3 });
    const { clock } = clockOf();
    for (let i = 0; i < 4; i++) await gate(approvals, clock);
    expect(approvals.questionsAsked).toBe(1);
  });

  it("another argument key set, or another tool, is asked; other values under the same keys are covered", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_rest, ApprovalReply.accept_once, ApprovalReply.accept_once]);
    const { clock } = clockOf();
    await gate(approvals, clock, { title: "a", body: "b" });
    await gate(approvals, clock, { body: "other", title: "values" });
    expect(asked).toHaveLength(1);
    await gate(approvals, clock, { title: "a" });
    await gate(approvals, clock, { title: "a", body: "b" }, tool("close_ticket"));
    expect(asked).toHaveLength(3);
  });

  it("accepting the rest when the question did not offer it (approval_grant_calls 0) is a decline, rest_not_offered", async () => {
    const { approvals, asked, events } = approvalsOf([ApprovalReply.accept_rest], { grantCalls: 0 });
    const e = await refusal(gate(approvals, clockOf().clock));
    expect(asked[0]!.question.restCalls).toBe(0);
    expect(e.code).toBe("approval_declined");
    expect(e.details).toEqual({ address: "tracker.file_ticket", reason: "rest_not_offered" });
    expect(e.message).toBe(`tracker.file_ticket did not run: ${approvalDeclinedText.rest_not_offered}`);
    expect(approvalEvents(events)).toEqual(["approval_asked", "approval_declined:rest_not_offered"]);
  });
});

describe("P8, P9: an answer that is not an approval declines the call", () => {
  for (const [reply, reason] of [[ApprovalReply.decline, "declined"], [ApprovalReply.cancel, "cancelled"], [ApprovalReply.malformed, "malformed"]] as const) {
    it(`${reason}: approval_declined naming why, and an activity event saying so`, async () => {
      const { approvals, events } = approvalsOf([reply]);
      const e = await refusal(gate(approvals, clockOf().clock));
      expect(e.code).toBe("approval_declined");
      expect(e.details).toEqual({ address: "tracker.file_ticket", reason });
      expect(e.message).toBe(`tracker.file_ticket did not run: ${approvalDeclinedText[reason]}`);
      expect(approvalEvents(events)).toEqual(["approval_asked", `approval_declined:${reason}`]);
    });
  }

  it("a question the wait ran out on is declined timed_out, not cancelled", async () => {
    const { approvals, events } = approvalsOf([{ reply: ApprovalReply.cancel, timedOut: true }]);
    const e = await refusal(gate(approvals, clockOf().clock));
    expect(e.details).toEqual({ address: "tracker.file_ticket", reason: "timed_out" });
    expect(e.message).toContain(approvalDeclinedText.timed_out);
    expect(approvalEvents(events)).toEqual(["approval_asked", "approval_declined:timed_out"]);
  });

  it("a declined call records no grant: the same call is asked again", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.decline, ApprovalReply.accept_once]);
    const { clock } = clockOf();
    await refusal(gate(approvals, clock));
    await gate(approvals, clock);
    expect(asked).toHaveLength(2);
  });
});

describe("P5: approvals per run", () => {
  it("the question that would go over approvals_per_run is not put: budget_exceeded naming it", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_once, ApprovalReply.accept_once], { perRun: 2 });
    const { clock } = clockOf();
    await gate(approvals, clock);
    await gate(approvals, clock);
    const e = await refusal(gate(approvals, clock));
    expect(e.code).toBe("budget_exceeded");
    expect(e.details).toMatchObject({ budget: "approvals_per_run", limit: 2, used: 2, requested: 1 });
    expect(e.message).toContain(approvalRefusalText.approvals_per_run);
    expect(asked).toHaveLength(2);
    expect(approvals.questionsAllowed).toBe(2);
  });
});

describe("P11: the run's clock stops while the person decides, up to approval_wait_ms", () => {
  // The fake clock starts away from 0, so a wait is measured as a difference of two readings.
  beforeEach(() => { vi.useFakeTimers({ toFake: ["performance"] }); vi.advanceTimersByTime(123_456); });
  afterEach(() => { vi.useRealTimers(); });

  it("the clock is stopped for the question and started again once it is answered", async () => {
    const { clock, state } = clockOf();
    const seen: { paused: number; resumed: number }[] = [];
    const { approvals } = approvalsOf([async () => { seen.push({ ...state }); return { reply: ApprovalReply.accept_once, timedOut: false }; }]);
    await gate(approvals, clock);
    expect(seen).toEqual([{ paused: 1, resumed: 0 }]);
    expect(state).toEqual({ paused: 1, resumed: 1 });
  });

  it("each question may wait what is left of the run's wait, and the time waited is spent from it", async () => {
    const waitMs = 10_000;
    const answerAfter = (ms: number): Reply => async () => { vi.advanceTimersByTime(ms); return { reply: ApprovalReply.accept_once, timedOut: false }; };
    const { approvals, asked } = approvalsOf([answerAfter(3_000), answerAfter(2_500), answerAfter(0)], { waitMs });
    const { clock } = clockOf();
    await gate(approvals, clock);
    await gate(approvals, clock);
    await gate(approvals, clock);
    expect(asked.map((a) => a.timeoutMs)).toEqual([10_000, 7_000, 4_500]);
  });

  it("a wait longer than the room left counts as the room: the run's wait is spent, and the next question is refused approval_wait_ms", async () => {
    const { approvals, asked } = approvalsOf([async () => { vi.advanceTimersByTime(50_000); return { reply: ApprovalReply.cancel, timedOut: true }; }], { waitMs: 10_000 });
    const { clock } = clockOf();
    await refusal(gate(approvals, clock));
    const e = await refusal(gate(approvals, clock, { title: "again" }));
    expect(e.code).toBe("budget_exceeded");
    expect(e.details).toMatchObject({ budget: "approval_wait_ms", limit: 10_000, used: 10_000, requested: 1 });
    expect(e.message).toContain(approvalRefusalText.approval_wait_ms);
    expect(asked).toHaveLength(1);
  });
});

describe("a question withdrawn because the run ended", () => {
  it("a channel that rejects (the question withdrawn) passes its error on, starts the clock again and logs the decline", async () => {
    const { clock, state } = clockOf();
    const { approvals, events } = approvalsOf([async () => { throw new AtriumError("cancelled", "the run ended"); }]);
    const e = await refusal(gate(approvals, clock));
    expect(e.code).toBe("cancelled");
    expect(state).toEqual({ paused: 1, resumed: 1 });
    expect(approvalEvents(events)).toEqual(["approval_asked", "approval_declined:withdrawn"]);
  });

  it("an approval that arrives after the run ended does not run the call", async () => {
    const { clock, controller } = clockOf();
    const { approvals, events } = approvalsOf([async () => { controller.abort(new AtriumError("cancelled", "the run ended")); return { reply: ApprovalReply.accept_once, timedOut: false }; }]);
    const e = await refusal(gate(approvals, clock));
    expect(e.code).toBe("cancelled");
    expect(approvalEvents(events)).toEqual(["approval_asked", "approval_declined:withdrawn"]);
  });

  it("a run that has already ended asks nothing", async () => {
    const { clock, controller } = clockOf();
    controller.abort(new AtriumError("cancelled", "the run ended"));
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_once]);
    const e = await refusal(gate(approvals, clock));
    expect(e.code).toBe("cancelled");
    expect(asked).toHaveLength(0);
  });

  it("the question receives the run's signal, so the run's end withdraws it", async () => {
    const { clock, controller } = clockOf();
    let given: AbortSignal | undefined;
    const { approvals } = approvalsOf([async (_q, opts) => { given = opts.signal; return { reply: ApprovalReply.accept_once, timedOut: false }; }]);
    await gate(approvals, clock);
    expect(given).toBe(controller.signal);
  });
});

describe("questions of one run are put one at a time, in the order of the calls", () => {
  it("the second call's question waits until the first is answered", async () => {
    let answerFirst!: (a: Answer) => void;
    const order: string[] = [];
    const { approvals, asked } = approvalsOf([
      () => new Promise<Answer>((r) => { answerFirst = r; }),
      async () => ({ reply: ApprovalReply.accept_once, timedOut: false }),
    ]);
    const { clock } = clockOf();
    const first = gate(approvals, clock, { n: 1 }).then(() => order.push("first"));
    const second = gate(approvals, clock, { n: 2 }).then(() => order.push("second"));
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    expect(asked[0]!.question.argsShown).toBe(JSON.stringify({ n: 1 }));
    answerFirst({ reply: ApprovalReply.accept_once, timedOut: false });
    await Promise.all([first, second]);
    expect(asked.map((a) => a.question.argsShown)).toEqual([JSON.stringify({ n: 1 }), JSON.stringify({ n: 2 })]);
    expect(order).toEqual(["first", "second"]);
  });

  it("a refused call does not stop the questions after it", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.decline, ApprovalReply.accept_once]);
    const { clock } = clockOf();
    const first = refusal(gate(approvals, clock, { n: 1 }));
    const second = gate(approvals, clock, { n: 2 });
    expect((await first).code).toBe("approval_declined");
    await second;
    expect(asked).toHaveLength(2);
  });
});

describe("P14, P15: a flow is asked like a write, and a write's grant does not cover it", () => {
  it("a flow's question names the private connectors the run read from", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_once]);
    await gate(approvals, clockOf().clock, { to: "x" }, tool("send", "mail"), undefined, ["files", "notes"]);
    expect(asked[0]!.question.flowFrom).toEqual(["files", "notes"]);
  });

  it("on a host that cannot be asked a flow is refused data_flow_requires_approval, naming what the run read", async () => {
    const { approvals } = approvalsOf([], { channel: { elicitation: ElicitationSupport.none } });
    const e = await refusal(gate(approvals, clockOf().clock, { to: "x" }, tool("send", "mail"), undefined, ["files"]));
    expect(e.code).toBe("data_flow_requires_approval");
    expect(e.details).toEqual({ address: "mail.send", readFrom: ["files"], reason: "no_question" });
  });

  it("a grant given for writes does not cover a flow of the same tool and keys", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_rest, ApprovalReply.accept_once]);
    const { clock } = clockOf();
    await gate(approvals, clock, { to: "x" }, tool("send", "mail"));
    await gate(approvals, clock, { to: "x" }, tool("send", "mail"), undefined, ["files"]);
    expect(asked).toHaveLength(2);
  });

  it("a grant given for a flow covers later flows and writes of the same tool and keys, and keeps its cause", async () => {
    const { approvals, asked } = approvalsOf([ApprovalReply.accept_rest]);
    const { clock } = clockOf();
    await gate(approvals, clock, { to: "x" }, tool("send", "mail"), undefined, ["files"]);
    await gate(approvals, clock, { to: "y" }, tool("send", "mail"));
    await gate(approvals, clock, { to: "z" }, tool("send", "mail"), undefined, ["files"]);
    expect(asked).toHaveLength(1);
  });
});

describe("P13: a downstream's question counted as the run's", () => {
  // The fake clock starts away from 0, so a wait is measured as a difference of two readings.
  beforeEach(() => { vi.useFakeTimers({ toFake: ["performance"] }); vi.advanceTimersByTime(123_456); });
  afterEach(() => { vi.useRealTimers(); });

  it("is counted with the run's questions, put with the clock stopped and the room left, and its wait spent", async () => {
    const { approvals } = approvalsOf([], { waitMs: 10_000 });
    const { clock, state } = clockOf();
    const rooms: number[] = [];
    const got = await approvals.downstream(clock, new AbortController().signal, async (_s, room) => { rooms.push(room); expect(state).toEqual({ paused: 1, resumed: 0 }); vi.advanceTimersByTime(4_000); return "answer"; });
    expect(got).toBe("answer");
    expect(state).toEqual({ paused: 1, resumed: 1 });
    expect(approvals.questionsAsked).toBe(1);
    await approvals.downstream(clock, new AbortController().signal, async (_s, room) => { rooms.push(room); vi.advanceTimersByTime(60_000); return "late"; });
    expect(rooms).toEqual([10_000, 6_000]);
    // The wait is spent: the next one is not put at all.
    let put = false;
    expect(await approvals.downstream(clock, new AbortController().signal, async () => { put = true; return "never"; })).toBeUndefined();
    expect(put).toBe(false);
    expect(approvals.questionsAsked).toBe(2);
  });

  it("is withdrawn when either the call's signal or the run's ends", async () => {
    const run = clockOf();
    const call = new AbortController();
    const { approvals } = approvalsOf([]);
    const signals: AbortSignal[] = [];
    await approvals.downstream(run.clock, call.signal, async (s) => { signals.push(s); return 1; });
    await approvals.downstream(run.clock, call.signal, async (s) => { signals.push(s); return 1; });
    call.abort();
    expect(signals[0]!.aborted).toBe(true);
    run.controller.abort();
    expect(signals[1]!.aborted).toBe(true);
    const other = clockOf();
    const { approvals: b } = approvalsOf([]);
    let s2!: AbortSignal;
    await b.downstream(other.clock, new AbortController().signal, async (s) => { s2 = s; return 1; });
    other.controller.abort();
    expect(s2.aborted).toBe(true);
  });
});
