// One downstream server: start (without blocking atrium's own initialize), list its tools
// to completion, follow tools/list_changed, restart with backoff after a crash, and turn
// every failure of a call into a typed error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode as McpErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ConnectorConfig } from "../config/schema.js";
import { AtriumError, clampEcho } from "../errors.js";
import { StderrRing } from "./stderr-ring.js";
import { createTransport, type ConnectorTransport } from "./transports.js";
import { LooseResult, readToolResult, readToolsPage, type DownstreamTool, type ToolResult } from "./downstream-shapes.js";

export type ConnectorState = "starting" | "ready" | "restarting" | "failed" | "disabled" | "stopped";

export interface ConnectorLimits { startMs: number; restartMaxMs: number; stderrBytes: number }

const FIRST_BACKOFF_MS = 250;
const MAX_PAGES = 1000; // a downstream that pages forever is cut off, not followed

export class Connector {
  state: ConnectorState;
  tools: DownstreamTool[] = [];
  /** Why the connector is not ready (start failure, crash), for search, doctor and errors. */
  problem?: string;
  restarts = 0;
  readonly stderr: StderrRing;
  private client?: Client;
  private handle?: ConnectorTransport;
  private restartTimer?: NodeJS.Timeout;
  private readyAt = 0;
  private settledWaiters: (() => void)[] = [];

  constructor(
    readonly config: ConnectorConfig,
    private readonly limits: ConnectorLimits,
    private readonly version: string,
    private readonly onChange: () => void,
  ) {
    this.stderr = new StderrRing(limits.stderrBytes);
    this.state = config.disabled ? "disabled" : "starting";
  }

  get id(): string { return this.config.id; }
  get pid(): number | null { return this.handle?.pid() ?? null; }

  /** Resolves once the connector is ready or has failed; never rejects. */
  async start(): Promise<void> {
    if (this.state === "disabled") return this.settle();
    try {
      await this.connect();
      this.setState("ready");
    } catch (e) {
      this.problem = `failed to start: ${describe(e)}`;
      await this.dropClient();
      this.setState("failed");
    }
    this.settle();
  }

