// Program runs parked on a question, for 2026-07-28 (spec/approvals.md P1, channel
// input_required). There the question is not a request to the client but the answer of the
// execute_code request itself: an input-required result whose requestState names the parked run,
// and the client's retry of the same execute_code (its inputResponses and that requestState)
// carries the person's answer back. The run stays in memory meanwhile, its wall clock stopped;
// each leg (the first request, then each retry) waits for the run's result or its next question.
// The requestState is an opaque run id and question number, integrity-protected with an
// HMAC-SHA256 tag under a key drawn at random for this process: a forged, stale or foreign state
// finds no run. A run whose retry never comes is abandoned when its wait budget runs out
// (approval_wait_ms); a leg that is cancelled abandons its run too. With replicas the state also
// names the replica that holds the run: a retry that lands on another replica is carried to it
// over the store's bus (parked-relay.ts), and only the holder checks the tag.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { inputRequired, type CallToolResult, type InputRequiredResult } from "@modelcontextprotocol/server";
import { APPROVAL_STATE_CHARS_MAX, APPROVAL_STATE_KEY_BYTES, ApprovalChannel } from "../decisions/generated/spec.js";
import { replyOf } from "../decisions/facts/approval.js";
import { approvalDeclinedText } from "../decisions/messages.js";
import { AtriumError } from "../support/errors.js";
import type { Answer, Question, QuestionChannel } from "../calls/approvals.js";
import { questionParams } from "./approval-question.js";
import type { Principal } from "../support/principal.js";
import type { Bus } from "../support/bus.js";
import { ParkedRelay, type Forwarded } from "./parked-relay.js";

/** The key of the one input request a question puts in an input-required result. */
const INPUT_KEY = "approve";
const SEP = ".";

export type LegResult = CallToolResult | InputRequiredResult;
interface Pending { seq: number; question: Question; settle(a: Answer): void }

export class ParkedRun {
  readonly id = randomUUID();
  private readonly life = new AbortController();
  private seq = 0;
  private pending?: Pending;
  /** Wakes the leg waiting when a question is put. */
  private wake?: () => void;
  /** Whether a leg is waiting (the first leg's progress is reported only while it is). */
  private legOpen = false;
  private outcome?: Promise<CallToolResult>;

  /** `principal`: whose request parked it; only that principal's retry finds it. */
  constructor(private readonly registry: ParkedRuns, readonly code: string, readonly principal: Principal) {}

  /** Ends with the run: aborted when the run is abandoned. */
  get signal(): AbortSignal {
    return this.life.signal;
  }

  /** Progress of the first leg, reported while that leg waits (never after its answer). */
  progressWhileOpen(progress?: (completed: number) => void): ((completed: number) => void) | undefined {
    return progress && ((n) => { if (this.legOpen) progress(n); });
  }

  /** The channel the run's approvals put questions through: each question parks the run. */
  channel(request: QuestionChannel): QuestionChannel {
    return {
      revision: request.revision,
      elicitation: request.elicitation,
      serves: ApprovalChannel.input_required,
      ask: (question, { signal, timeoutMs }) =>
        new Promise<Answer>((resolve, reject) => {
          const seq = ++this.seq;
          // No retry within what is left of the wait budget: the run is abandoned.
          const timer = setTimeout(() => this.abandon(new AtriumError("cancelled", `the program's run was abandoned: ${approvalDeclinedText.timed_out}`)), timeoutMs);
          const done = () => { clearTimeout(timer); signal.removeEventListener("abort", onAbort); this.pending = undefined; this.registry.unlist(this); };
          const onAbort = () => { done(); reject(signal.reason); };
          signal.addEventListener("abort", onAbort, { once: true });
          this.pending = { seq, question, settle: (a) => { done(); resolve(a); } };
          this.registry.list(this);
          this.wake?.();
        }),
    };
  }

  /** The first leg: the run's result, or its first question. */
  first(outcome: Promise<CallToolResult>, requestSignal: AbortSignal): Promise<LegResult> {
    this.outcome = outcome;
    const gone = () => this.registry.unlist(this);
    outcome.then(gone, gone);
    return this.leg(requestSignal);
  }

  /** A retry's leg: the person's answer to question `seq`, then the run's result or its next question. */
  resume(seq: number, response: unknown, requestSignal: AbortSignal): Promise<LegResult> | undefined {
    if (!this.pending || this.pending.seq !== seq || this.legOpen) return undefined;
    this.pending.settle({ reply: replyOf(response), timedOut: false });
    return this.leg(requestSignal);
  }

