// A pending change in words. For the operator (`atrium pins`): the title, the part of the
// description that changed (with a little context, clamped to PIN_DIFF_TEXT_CHARS per side), input
// and output schema keys added or removed, each schema leaf (at any depth) that changed, was added
// or removed, with its path and values, and the annotation flips (readOnlyHint true → false
// reads "toward may write"). For the model (the quarantined error, search): which parts changed,
// in atrium's own words only — never the downstream's new text, which is what is in question.
import { PIN_DIFF_CONTEXT_CHARS, PIN_DIFF_TEXT_CHARS } from "../decisions/generated/spec.js";
import { clip } from "../support/text/clip.js";
import type { PinnedDefinition, SchemaLeaf } from "./digest.js";
import type { Flag } from "./suspicious.js";
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

/** The schema leaves that differ between two definitions (none when either pin predates kept leaves). */
function leafChanges(was: PinnedDefinition, now: PinnedDefinition): { side: string; path: string; was?: string; now?: string }[] {
  if (!was.schemaLeaves || !now.schemaLeaves) return [];
  const byPath = (leaves: SchemaLeaf[]) => new Map(leaves.map(([side, path, value]) => [`${side}\u0000${path}`, { side, path, value }]));
  const before = byPath(was.schemaLeaves);
  const after = byPath(now.schemaLeaves);
  const changes: { side: string; path: string; was?: string; now?: string }[] = [];
  for (const [k, l] of after) if (before.get(k)?.value !== l.value) changes.push({ side: l.side, path: l.path, was: before.get(k)?.value, now: l.value });
  for (const [k, l] of before) if (!after.has(k)) changes.push({ side: l.side, path: l.path, was: l.value });
  return changes;
}

/** One changed leaf as a line: "input schema path: old → new", "+path: new", "-path: old". */
const leafLine = (c: { side: string; path: string; was?: string; now?: string }) =>
  c.was === undefined ? `${c.side} schema +${c.path}: ${c.now}` : c.now === undefined ? `${c.side} schema -${c.path}: ${c.was}` : `${c.side} schema ${c.path}: ${c.was} → ${c.now}`;

/** A hint as shown: its JSON, clamped (a malformed hint may be any value). */
const hint = (v: unknown) => (v === undefined ? "absent" : clip(JSON.stringify(v) ?? String(v), PIN_DIFF_CONTEXT_CHARS));

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
  lines.push(...leafChanges(was, now).map(leafLine));
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

/** Which parts of a definition changed, in atrium's words only (none of the downstream's text): what the model is told. */
export function changeSummary(was: PinnedDefinition | undefined, now: PinnedDefinition, flags: readonly Flag[]): string {
  const parts: string[] = [];
  if (!was) parts.push("no accepted definition");
  else {
    if (was.title !== now.title) parts.push("its title changed");
    if (was.description !== now.description) parts.push("its description changed");
    const keys = (label: string, a: string[], b: string[]) => {
      const added = b.filter((k) => !a.includes(k)).length;
      const removed = a.filter((k) => !b.includes(k)).length;
      if (added || removed) parts.push(`its ${label} schema ${[added && `gained ${added} key(s)`, removed && `lost ${removed} key(s)`].filter(Boolean).join(" and ")}`);
    };
    keys("input", was.inputKeys, now.inputKeys);
    keys("output", was.outputKeys, now.outputKeys);
    const leaves = leafChanges(was, now);
    for (const side of ["input", "output"]) {
      const n = leaves.filter((l) => l.side === side).length;
      if (n && !parts.some((p) => p.startsWith(`its ${side} schema`))) parts.push(`its ${side} schema changed in ${n} nested part(s)`);
    }
    if (hint(was.readOnlyHint) !== hint(now.readOnlyHint)) parts.push(`readOnlyHint ${hint(was.readOnlyHint)} → ${hint(now.readOnlyHint)}`);
    if (hint(was.destructiveHint) !== hint(now.destructiveHint)) parts.push(`destructiveHint ${hint(was.destructiveHint)} → ${hint(now.destructiveHint)}`);
    if (!parts.length) parts.push(was.annotations !== now.annotations ? "its annotations changed" : "its schemas changed");
  }
  for (const f of flags) parts.push(`flagged: ${f.reason}`);
  return parts.join("; ");
}
