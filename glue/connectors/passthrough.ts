// What a connector's downstream server sends that goes on toward the host, for every connector
// of the process: the client capabilities each connector declares (elicitation, form and URL),
// `notifications/prompts/list_changed` (each listener hears it: the host connections pass it on;
// `promptsChanged` also when the set of connectors that offer prompts changes: a start, a reload)
// and `elicitation/create` (handed to the host's asker, calls/downstream-questions.ts, naming the
// connector that asks; with no asker — no host yet, or one that cannot be asked — declined on the
// person's behalf with the reason in `_meta`). Nothing here judges the question itself.
import type { Client, ClientCapabilities } from "@modelcontextprotocol/client";
import { declined, type DownstreamAsker } from "../calls/downstream-questions.js";
import { noHostToAskText } from "../decisions/messages.js";

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

  /** Tells every listener the prompts changed (a connector that offers prompts became ready or left). */
  promptsChanged(): void {
    for (const l of this.promptListeners) l();
  }

  /** The host connection that asks the person (set by the MCP wiring at its initialize); the returned function lets go of it (its close). */
  askWith(asker: DownstreamAsker | undefined): () => void {
    this.asker = asker;
    return () => { if (this.asker === asker) this.asker = undefined; };
  }

  /** Installs the handlers on one connection of connector `connectorId`; `live` says whether that connection is still its current one. */
  install(client: Client, connectorId: string, live: () => boolean): void {
    client.setNotificationHandler("notifications/prompts/list_changed", () => {
      if (live()) this.promptsChanged();
    });
    client.setRequestHandler("elicitation/create", (request, ctx) => {
      const asker = this.asker;
      if (!asker) return declined(noHostToAskText);
      return asker.ask(connectorId, request.params as Record<string, unknown>, ctx.mcpReq.signal);
    });
    client.setNotificationHandler("notifications/elicitation/complete", (n) => {
      if (live()) this.asker?.complete(connectorId, n.params.elicitationId);
    });
  }
}
