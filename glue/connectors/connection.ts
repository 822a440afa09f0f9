// Opens a connector's connection for one start attempt: its transport (the stdio child, or
// Streamable HTTP with its headers or atrium's OAuth provider: transports.ts) and an SDK client
// that carries atrium's capabilities and what the server sends on toward the host
// (passthrough.ts), connected at the protocol revision reached (revision.ts: server/discover
// first, or what worked before, with its recoveries). Each transport and client it opens becomes
// the connector's current one at once, so the connector hears of their end and can close them.
import { Client } from "@modelcontextprotocol/client";
import type { ConnectorConfig } from "../config/schema.js";
import type { StderrRing } from "./stderr-ring.js";
import { createTransport, type ConnectorTransport } from "./transports.js";
import { reachRevision, type Reached, type Verdict } from "./revision.js";
import type { RemoteLoss } from "./remote-loss.js";
import type { DownstreamPassthrough } from "./passthrough.js";

/** What opening a connection needs of its connector, and what it tells it. */
export interface ConnectionHost {
  readonly config: ConnectorConfig;
  readonly stderr: StderrRing;
  readonly version: string;
  readonly passthrough: DownstreamPassthrough;
  /** How deep this atrium is nested (the child's marker), and whose login the transport carries. */
  readonly depth: number;
  readonly owner: string;
  /** Closes the current connection, if any, before a new one is opened. */
  drop(): Promise<void>;
  /** Makes this transport and client the current ones. */
  adopt(client: Client, handle: ConnectorTransport): void;
  /** The transport in use now (what came back to its probe). */
  handle(): ConnectorTransport | undefined;
  isCurrent(client: Client): boolean;
  /** The server announced that its tools changed. */
  listChanged(client: Client, cause: string): void;
  /** The client's connection closed. */
  closed(client: Client): void;
  /** A remote server lost the session or could not be reached (remote-loss.ts). */
  remoteLost(handle: ConnectorTransport, loss: RemoteLoss): void;
}

/** Connects, negotiating the revision from `remembered` (what worked before) and the connector's setting; rejects as the SDK's connect does. */
export function openConnection(host: ConnectionHost, remembered: Verdict | undefined, signal: AbortSignal): Promise<Reached> {
  return reachRevision(host.config, remembered, async (negotiation, options) => {
    if (signal.aborted) throw new Error("the start attempt was given up");
    await host.drop();
    const handle: ConnectorTransport = createTransport(host.config, host.stderr, host.depth, (loss) => host.remoteLost(handle, loss), host.owner);
    const client = new Client({ name: "atrium", version: host.version }, { capabilities: host.passthrough.capabilities, versionNegotiation: negotiation });
    client.setNotificationHandler("notifications/tools/list_changed", () => host.listChanged(client, "announced that its tools changed"));
    host.passthrough.install(client, host.config.id, () => host.isCurrent(client));
    client.onclose = () => host.closed(client);
    host.adopt(client, handle);
    await client.connect(handle.transport, options);
    return client;
  }, () => host.handle()?.probeAnswer(), signal);
}
