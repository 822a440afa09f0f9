// `atrium doctor`: starts every connector, prints its health, tool count and how many
// tools are read-only vs approval-required, with the reason for each failure.
import { createApp } from "../app.js";
import type { AtriumConfig } from "../config/schema.js";
import { classReasonText } from "../decision-messages.js";

export async function doctor(config: AtriumConfig, source: string, version: string): Promise<number> {
  const app = createApp(config, version);
  const out: string[] = [`atrium ${version} doctor`, `config: ${source}`, ""];
  await app.registry.startAll();
  const entries = app.catalog.entries();
  let failed = 0;
  for (const c of app.registry.connectors) {
    const mine = entries.filter((e) => e.connectorId === c.id);
    const ro = mine.filter((e) => e.safety === "read_only").length;
    const where = c.config.kind === "stdio" ? [c.config.command, ...c.config.args].join(" ") : c.config.url;
    out.push(`${c.state === "ready" ? "ok  " : c.state === "disabled" ? "off " : "FAIL"} ${c.id} (${c.config.kind}: ${where})`);
    if (c.state === "ready") {
      out.push(`     ${mine.length} tools: ${ro} read-only, ${mine.length - ro} approval-required`);
      const counts = new Map<string, number>();
      for (const e of mine.filter((e) => e.safety === "approval")) counts.set(e.reason, (counts.get(e.reason) ?? 0) + 1);
      for (const [reason, n] of counts) out.push(`       ${n} × ${classReasonText[reason as keyof typeof classReasonText] ?? reason}`);
      for (const e of mine.filter((e) => e.reason === "promotion_refused_destructive")) out.push(`       ! ${e.name}: listed in readOnlyTools but marked destructive; left behind approval`);
    } else if (c.state !== "disabled") {
      failed++;
      out.push(`     ${c.problem ?? c.state}`);
      const tail = c.stderr.tail(8);
      if (tail) out.push("     stderr:", ...tail.split("\n").map((l) => `       ${l}`));
    }
  }
  await app.registry.stopAll();
  out.push("", failed === 0 ? "all connectors healthy" : `${failed} connector(s) failed`);
  process.stderr.write(out.join("\n") + "\n");
  return failed === 0 ? 0 : 1;
}
