// What a connector's downstream server sends that goes on toward the host, for every connector
// of the process: the client capabilities each connector declares (elicitation, form and URL),
// `notifications/prompts/list_changed` (each listener hears it: the host connections pass it on)
// and `elicitation/create` (handed to the host's asker, mcp/downstream-questions.ts, naming the
// connector that asks; with no asker — no host yet, or one that cannot be asked — declined on the
// person's behalf with the reason in `_meta`). Nothing here judges the question itself.
import type { Client, ClientCapabilities, ElicitResult } from "@modelcontextprotocol/client";

/** The downstream's elicitation/create params, unread (the asker checks them). */
export type DownstreamQuestion = Record<string, unknown>;

/** Who puts a downstream's question to the person: resolves with the answer for the asking connector. */
export type DownstreamAsker = (connectorId: string, params: DownstreamQuestion, signal: AbortSignal) => Promise<ElicitResult>;

/** The `_meta` key of a declined answer that says why atrium declined on the person's behalf. */
export const DECLINED_META_KEY = "atrium/declined";

export class DownstreamPassthrough {
  /** Declared by every connector: atrium may always answer a question, if only to decline it (the host may connect after the connector started). */
  readonly capabilities: ClientCapabilities = { elicitation: { form: {}, url: {} } };
  private readonly promptListeners = new Set<() => void>();
  private asker?: DownstreamAsker;

  /** `listener` hears every connector's prompts/list_changed; the returned function stops it. */
  onPromptsChanged(listener: () => void): () => void {
    this.promptListeners.add(listener);
    return () => this.promptListeners.delete(listener);
  }

  /** The host connection that can ask the person (or none): set by the MCP wiring. */
  askWith(asker: DownstreamAsker | undefined): void {
    this.asker = asker;
  }

  /** Installs the handlers on one connection of connector `connectorId`; `live` says whether that connection is still its current one. */
  install(client: Client, connectorId: string, live: () => boolean): void {
    client.setNotificationHandler("notifications/prompts/list_changed", () => {
      if (live()) for (const l of this.promptListeners) l();
    });
    client.setRequestHandler("elicitation/create", (request, ctx) => {
      const asker = this.asker;
      if (!asker) return declined("atrium's host cannot be asked questions (no host is connected, or it declared no elicitation capability)");
      return asker(connectorId, request.params as DownstreamQuestion, ctx.mcpReq.signal);
    });
  }
}

/** A decline atrium gives on the person's behalf, with the reason for the asking server. */
export const declined = (reason: string): ElicitResult => ({ action: "decline", _meta: { [DECLINED_META_KEY]: reason } });
