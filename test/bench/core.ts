// Decision-core call cost: µs per call, measured over batches of many calls.
import { core } from "../../glue/decisions/core.js";
import { checkManifest } from "../../glue/views/manifest.js";
import { Budget, Hint, Operator } from "../../glue/decisions/generated/spec.js";
import { stats, type Stats } from "./stats.js";

function perCall(fn: (i: number) => unknown, batch = 20_000, rounds = 30): Stats {
  for (let i = 0; i < batch; i++) fn(i); // warm
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn(i);
    samples.push(Number(process.hrtime.bigint() - t) / 1000 / batch);
  }
  return stats(samples);
}

export function benchCore(): [string, Stats, string][] {
  const c = core();
  const reads = { incidents: { address: "desk.list_incidents", fixedArgs: { status: "open" }, viewArgs: ["cursor", "limit"] }, detail: { address: "desk.get_incident", viewArgs: ["id"] } };
  return [
    ["core: classifyTool", perCall((i) => c.classifyTool(i % 4, Hint.absent, Operator.none, 0)), "µs"],
    ["core: budgetCheck", perCall((i) => c.budgetCheck(Budget.host_calls, i % 20, 1, 20)), "µs"],
    ["core: detectHost", perCall((i) => c.detectHost({ ext: 1, mime: 1, appMime: (i & 1) === 0, override: 0, fileFallback: true })), "µs"],
    ["core: envelope", perCall((i) => c.envelope(true, i & 1, 2, 1)), "µs"],
    ["core: nameIsValid (12-char string)", perCall(() => c.nameIsValid("incident_row")), "µs"],
    ["core: manifest of 2 bindings (13 calls)", perCall(() => checkManifest(c, reads, () => "read_only"), 5_000), "µs"],
  ];
}