  private async leg(requestSignal: AbortSignal): Promise<LegResult> {
    const outcome = this.outcome!;
    const onAbort = () => this.abandon(new AtriumError("cancelled", "the request waiting for the program was cancelled"));
    requestSignal.addEventListener("abort", onAbort, { once: true });
    this.legOpen = true;
    try {
      const asked = new Promise<void>((r) => { this.wake = r; });
      const first = await Promise.race([outcome.then((result) => ({ result })), asked.then(() => undefined)]);
      if (first) return first.result;
      const p = this.pending!;
      return inputRequired({ inputRequests: { [INPUT_KEY]: inputRequired.elicit(questionParams(p.question)) }, requestState: this.registry.mint(this, p.seq) });
    } finally {
      this.legOpen = false;
      this.wake = undefined;
      requestSignal.removeEventListener("abort", onAbort);
    }
  }

  private abandon(reason: AtriumError): void {
    this.registry.unlist(this);
    this.life.abort(reason);
  }

  /** The answer a retry carries for this run's question. */
  static responseOf(responses: Record<string, unknown> | undefined): unknown {
    return responses?.[INPUT_KEY];
  }
}

/** The process's parked runs, findable only by a requestState this process minted, and only by the principal whose run it is
 * (keyed by principal and run id: another principal's retry finds what a state never minted finds). */
export class ParkedRuns {
  private readonly key = randomBytes(APPROVAL_STATE_KEY_BYTES);
  private readonly runs = new Map<string, ParkedRun>();
  /** This process's name in the states it mints ("local" without replicas). */
  private readonly replica: string;
  private readonly relay?: ParkedRelay;

  /** `bus`: the store's bus between replicas (none in one process); `waitMs`: longest a forwarded leg may take (a run's wall time). */
  constructor(replicas?: { bus: Bus; waitMs: () => number }) {
    this.replica = replicas?.bus.replica ?? "local";
    this.relay = replicas && new ParkedRelay(replicas.bus, this, replicas.waitMs);
  }

  /** Starts hearing retries other replicas carry here (team mode with a store). */
  async listen(): Promise<void> {
    await this.relay?.listen();
  }

  /** Carries a retry to the replica its state names; its leg's answer, or why there is none. */
  forward(replica: string, retry: { state: string; code: string; principal: string; responses?: Record<string, unknown> }, signal: AbortSignal): Promise<Forwarded> {
    if (!this.relay) return Promise.resolve({ kind: "not_found" });
    return this.relay.forward(replica, retry, signal);
  }

  start(code: string, principal: Principal): ParkedRun {
    return new ParkedRun(this, code, principal);
  }

  list(run: ParkedRun): void {
    this.runs.set(keyOf(run.principal, run.id), run);
  }

  unlist(run: ParkedRun): void {
    const key = keyOf(run.principal, run.id);
    if (this.runs.get(key) === run) this.runs.delete(key);
  }

  mint(run: ParkedRun, seq: number): string {
    const body = `${this.replica}${SEP}${run.id}${SEP}${seq}`;
    return `${body}${SEP}${this.tag(body)}`;
  }

  /**
   * The parked run and question a requestState names; `elsewhere` when it names another replica
   * (only with replicas: its holder checks it); undefined for anything this process did not mint,
   * or whose run is gone.
   */
  open(state: unknown, principal: Pick<Principal, "id">): { run: ParkedRun; seq: number } | { elsewhere: string } | undefined {
    if (typeof state !== "string" || state.length > APPROVAL_STATE_CHARS_MAX) return undefined;
    const cut = state.lastIndexOf(SEP);
    if (cut < 0) return undefined;
    const body = state.slice(0, cut);
    const [replica, id, seqText] = body.split(SEP);
    if (this.relay && replica !== undefined && replica !== "" && replica !== this.replica) return { elsewhere: replica };
    const tag = Buffer.from(state.slice(cut + 1));
    const want = Buffer.from(this.tag(body));
    if (tag.length !== want.length || !timingSafeEqual(tag, want)) return undefined;
    const run = id === undefined ? undefined : this.runs.get(keyOf(principal, id));
    const seq = Number(seqText);
    return run && Number.isSafeInteger(seq) ? { run, seq } : undefined;
  }

  private tag(body: string): string {
    return createHmac("sha256", this.key).update(body).digest("base64url");
  }
}

/** A parked run's key: its principal's id and its own (a principal id holds no newline). */
const keyOf = (principal: Pick<Principal, "id">, id: string) => `${principal.id}\n${id}`;
