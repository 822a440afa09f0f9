// Typed errors: every failure a user or a downstream can cause becomes one of these, with
// `retryable` decided by the core (spec/envelope.md E7) and, where it helps, a nextAction.
import { core } from "../decisions/core.js";
import { Budget, ErrorCode, type BudgetName, type ErrorCodeName } from "../decisions/generated/spec.js";
import { clip } from "./text/clip.js";
import { escapeShown } from "./text/escape.js";

export interface NextAction { tool: string; arguments: Record<string, unknown>; purpose: string }
export interface ErrorBody {
  code: ErrorCodeName;
  message: string;
  retryable: boolean;
  nextAction?: NextAction;
  details?: Record<string, unknown>;
}

export class AtriumError extends Error {
  readonly code: ErrorCodeName;
  readonly nextAction?: NextAction;
  readonly details?: Record<string, unknown>;
  /** For `unavailable`: whether atrium will try again by itself (spec/envelope.md E8). */
  readonly recovering: boolean;
  constructor(code: ErrorCodeName, message: string, extra: { nextAction?: NextAction; details?: Record<string, unknown>; recovering?: boolean } = {}) {
    super(message);
    this.name = "AtriumError";
    this.code = code;
    this.nextAction = extra.nextAction;
    this.details = extra.details;
    this.recovering = extra.recovering ?? true;
  }
  get retryable(): boolean {
    return core().errorRetryableWhen(ErrorCode[this.code], this.recovering) === 1;
  }
  /** The body the model reads: the message may quote a server or a program, so it is escaped (support/text/escape.ts). */
  toJSON(): ErrorBody {
    return { code: this.code, message: escapeShown(this.message, { keepLines: true }), retryable: this.retryable, ...(this.nextAction && { nextAction: this.nextAction }), ...(this.details && { details: this.details }) };
  }
}

/** Caller-written text echoed in an error is clamped (budget echo_clamp_chars). */
export function clampEcho(text: unknown): string {
  const s = typeof text === "string" ? text : JSON.stringify(text) ?? String(text);
  const max = core().limitDefault(Budget.echo_clamp_chars);
  return clip(s, max);
}

/** Anything thrown becomes an AtriumError; unknown failures are the downstream's. */
export function asAtriumError(e: unknown, fallback: ErrorCodeName = "connector_call_failed"): AtriumError {
  if (e instanceof AtriumError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new AtriumError(fallback, clampEcho(message));
}

/** Over a budget: names the budget and the room left (spec/budgets.md). */
export function overBudget(budget: BudgetName, limit: number, used: number, requested: number, hint?: string): AtriumError {
  const room = Math.max(0, limit - used);
  return new AtriumError("budget_exceeded", `${budget} budget exceeded: ${requested} requested, ${room} of ${limit} left${hint ? `; ${hint}` : ""}`, { details: { budget, limit, used, requested, room } });
}
