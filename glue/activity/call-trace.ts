// One downstream call as the activity log sees it: which connector and tool, by which path, how
// long the connector took, what came back (an outcome code and the result's size in bytes, never
// the result). invoke.ts runs each call inside one; a call whose address never resolved to a tool
// is not a downstream call and is not recorded (its meta-tool event carries the outcome).
import type { ActivitySink, CallPath } from "./events.js";
import { noActivity, outcomeOf } from "./events.js";

export class CallTrace {
  private started?: number;
  private tool?: { connector: string; name: string };

  constructor(private readonly sink: ActivitySink | undefined, private readonly path: CallPath) {}

  /** Runs `call` and records its outcome. */
  async around<T extends { result: { isError?: boolean } }>(call: (trace: CallTrace) => Promise<T>): Promise<T> {
    let out: T;
    try {
      out = await call(this);
    } catch (e) {
      this.end(outcomeOf(e), () => 0);
      throw e;
    }
    this.end(out.result.isError ? "tool_error" : "ok", () => bytesOf(out.result));
    return out;
  }

  /** The address named this tool. */
  resolved(connector: string, name: string): void {
    this.tool = { connector, name };
  }

  /** The connector is about to be called (the time before it — waiting for an approval — is not the call's); returns the time. */
  start(): number {
    this.started = performance.now();
    return this.started;
  }

  /** Records the call; the result is measured only when a log will hold the figure. */
  private end(outcome: string, resultBytes: () => number): void {
    if (!this.sink || this.sink === noActivity || !this.tool) return;
    const durationMs = this.started === undefined ? 0 : performance.now() - this.started;
    this.sink.call({ connector: this.tool.connector, tool: this.tool.name, path: this.path, outcome, durationMs, resultBytes: resultBytes() });
  }
}

/** A result's size as JSON, in UTF-8 bytes (0 when it cannot be serialised). */
function bytesOf(result: unknown): number {
  try { return Buffer.byteLength(JSON.stringify(result) ?? ""); } catch { return 0; }
}
