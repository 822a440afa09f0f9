// A 2026-07-28 retry that lands on a replica other than the one holding its parked run is carried
// there over the store's bus: the holder checks the state as for its own retries, resumes the run
// and sends the leg's answer (the result, or the next question) back on the asking replica's
// channel. Nobody listening on the holder's channel means it is gone: the retry answers at once,
// never a hang; a holder that does not answer within the run's wall time counts as gone too. A
// retry cancelled on the asking replica abandons the run on the holder. Every message heard is
// parsed and checked before it is used.
import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Bus } from "../support/bus.js";
import { isJsonObject } from "../support/json-object.js";
import { ParkedRun, type LegResult, type ParkedRuns } from "./parked-runs.js";

/** What a forwarded retry came to. */
export type Forwarded = { kind: "leg"; result: LegResult } | { kind: "not_found" } | { kind: "gone" };

interface Resume { kind: "resume"; corr: string; reply: string; state: string; code: string; principal: string; responses?: Record<string, unknown> }
interface Leg { kind: "leg"; corr: string; result?: LegResult }
interface Abandon { kind: "abandon"; corr: string }

const channelOf = (replica: string) => `replica:${replica}`;

function heard(text: string): Resume | Leg | Abandon | undefined {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(m) || typeof m.corr !== "string") return undefined;
  if (m.kind === "resume" && typeof m.reply === "string" && typeof m.state === "string" && typeof m.code === "string" && typeof m.principal === "string" && (m.responses === undefined || isJsonObject(m.responses))) return m as unknown as Resume;
  if (m.kind === "leg" && (m.result === undefined || isJsonObject(m.result))) return m as unknown as Leg;
  if (m.kind === "abandon") return m as unknown as Abandon;
  return undefined;
}

export class ParkedRelay {
  /** Retries this replica carried elsewhere, waiting for their leg. */
  private readonly waiting = new Map<string, (leg: Leg) => void>();
  /** Legs this replica runs for another one, by the asking replica's id for them. */
  private readonly serving = new Map<string, AbortController>();

  constructor(private readonly bus: Bus, private readonly runs: ParkedRuns, private readonly waitMs: () => number) {}

  async listen(): Promise<void> {
    await this.bus.subscribe(channelOf(this.bus.replica), (text) => {
      const m = heard(text);
      if (m?.kind === "leg") this.waiting.get(m.corr)?.(m);
      else if (m?.kind === "abandon") this.serving.get(m.corr)?.abort();
      else if (m?.kind === "resume") void this.serve(m);
    });
  }

  async forward(replica: string, retry: { state: string; code: string; principal: string; responses?: Record<string, unknown> }, signal: AbortSignal): Promise<Forwarded> {
    const corr = randomUUID();
    const answered = new Promise<Leg>((resolve) => this.waiting.set(corr, resolve));
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => void this.bus.publish(channelOf(replica), JSON.stringify({ kind: "abandon", corr } satisfies Abandon)).catch(() => {});
    try {
      const listening = await this.bus.publish(channelOf(replica), JSON.stringify({ kind: "resume", corr, reply: channelOf(this.bus.replica), ...retry } satisfies Resume));
      if (listening === 0) return { kind: "gone" };
      signal.addEventListener("abort", onAbort, { once: true });
      const late = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), this.waitMs()); });
      const aborted = new Promise<undefined>((resolve) => signal.addEventListener("abort", () => resolve(undefined), { once: true }));
      const leg = await Promise.race([answered, late, aborted]);
      if (!leg) return { kind: "gone" };
      return leg.result ? { kind: "leg", result: leg.result } : { kind: "not_found" };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      this.waiting.delete(corr);
    }
  }

  /** Runs a leg another replica carried here and sends its answer back; a state this process did not mint answers "not found". */
  private async serve(m: Resume): Promise<void> {
    const found = this.runs.open(m.state, { id: m.principal });
    const life = new AbortController();
    this.serving.set(m.corr, life);
    try {
      const leg = found && "run" in found && found.run.code === m.code ? found.run.resume(found.seq, ParkedRun.responseOf(m.responses), life.signal) : undefined;
      const result: LegResult | undefined = leg ? await leg.catch((e: unknown) => ({ content: [{ type: "text", text: String((e as Error)?.message ?? e) }], isError: true }) as CallToolResult) : undefined;
      await this.bus.publish(m.reply, JSON.stringify({ kind: "leg", corr: m.corr, ...(result && { result }) } satisfies Leg));
    } catch {
      // The asking replica hears nothing and answers "gone" when its wait runs out.
    } finally {
      this.serving.delete(m.corr);
    }
  }
}
