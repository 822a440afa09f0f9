// A credential's place in a text, as the scan reports it, and the rule that turns the findings
// of every rule and every pass into one list: overlapping findings are one, in order.

/** A credential at [start, end) of the text scanned. */
export interface Finding { start: number; end: number; kind: string }

/** `found` in order of start, overlapping findings merged into one. Of findings that start at the
 * same place the longest comes first, so its kind names the whole; otherwise the one that starts
 * first names it. Findings that only touch stay two. `found` is sorted in place; its objects are
 * not changed. */
export function mergeFindings(found: Finding[]): Finding[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of found) {
    const last = out.at(-1);
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else out.push({ ...f });
  }
  return out;
}
