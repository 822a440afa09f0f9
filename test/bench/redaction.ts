// Secret redaction's cost per result (in-process, the real rules): what one downstream result of
// about 1 MiB costs before anyone sees it — as plain text with a token near its end, as a JSON
// text and the same data as structuredContent (the common shape), and twice the text (the cost
// grows with the size, not faster); and what it adds to every call, on a small result.
import { redactToolResult } from "../../glue/results/secrets/redact.js";
import { FAKE, largeText } from "../fixtures/fake-credentials.js";
import { stats, type Stats } from "./stats.js";

const RUNS = 40;

async function perResult(result: { content: unknown[]; structuredContent?: unknown }): Promise<Stats> {
  for (let w = 0; w < 5; w++) await redactToolResult(result); // warm: the rules load on the first scan, the JIT on the next
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = process.hrtime.bigint();
    await redactToolResult(result);
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return stats(samples);
}

/** About `bytes` of JSON rows (ids, names, URLs, notes), the last one holding a token. */
function rows(bytes: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const row = { id: i, name: `order ${i}`, url: `https://shop.example.test/orders/${i}?page=1`, note: "naïve café — ✓", tags: ["open", "paid"] };
    out.push(row);
    size += JSON.stringify(row).length;
  }
  out.push({ id: -1, note: `key ${FAKE.github.secret}` });
  return out;
}

/** µs per small result (a ticket as JSON text and as structuredContent), over batches of many. */
async function perSmallResult(): Promise<Stats> {
  const ticket = { id: "INC-1042", title: "Checkout latency above 2 s", status: "open", service: "payments", opened: "2026-11-30T08:12:00Z" };
  const result = { content: [{ type: "text", text: JSON.stringify(ticket) }], structuredContent: ticket };
  const batch = 2_000;
  for (let i = 0; i < batch; i++) await redactToolResult(result); // warm
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await redactToolResult(result);
    samples.push(Number(process.hrtime.bigint() - t) / 1000 / batch);
  }
  return stats(samples);
}

export async function benchRedaction(): Promise<{ rows: [string, Stats, string][]; notes: string[] }> {
  const text = largeText(FAKE.github.secret);
  const data = rows(Buffer.byteLength(text) / 2);
  const json = { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: { rows: data } };
  const bytes = (r: unknown) => (Buffer.byteLength(JSON.stringify(r)) / 1_048_576).toFixed(2);
  return {
    rows: [
      ["redact a 1 MiB text result (a token near its end)", await perResult({ content: [{ type: "text", text }] }), "ms"],
      ["redact a 1 MiB JSON result (text + the same as structuredContent)", await perResult(json), "ms"],
      ["redact a 2 MiB text result", await perResult({ content: [{ type: "text", text: text + text }] }), "ms"],
      ["redact a small result (one JSON object, text + structuredContent)", await perSmallResult(), "µs"],
    ],
    notes: [`results of ${bytes({ content: [{ type: "text", text }] })} MiB, ${bytes(json)} MiB and twice the first, as JSON; ${RUNS} runs each`],
  };
}
