// Acts on the core's envelope flags for an accepted view: inline `_meta["atrium/view"]`, the
// view store behind the app-only get_view tool (memory, or the shared store), or the offline file. Returns what the
// result carries; the model is told how the view went, never its bytes.
import { randomUUID } from "node:crypto";
import { EnvelopeFlag } from "../decisions/generated/spec.js";
import type { OwnedStash } from "../results/stash.js";
import { writeOfflineView } from "./offline-file.js";

export interface ViewDeps { store: OwnedStash; directory: string | null }
export interface ViewDelivery { meta?: Record<string, unknown>; note: Record<string, unknown> }

export async function deliverView(flags: number, view: { html: string; reads?: Record<string, unknown> }, deps: ViewDeps): Promise<ViewDelivery | undefined> {
  const has = (f: number) => (flags & f) !== 0;
  const payload = view.reads ? { html: view.html, reads: view.reads } : { html: view.html };
  if (has(EnvelopeFlag.note_view_discarded)) return { note: { delivery: "discarded", note: "the program failed, so its view was discarded" } };
  if (has(EnvelopeFlag.note_view_not_delivered)) return { note: { delivery: "none", note: "this host does not show views and no file was written; the person sees only your answer" } };
  if (has(EnvelopeFlag.view_meta)) {
    // The stored copy's id is the view id, so hosts that strip _meta can fetch it by id.
    // A store that fails keeps no copy: the view still goes inline, only get_view by id will not find it.
    const stored = has(EnvelopeFlag.view_store) ? await deps.store.put(JSON.stringify(payload)).catch(() => undefined) : undefined;
    const id = stored ?? randomUUID();
    return {
      meta: { "atrium/view": { id, ...payload } },
      note: { id, delivery: "inline", note: "the host shows this view to the person inline; your return value is what you read" },
    };
  }
  if (has(EnvelopeFlag.view_file)) {
    const id = randomUUID();
    const written = writeOfflineView(id, payload, deps.directory);
    if ("refused" in written) return { note: { delivery: "none", note: `this host cannot show views and the view file was not written (${written.refused}); the person sees only your answer` } };
    return { note: { id, delivery: "file", path: written.path, note: "this host cannot show views, so the view was written to a local HTML file only this user can read; offer the person the path" } };
  }
  return undefined;
}
