// Which protocol revision a connector speaks, and how atrium got there (issue 10, item 3).
//
// A connector's "protocol" setting (atrium.json) is "auto" (the default), "2025-11-25" or
// "2026-07-28". "auto" asks the SDK client to probe with server/discover and to fall back to the
// 2025-11-25 initialize handshake on any sign of an older server, on the connection it opened:
// over Streamable HTTP that is the only way; over stdio it is atrium's own bounded child (the
// SDK's probe on a throwaway sibling process is only for its own StdioClientTransport), so the
// probe has its own short deadline (CONNECTOR_PROBE_MS; a stdio server silent that long is a
// 2025-11-25 server that ignores unknown requests before initialize) and two recoveries:
//   - the process exited on the probe (servers on some SDKs exit on any request before
//     initialize): it is started again without the probe, straight to initialize;
//   - the server refused initialize and named only 2026-07-28 (a 2026-only server that missed
//     the probe's deadline, or answered server/discover wrongly): it is connected again pinned
//     to 2026-07-28, where only a usable server/discover answer will do.
// What worked is remembered for the connector's later restarts and retries (`Verdict`), so a
// server that dies on the probe is probed once per atrium process, not once per restart.
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, type Client, type ConnectOptions, type FetchLike, type PriorDiscovery, type VersionNegotiationOptions } from "@modelcontextprotocol/client";
import type { ConnectorConfig } from "../config/schema.js";
import { CONNECTOR_PROBE_MS, STATELESS_REVISION } from "../decisions/generated/spec.js";
import { isJsonObject } from "../support/json-object.js";
import { clampEcho } from "../support/errors.js";

/** A revision atrium reached before, in the form the SDK's connect takes it back (`prior`). */
export type Verdict = PriorDiscovery;

/** One way to connect: how the client negotiates, and the words doctor shows when it worked. */
interface Plan {
  negotiation?: VersionNegotiationOptions;
  prior?: Verdict;
  how: string;
}

/** What a connection reached: the negotiated revision, how, and the verdict to remember. */
export interface Reached { revision: string; how: string; verdict: Verdict; modern: boolean }

/** Opens a fresh transport and client (closing the previous ones) and connects; rejects as the SDK's connect does. */
export type Connect = (negotiation: VersionNegotiationOptions | undefined, options: ConnectOptions) => Promise<Client>;

const MODERN: VersionNegotiationOptions["mode"] = { pin: STATELESS_REVISION };

/** The first way to try, from the setting and what worked before. */
function firstPlan(config: ConnectorConfig, remembered: Verdict | undefined): Plan {
  const deadline = config.startTimeoutMs;
  if (remembered) return { prior: remembered, how: `${remembered.kind === "modern" ? "server/discover" : "initialize"}, as on its first connection` };
  if (config.protocol === "2025-11-25") return { negotiation: { mode: "legacy" }, how: `initialize ("protocol" is set to 2025-11-25)` };
  if (config.protocol === STATELESS_REVISION) return { negotiation: { mode: MODERN, probe: { timeoutMs: deadline } }, how: `server/discover ("protocol" is set to ${STATELESS_REVISION})` };
  // Over HTTP a probe that is not answered is an outage, not a verdict: it gets the whole start deadline.
  const probeMs = config.kind === "stdio" ? Math.min(CONNECTOR_PROBE_MS, deadline) : deadline;
  return { negotiation: { mode: "auto", probe: { timeoutMs: probeMs } }, how: "" };
}

/**
 * How an auto connection that worked got there. The SDK does not say why it fell back, so the
 * transport tells what came back to the probe (`answer`, see `probeAnswerWords`).
 */
function autoHow(client: Client, config: ConnectorConfig, answer: string | undefined): string {
  if (client.getProtocolEra() === "modern") return "server/discover";
  if (answer === "a result") return `initialize, after server/discover was answered with a result that is not a usable ${STATELESS_REVISION} one (malformed, or not offering it)`;
  if (answer !== undefined) return `initialize, after server/discover was answered with ${answer}`;
  if (config.kind === "stdio") return `initialize, after server/discover had no answer within ${Math.min(CONNECTOR_PROBE_MS, config.startTimeoutMs)} ms`;
  return `initialize, after server/discover offered no ${STATELESS_REVISION}`;
}

/** What came back to a server/discover probe, in words: "a result", "an error (MCP error <code>: <message>)", or undefined when `message` is neither. */
export function probeAnswerWords(message: unknown): string | undefined {
  if (!isJsonObject(message)) return undefined;
  if (isJsonObject(message.error)) return `an error (MCP error ${String(message.error.code)}: ${clampEcho(String(message.error.message ?? ""))})`;
  return "result" in message ? "a result" : undefined;
}

/**
 * A fetch for a remote connector's transport that notes what came back to a server/discover
 * probe (`record`): an HTTP status, or the JSON-RPC answer of a JSON body. Everything else
 * passes through untouched.
 */
