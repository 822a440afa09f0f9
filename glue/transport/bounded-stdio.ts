// atrium's stdio transport for the SDK Server, in place of the SDK's StdioServerTransport.
// Differences, each a failure seen with the SDK's one:
//  - Input is cut into lines bounded by request_line_bytes while it is read (the SDK's ReadBuffer
//    grows to 10 MB, then throws and closes the transport: the server stopped answering, paused
//    stdin so its end was never seen, and atrium never exited, leaving its connectors orphaned).
//  - Every line is judged by jsonrpc-guard.ts: malformed requests get exactly one error answer
//    here, only well-formed messages reach the Server.
//  - stdout errors (the host closed its end: EPIPE) close the transport instead of being an
//    unhandled 'error' event that kills the process with a stack trace; the server's onclose
//    then ends atrium (glue/commands/serve.ts).
//  - stdin is never paused, so its end always reaches the process.
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import { LineReader, type LineLimits } from "../support/line-reader.js";
import { judgeLine, type ErrorAnswer } from "./jsonrpc-guard.js";

export interface BoundedStdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Defaults: the core's request_line_bytes, request_depth and echo_clamp_chars. */
  limits?: Partial<LineLimits>;
  /** Whether the server has a handler for a request method (else the guard answers -32601). */
  serves?: (method: string) => boolean;
  /** Whether the server declares the tasks capability (else task augmentation is ignored). */
  tasks?: boolean;
  /** One line for people (default: stderr). */
  log?: (line: string) => void;
  /** Called once when the connection ends (stdin or stdout failed, or close). */
  onClosed?: () => void;
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly limits: LineLimits;
  private readonly reader: LineReader;
  private started = false;
  private closed = false;

  constructor(private readonly opts: BoundedStdioOptions = {}) {
    this.stdin = opts.stdin ?? process.stdin;
    this.stdout = opts.stdout ?? process.stdout;
    const c = core();
    this.limits = {
      maxBytes: opts.limits?.maxBytes ?? c.limitDefault(Budget.request_line_bytes),
      maxDepth: opts.limits?.maxDepth ?? c.limitDefault(Budget.request_depth),
      maxIdBytes: opts.limits?.maxIdBytes ?? c.limitDefault(Budget.echo_clamp_chars),
    };
    this.reader = new LineReader(this.limits, (line) => {
      const verdict = judgeLine(line, { limits: this.limits, serves: this.opts.serves, tasks: this.opts.tasks });
      if (verdict.kind !== "forward" && verdict.log) this.log(verdict.log);
      if (verdict.kind === "answer") this.write(verdict.answer).catch(() => {});
      else if (verdict.kind === "forward") {
        try {
          this.onmessage?.(verdict.message);
        } catch (e) {
          // A handler that throws synchronously must not stop the reading of later lines.
          this.onerror?.(e instanceof Error ? e : new Error(String(e)));
        }
      }
    });
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("BoundedStdioTransport already started");
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
    this.stdout.on("error", this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.onclose?.();
    this.opts.onClosed?.();
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  /** stdin or stdout failed (EPIPE when the host closed its end): the connection is over. */
  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error);
    void this.close();
  };

  private write(message: JSONRPCMessage | ErrorAnswer): Promise<void> {
    if (this.closed || this.stdout.destroyed) return Promise.reject(new Error("stdout is closed"));
    const json = JSON.stringify(message) + "\n";
    return new Promise((resolve, reject) => this.stdout.write(json, (e) => (e ? reject(e) : resolve())));
  }

  private log(line: string): void {
    if (this.opts.log) this.opts.log(line);
    else if (!process.stderr.destroyed) process.stderr.write(line + "\n");
  }
}
