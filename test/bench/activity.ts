// The activity log's cost: what recording one event costs the caller (the line is built and
// queued; the disk is written later), and how fast a drained writer appends, rotation included.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { openActivityLog } from "../../glue/activity/log.js";
import { ACTIVITY_QUEUE_LINES_MAX } from "../../glue/decisions/generated/spec.js";
import { stats, type Stats } from "./stats.js";

const event = (i: number) => ({ connector: "desk", tool: "list_incidents", path: "program" as const, outcome: "ok", durationMs: i % 50, resultBytes: 1234 });

export async function benchActivity(): Promise<{ rows: [string, Stats, string][]; notes: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-bench-activity-"));
  try {
    const log = openActivityLog(dir);
    const batch = ACTIVITY_QUEUE_LINES_MAX;
    const record: number[] = [];
    const drain: number[] = [];
    for (let r = 0; r < 100; r++) {
      const t = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) log.call(event(i));
      record.push(Number(process.hrtime.bigint() - t) / 1000 / batch);
      const d = process.hrtime.bigint();
      await log.flush();
      drain.push(Number(process.hrtime.bigint() - d) / 1000 / batch);
    }
    const files = readdirSync(join(dir, "activity"));
    const bytes = files.reduce((n, f) => n + statSync(join(dir, "activity", f)).size, 0);
    return {
      rows: [
        ["activity: record one event (caller's side)", stats(record), "µs"],
        ["activity: append one queued event (disk, amortised)", stats(drain), "µs"],
      ],
      notes: [`after ${100 * batch} events: ${files.length} files, ${bytes} bytes kept`],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
