// A pending change in words, for `atrium pins` (and, shortened, the quarantined error): the title,
// the part of the description that changed (with a little context, clamped to
// PIN_DIFF_TEXT_CHARS per side), input and output schema keys added or removed, and the
// annotation flips (readOnlyHint true → false reads "toward may write").
import { PIN_DIFF_CONTEXT_CHARS, PIN_DIFF_TEXT_CHARS } from "../decisions/generated/spec.js";
import { clip } from "../support/text/clip.js";
import type { PinnedDefinition } from "./digest.js";
import type { PendingPin } from "./pin-file.js";
import { directionOf } from "./facts.js";
import { PinDirection } from "../decisions/generated/spec.js";

const quote = (s: string) => JSON.stringify(clip(s, PIN_DIFF_TEXT_CHARS));

/** The changed middle of two texts, each side with up to PIN_DIFF_CONTEXT_CHARS of what came before. */
function changedText(was: string, now: string): { was: string; now: string } {
  let start = 0;
  while (start < was.length && start < now.length && was[start] === now[start]) start++;
  let end = 0;
  while (end < was.length - start && end < now.length - start && was[was.length - 1 - end] === now[now.length - 1 - end]) end++;
  const context = Math.min(start, PIN_DIFF_CONTEXT_CHARS);
  const from = start - context;
  const lead = from > 0 ? "…" : "";
  return { was: lead + was.slice(from, was.length - end), now: lead + now.slice(from, now.length - end) };
}

function keysLine(label: string, was: string[], now: string[]): string[] {
  const added = now.filter((k) => !was.includes(k));
  const removed = was.filter((k) => !now.includes(k));
  if (!added.length && !removed.length) return [];
  return [`${label}: ${[...added.map((k) => `+${k}`), ...removed.map((k) => `-${k}`)].join(" ")}`];
}

const hint = (v: unknown) => (v === undefined ? "absent" : JSON.stringify(v));

/** The lines that describe how `now` differs from `was` (the accepted pin), or all of `now` for a tool without one. */
export function diffLines(was: PinnedDefinition | undefined, now: PinnedDefinition): string[] {
  if (!was) {
    return [
      ...(now.title !== undefined ? [`title: ${quote(now.title)}`] : []),
      `description: ${quote(now.description)}`,
      ...(now.inputKeys.length ? [`input: ${now.inputKeys.join(", ")}`] : []),
      `readOnlyHint: ${hint(now.readOnlyHint)}, destructiveHint: ${hint(now.destructiveHint)}`,
    ];
  }
  const lines: string[] = [];
  if (was.title !== now.title) lines.push(`title: ${quote(was.title ?? "")} → ${quote(now.title ?? "")}`);
  if (was.description !== now.description) {
    const d = changedText(was.description, now.description);
    lines.push(`description: - ${quote(d.was)}`, `             + ${quote(d.now)}`);
  }
  lines.push(...keysLine("input schema", was.inputKeys, now.inputKeys), ...keysLine("output schema", was.outputKeys, now.outputKeys));
  const flips: string[] = [];
  if (hint(was.readOnlyHint) !== hint(now.readOnlyHint)) flips.push(`readOnlyHint ${hint(was.readOnlyHint)} → ${hint(now.readOnlyHint)}`);
  if (hint(was.destructiveHint) !== hint(now.destructiveHint)) flips.push(`destructiveHint ${hint(was.destructiveHint)} → ${hint(now.destructiveHint)}`);
  const dir = directionOf(was, now);
  const toward = dir === PinDirection.toward_write ? " (toward may write: approval-only at once)" : dir === PinDirection.toward_read_only ? " (toward read-only)" : dir === PinDirection.mixed ? " (both ways)" : "";
  if (flips.length) lines.push(`annotations: ${flips.join(", ")}${toward}`);
  else if (was.annotations !== now.annotations) lines.push(`annotations: ${clip(was.annotations, PIN_DIFF_TEXT_CHARS)} → ${clip(now.annotations, PIN_DIFF_TEXT_CHARS)}`);
  if (!lines.length) lines.push("a part of the schemas atrium does not show changed (the digest differs)");
  return lines;
}

/** One line for a pending change, for the quarantined error and doctor. */
export function changeSummary(was: PinnedDefinition | undefined, pending: PendingPin): string {
  return diffLines(was, pending.definition).join("; ");
}
