// Builds the client transport for one connector entry: a stdio child read as bounded lines
// (stderr kept in the ring, exit status remembered for start-failure messages, its environment
// from child-env.ts with the nesting marker last) or a remote Streamable HTTP server (with its
// headers, or with atrium's OAuth provider when it has no Authorization header: glue/auth/),
// whose requests report a lost session or an unreachable server to `onLost` (remote-loss.ts). Both
// read each message under the same bounds (downstream_line_bytes, downstream_depth).
import { StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import type { ConnectorConfig } from "../config/schema.js";
import { core } from "../decisions/core.js";
import { Budget } from "../decisions/generated/spec.js";
import type { StderrRing } from "./stderr-ring.js";
import type { ExitFacts } from "./start-failure.js";
import { NESTING_ENV } from "./nesting.js";
import { childEnvironment } from "./child-env.js";
import { BoundedStdioClient } from "./stdio-client.js";
import { probeWatchingFetch } from "./revision.js";
import { boundedAuthFetch } from "../auth/bounded-fetch.js";
import { ConnectorOAuth } from "../auth/provider.js";
import { tokenStore } from "../auth/store.js";
import { oauthOffered } from "../auth/offered.js";
import { lossWatchingFetch, type RemoteLoss } from "./remote-loss.js";
import { boundedAnswerFetch } from "./bounded-answer-fetch.js";
import type { LineLimits } from "../support/line-reader.js";

export interface ConnectorTransport {
  transport: Transport;
  pid(): number | null;
  exit(): ExitFacts | undefined;
  /** What came back to a server/discover probe on this transport, in words (revision.ts), if anything did. */
  probeAnswer(): string | undefined;
}

/** One message from a connector, on either transport: at most downstream_line_bytes, downstream_depth deep. */
function messageLimits(): LineLimits {
  const c = core();
  return { maxBytes: c.limitDefault(Budget.downstream_line_bytes), maxDepth: c.limitDefault(Budget.downstream_depth), maxIdBytes: c.limitDefault(Budget.echo_clamp_chars) };
}

/** `owner`: the principal whose login records the OAuth provider reads and writes (`local` but for a per-user connector's instance). */
export function createTransport(config: ConnectorConfig, stderr: StderrRing, depth: number, onLost: (loss: RemoteLoss) => void, owner: string): ConnectorTransport {
  if (config.kind === "http") {
    let answer: string | undefined;
    // A login is offered when the config sets no Authorization header of its own; then every
    // answer but the MCP endpoint's is read under the auth caps before the SDK parses it. The MCP
    // endpoint's answers are read under the message bounds (bounded-answer-fetch.ts), before the
    // probe watcher or the SDK reads them.
    const mcpFetch = boundedAnswerFetch(config.url, messageLimits(), lossWatchingFetch(config.url, onLost));
    const fetchFn = boundedAuthFetch(config.url, probeWatchingFetch((a) => { answer = a; }, mcpFetch));
    const oauth = oauthOffered(config) ? new ConnectorOAuth(config, tokenStore().ownedBy(owner), fetchFn) : undefined;
    // O14: a 403 of the MCP endpoint is judged by the provider (a step-up is needs_auth) before the SDK reads it.
    const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: oauth ? oauth.watchForbidden(fetchFn) : fetchFn, ...(oauth && { authProvider: oauth.forTransport() }) });
    return { transport, pid: () => null, exit: () => undefined, probeAnswer: () => answer };
  }
  const transport = new BoundedStdioClient(
    // The nesting marker goes last so a config cannot reset it.
    { command: config.command, args: config.args, env: { ...childEnvironment(config.env, config.inheritEnv), [NESTING_ENV]: String(depth) }, cwd: config.cwd ?? undefined },
    messageLimits(),
    (text) => stderr.push(text),
  );
  return { transport, pid: () => transport.pid, exit: () => transport.exit, probeAnswer: () => transport.probeAnswer };
}
