// A downstream's progress on one direct call (call_tool, call_destructive_tool), checked before
// it is passed on to the host: a progress that is not a finite number or does not increase is
// dropped (the host's token would misread it), a total that is not a finite number is left out,
// a message is cut at PROGRESS_MESSAGE_CHARS_MAX, and no more than PROGRESS_RELAYED_MAX are passed
// on for one call (a downstream that floods progress is not relayed past that).
import { PROGRESS_MESSAGE_CHARS_MAX, PROGRESS_RELAYED_MAX } from "../decisions/generated/spec.js";
import { clip } from "../support/text/clip.js";

/** One progress notification as atrium passes it on. */
export interface DownstreamProgress { progress: number; total?: number; message?: string }

/** What a downstream's notifications/progress carried (unchecked: from the downstream). */
export type RawProgress = { progress?: unknown; total?: unknown; message?: unknown };

/** A checker for one call's downstream progress: each raw notification that passes goes to `send`. */
export function progressRelay(send: (p: DownstreamProgress) => void): (raw: RawProgress) => void {
  let last = -Infinity;
  let relayed = 0;
  return (raw) => {
    const { progress, total, message } = raw;
    if (typeof progress !== "number" || !Number.isFinite(progress) || progress <= last || relayed >= PROGRESS_RELAYED_MAX) return;
    last = progress;
    relayed++;
    send({
      progress,
      ...(typeof total === "number" && Number.isFinite(total) && { total }),
      ...(typeof message === "string" && { message: clip(message, PROGRESS_MESSAGE_CHARS_MAX) }),
    });
  };
}
