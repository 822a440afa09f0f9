// Reduces what a program's write and its host look like to the facts of spec/approvals.md: the
// host's elicitation capability (P1–P2), the operator's mark (P3), the argument key set a
// standing grant is kept under (P4), the choices a question offers and the person's answer to
// it (P8–P9). Shapes only; the core decides what they mean.
import { ApprovalMark, ApprovalReply, ElicitationSupport } from "../generated/spec.js";
import { isJsonObject } from "../../support/json-object.js";

/**
 * The `elicitation` fact from the capabilities of the host deciding the request (H13): absent →
 * none; an object holding both `form` and `url` → form_and_url; an empty object (2025-11-25's
 * form mode by default) or one holding `form` → form; an object holding `url` only → url_only;
 * anything else → malformed. spec/approvals.md P1–P2 and spec/oauth.md O6 read the same fact.
 */
export function elicitationOf(capabilities: unknown): ElicitationSupport {
  if (!isJsonObject(capabilities) || !Object.hasOwn(capabilities, "elicitation") || capabilities.elicitation === undefined) return ElicitationSupport.none;
  const e = capabilities.elicitation;
  if (!isJsonObject(e)) return ElicitationSupport.malformed;
  const keys = Object.keys(e);
  if (Object.hasOwn(e, "form") && Object.hasOwn(e, "url")) return ElicitationSupport.form_and_url;
  if (keys.length === 0 || Object.hasOwn(e, "form")) return ElicitationSupport.form;
  if (keys.length === 1 && keys[0] === "url") return ElicitationSupport.url_only;
  return ElicitationSupport.malformed;
}

/** P3: whether the operator keeps this tool approval-only-outside-programs (`keepOutsidePrograms`). */
export const markOf = (keptOutside: readonly string[] | undefined, tool: string): ApprovalMark =>
  keptOutside?.includes(tool) ? ApprovalMark.outside_programs_only : ApprovalMark.in_programs;

/** P4: the top-level keys of a call's arguments, as a set (sorted, so the order they were written in does not matter). */
export const argKeySet = (args: Record<string, unknown>): string => JSON.stringify(Object.keys(args).sort());

/** The question's one field and its two choices, as the answer must name them. */
export const CHOICE_FIELD = "choice";
export const CHOICES = { once: "run_once", rest: "run_rest" } as const;

/**
 * P8–P9: an elicitation result as the person's answer. `decline` and `cancel` are themselves;
 * `accept` counts only with content holding exactly the choice field, set to one of the choices
 * (whether "the rest" was offered is the core's to judge); anything else is `malformed`.
 */
export function replyOf(result: unknown): ApprovalReply {
  if (!isJsonObject(result)) return ApprovalReply.malformed;
  if (result.action === "decline") return ApprovalReply.decline;
  if (result.action === "cancel") return ApprovalReply.cancel;
  if (result.action !== "accept") return ApprovalReply.malformed;
  const content = result.content;
  if (!isJsonObject(content) || Object.keys(content).length !== 1) return ApprovalReply.malformed;
  const choice = content[CHOICE_FIELD];
  if (choice === CHOICES.once) return ApprovalReply.accept_once;
  if (choice === CHOICES.rest) return ApprovalReply.accept_rest;
  return ApprovalReply.malformed;
}
