// The client side of a stdio connector: spawns the server, and reads its stdout as bounded
// lines (downstream_line_bytes, downstream_depth) so one huge or deeply nested message is
// dropped while it is read instead of buffered, and the call it answered fails at once with
// result_too_large while the connector keeps serving. The SDK's own stdio client buffers up
// to 10 MB per message and then closes the connection (killing the server); this one is the
// same protocol with a bound and the child's exit status kept for start-failure messages. Answers
// reach the client in order with the notifications read before them (a call's last progress).
import type { ChildProcess } from "node:child_process";
import spawn from "cross-spawn";
import { deserializeMessage, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { LineReader, type Line, type LineLimits } from "../support/line-reader.js";
import type { ExitFacts } from "./start-failure.js";
import { CONNECTOR_CLOSE_GRACE_MS } from "../decisions/generated/spec.js";
import { droppedAnswer, droppedWhy } from "./dropped-answer.js";
import { probeAnswerWords } from "./revision.js";

export interface StdioClientParams { command: string; args: string[]; env: Record<string, string>; cwd?: string }

export class BoundedStdioClient implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  exit?: ExitFacts;
  /** What came back to a server/discover probe sent on this channel, in words (revision.ts). */
  probeAnswer?: string;
  private probeId?: string | number;
  private child?: ChildProcess;
  private readonly reader: LineReader;

  constructor(private readonly params: StdioClientParams, private readonly limits: LineLimits, private readonly onStderr: (text: string) => void) {
    this.reader = new LineReader(limits, (line) => this.onLine(line));
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * The child's stderr (read into the connector's ring). With `pid` it is how the SDK client
   * recognises a stdio channel: its server/discover probe then takes silence for a 2025-11-25
   * server, not an outage (connectors/revision.ts).
   */
  get stderr(): NodeJS.ReadableStream | null {
    return this.child?.stderr ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("this connector transport is already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: this.params.env, // the whole environment (connectors/child-env.ts)
        cwd: this.params.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.once("error", (e) => { reject(e); this.onerror?.(e); });
      child.once("spawn", () => resolve());
      child.once("exit", (code, signal) => { this.exit = { code, signal }; });
      child.once("close", () => { this.child = undefined; this.onclose?.(); });
      child.stdout!.on("data", (chunk: Buffer) => this.reader.push(chunk));
      child.stderr!.on("data", (chunk: Buffer) => this.onStderr(chunk.toString()));
      child.stdin!.on("error", (e) => this.onerror?.(e));
      child.stdout!.on("error", (e) => this.onerror?.(e));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error("Not connected"));
    if ("method" in message && message.method === "server/discover" && "id" in message) this.probeId = message.id;
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const closed = new Promise<void>((r) => child.once("close", () => r()));
    const grace = () => Promise.race([closed, new Promise<void>((r) => setTimeout(r, CONNECTOR_CLOSE_GRACE_MS).unref())]);
    try { child.stdin?.end(); } catch { /* gone */ }
    await grace();
    if (child.exitCode === null && child.signalCode === null) {
      try { child.kill("SIGTERM"); } catch { /* gone */ }
      await grace();
    }
    if (child.exitCode === null && child.signalCode === null) try { child.kill("SIGKILL"); } catch { /* gone */ }
    this.onclose?.();
  }

  private onLine(line: Line): void {
    if (line.bytes === 0) return;
    if (line.text === undefined) return this.dropped(line);
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line.text.toString("utf8"));
    } catch (e) {
      this.onerror?.(e as Error);
      return;
    }
    if (this.probeId !== undefined && !("method" in message) && "id" in message && message.id === this.probeId) {
      this.probeId = undefined;
      this.probeAnswer = probeAnswerWords(message);
    }
    // The SDK client runs a notification's handler a microtask later but settles an answer at
    // once: an answer goes a microtask later too, so a progress read just before it is not lost.
    if (!("method" in message)) queueMicrotask(() => this.onmessage?.(message));
    else this.onmessage?.(message);
  }

  /** An answer too large or too deep to read: its request fails now, the connection stays. */
  private dropped(line: Line): void {
    const why = droppedWhy(line, this.limits);
    if (line.top.resultOrError && line.top.id !== undefined) {
      this.onmessage?.(droppedAnswer(line.top.id, why));
    } else {
      this.onerror?.(new Error(`a message from the server ${why}; it was dropped unread`));
    }
  }
}