export function probeWatchingFetch(record: (answer: string) => void, inner: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    if (typeof init?.body === "string" && init.body.includes("server/discover")) {
      let probe = false;
      try { probe = (JSON.parse(init.body) as { method?: unknown }).method === "server/discover"; } catch { /* not ours to judge */ }
      if (probe) {
        const json = response.headers.get("content-type")?.includes("application/json") ? probeAnswerWords(await response.clone().json().catch(() => undefined)) : undefined;
        if (!response.ok) record(`HTTP ${response.status}${json ? ` and ${json}` : ""}`);
        else if (json) record(json);
      }
    }
    return response;
  };
}

/**
 * Connects by the connector's setting and what worked before, with the recoveries above. The
 * error of the last try is thrown; a RevisionError when a recovery was tried.
 */
export async function reachRevision(config: ConnectorConfig, remembered: Verdict | undefined, connect: Connect, probeAnswer: () => string | undefined, signal: AbortSignal): Promise<Reached> {
  const first = firstPlan(config, remembered);
  const options = (plan: Plan): ConnectOptions => ({ timeout: config.startTimeoutMs, signal, ...(plan.prior && { prior: plan.prior }) });
  const auto = !remembered && config.protocol === "auto";
  try {
    const client = await connect(first.negotiation, options(first));
    return reached(client, auto ? autoHow(client, config, probeAnswer()) : first.how);
  } catch (e) {
    const second = auto && !signal.aborted ? recovery(config, e) : undefined;
    if (!second) throw e;
    try {
      return reached(await connect(second.negotiation, options(second)), second.how);
    } catch (again) {
      throw new RevisionError(second.why, again, second.after);
    }
  }
}

/** A recovery that failed too: why it was tried (`why`, leading words), and the second try's error. */
export class RevisionError extends Error {
  /** `after`: when the second try's own failure is the news, the first try in plain words, said after it. */
  constructor(readonly why: string, readonly last: unknown, readonly after?: string) {
    super(`${why}; then ${last instanceof Error ? last.message : String(last)}`);
  }

  /** The second try's failure when it is the pinned probe's: the server/discover answer was not usable. */
  get probeUnusable(): boolean {
    return this.last instanceof SdkError && this.last.code === SdkErrorCode.EraNegotiationFailed;
  }
}

/** What a failed recovery says, the cause first (start-failure words fill in the second try's error). */
export function revisionFailure(e: RevisionError, explain: (e: unknown) => string): string {
  if (e.probeUnusable) return `its answer to server/discover is not a usable ${STATELESS_REVISION} result (malformed, or not offering it), and ${e.why}`;
  if (e.after) return `${explain(e.last)}; ${e.after}`;
  return `${e.why}, and at the second try: ${explain(e.last)}`;
}

function reached(client: Client, how: string): Reached {
  const revision = client.getNegotiatedProtocolVersion() ?? "";
  const discover = client.getDiscoverResult();
  const modern = client.getProtocolEra() === "modern" && discover !== undefined;
  return { revision, how, modern, verdict: modern ? { kind: "modern", discover } : { kind: "legacy" } };
}

/** The second try after a failed auto connect, or none. */
function recovery(config: ConnectorConfig, e: unknown): (Plan & { why: string; after?: string }) | undefined {
  // On atrium's stdio child the probe runs in place: the SDK's only error for that channel
  // closing before any answer is EraNegotiationFailed.
  if (config.kind === "stdio" && e instanceof SdkError && e.code === SdkErrorCode.EraNegotiationFailed) {
    const why = "the process exited on the server/discover probe";
    const after = `it had also exited when atrium first opened with the newer protocol's server/discover, so atrium tried again with initialize`;
    return { prior: { kind: "legacy" }, how: `initialize, without the probe: ${why}`, why: `${why} (atrium started it again without the probe)`, after };
  }
  const offered = modernOnlyRefusal(e);
  if (offered) {
    const why = `it refuses initialize, offering only ${offered.join(", ")}`;
    return { negotiation: { mode: MODERN, probe: { timeoutMs: config.startTimeoutMs } }, how: `server/discover, at the second try: ${why}`, why: `${why} (atrium asked again pinned to ${STATELESS_REVISION})` };
  }
  return undefined;
}

/** The revisions an initialize refusal names when they are all 2026-07-28 or later (over stdio a protocol error, over HTTP a 4xx whose body is one). */
function modernOnlyRefusal(e: unknown): string[] | undefined {
  let code: unknown;
  let data: unknown;
  if (e instanceof SdkHttpError) {
    try {
      const body: unknown = JSON.parse(String(e.data?.text ?? ""));
      const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : undefined;
      [code, data] = [error?.code, error?.data];
    } catch { return undefined; }
  } else if (e instanceof ProtocolError) {
    [code, data] = [e.code, e.data];
  }
  if (code !== ProtocolErrorCode.UnsupportedProtocolVersion || !isJsonObject(data) || !Array.isArray(data.supported)) return undefined;
  const supported = data.supported.filter((v): v is string => typeof v === "string");
  return supported.length > 0 && supported.every((v) => v >= STATELESS_REVISION) ? supported : undefined;
}