  /** Waits until the connector is no longer starting (ready, failed, disabled, stopped). */
  settled(): Promise<void> {
    if (this.state !== "starting") return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  async call(name: string, args: Record<string, unknown>, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<ToolResult> {
    const client = this.client;
    if (this.state !== "ready" || !client) throw this.unavailable();
    let raw: Record<string, unknown>;
    try {
      raw = await client.request({ method: "tools/call", params: { name, arguments: args } }, LooseResult, { timeout: opts.timeoutMs, signal: opts.signal });
    } catch (e) {
      throw this.callError(name, e, opts);
    }
    const read = readToolResult(raw);
    if (!read.ok) throw new AtriumError("connector_call_failed", `${this.id}.${name} returned a malformed result: ${read.reason}`, { details: { connector: this.id } });
    return read.value;
  }

  async stop(): Promise<void> {
    clearTimeout(this.restartTimer);
    if (this.state !== "disabled") this.setState("stopped");
    await this.dropClient();
    this.settle();
  }

  /** The unavailable error for this connector's current state, with the stderr tail. */
  unavailable(): AtriumError {
    const tail = this.stderr.tail(5);
    const why = this.state === "disabled" ? "is disabled in the config" : this.state === "starting" ? "is still starting" : this.state === "stopped" ? "has been stopped" : (this.problem ?? `is ${this.state}`);
    return new AtriumError("unavailable", `connector ${this.id} ${why}${tail ? `; its stderr ends with:\n${tail}` : ""}`, { details: { connector: this.id, state: this.state } });
  }

  private async connect(): Promise<void> {
    const handle = createTransport(this.config, this.stderr);
    const client = new Client({ name: "atrium", version: this.version }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refreshTools());
    client.onclose = () => this.onClosed(client);
    this.handle = handle;
    this.client = client;
    const deadline = this.limits.startMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${deadline} ms`)), deadline); });
    try {
      await Promise.race([client.connect(handle.transport).then(() => this.listTools(client, deadline)).then((t) => { this.tools = t; }), timeout]);
    } finally {
      clearTimeout(timer);
    }
    this.problem = undefined;
    this.readyAt = Date.now();
  }

  private async listTools(client: Client, timeoutMs: number): Promise<DownstreamTool[]> {
    const tools: DownstreamTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const raw = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, LooseResult, { timeout: timeoutMs });
      const read = readToolsPage(raw);
      for (const t of read.tools) if (!seen.has(t.name)) { seen.add(t.name); tools.push(t); }
      if (!read.nextCursor || read.nextCursor === cursor) break;
      cursor = read.nextCursor;
    }
    return tools;
  }

  private async refreshTools(): Promise<void> {
    const client = this.client;
    if (!client || this.state !== "ready") return;
    try {
      this.tools = await this.listTools(client, this.limits.startMs);
      this.onChange();
    } catch (e) {
      this.problem = `could not refresh its tools: ${describe(e)}`;
    }
  }

  private onClosed(client: Client): void {
    if (client !== this.client || this.state === "stopped" || this.state === "disabled") return;
    const wasStarting = this.state === "starting";
    this.client = undefined;
    if (wasStarting) return; // start() reports the failure
    // A connector that stayed up longer than the longest backoff starts its backoff over.
    if (Date.now() - this.readyAt > this.limits.restartMaxMs) this.restarts = 0;
    this.problem = "exited unexpectedly; restarting";
    this.setState("restarting");
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = Math.min(this.limits.restartMaxMs, FIRST_BACKOFF_MS * 2 ** this.restarts);
    this.restarts++;
    this.restartTimer = setTimeout(async () => {
      if (this.state !== "restarting") return;
      try {
        await this.connect();
        this.setState("ready");
      } catch (e) {
        this.problem = `crashed and could not restart: ${describe(e)}`;
        await this.dropClient();
        if (this.state === "restarting") this.scheduleRestart();
      }
    }, delay);
    this.restartTimer.unref();
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    try { await client?.close(); } catch { /* already gone */ }
    try { await this.handle?.transport.close(); } catch { /* already gone */ }
  }

  private callError(name: string, e: unknown, opts: { timeoutMs: number; signal?: AbortSignal }): AtriumError {
    const details = { connector: this.id, tool: name };
    if (opts.signal?.aborted) return new AtriumError("cancelled", `the call to ${this.id}.${name} was cancelled`, { details });
    // A remote server's HTTP status (StreamableHTTPError carries it as `code`).
    if (e instanceof StreamableHTTPError) {
      if (e.code === 429) return new AtriumError("rate_limited", `${this.id} is rate limiting calls (HTTP 429); wait and retry`, { details });
      if (e.code === 401 || e.code === 403) return new AtriumError("auth_required", `${this.id} refused the credentials in its headers (HTTP ${e.code}); the operator must update them`, { details });
      if (e.code !== undefined && e.code >= 500) return new AtriumError("unavailable", `${this.id} answered HTTP ${e.code}`, { details });
    }
    if (e instanceof McpError) {
      if (e.code === McpErrorCode.RequestTimeout) return new AtriumError("timeout", `${this.id}.${name} did not answer within ${opts.timeoutMs} ms`, { details });
      if (e.code === McpErrorCode.ConnectionClosed) return this.unavailable();
      if (e.code === McpErrorCode.InvalidParams) return new AtriumError("invalid_args", `${this.id}.${name} rejected its arguments: ${clampEcho(e.message)}`, { details });
    }
    if (this.state !== "ready") return this.unavailable();
    return new AtriumError("connector_call_failed", `${this.id}.${name} failed: ${clampEcho(describe(e))}`, { details });
  }

  private setState(state: ConnectorState): void {
    if (this.state === state) return;
    this.state = state;
    this.onChange();
  }

  private settle(): void {
    for (const w of this.settledWaiters.splice(0)) w();
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
