// authorize_connector: starts (or continues) the login a remote connector needs. How it reaches
// the person is the core's (spec/oauth.md O6): a URL-mode elicitation asking the host to open the
// URL, then a bounded wait until the connector is ready; or an answer at once with the URL the
// person must open, a later call waiting (bounded) for that login to complete (and the host is
// told the elicitation is complete). A connector that needs no login answers ready.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { defineTool } from "./meta-tool.js";
import { CONNECTOR_ID_CHARS_MAX, OAuthChannel } from "../../decisions/generated/spec.js";
import type { OpenUrl } from "../../auth/authorizer.js";

export const authorizeConnector = defineTool({
  name: "authorize_connector",
  title: "Log in to a connector",
  description: "Start the login a remote connector needs (after an auth_required error). Show the person the authorizationUrl it returns, then call it again to wait until the connector is ready.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  uses: ["authorizer", "core", "elicit", "signal", "principal", "catalog"] as const,
  input: z.object({ connector: z.string().min(1).max(CONNECTOR_ID_CHARS_MAX) }).strict(),
  async run(args, ctx) {
    const send = ctx.elicit.send;
    const elicitationId = randomUUID();
    const urlMode = ctx.core.oauthChannel(ctx.elicit.revision, ctx.elicit.elicitation) === OAuthChannel.url_elicitation;
    // The core answers url_elicitation only on 2025-11-25, where the request to send exists.
    const openUrl: OpenUrl | undefined = urlMode && send
      ? { open: async (url, message) => (await send.ask({ mode: "url", url, message, elicitationId }, ctx.signal)).action, done: () => send.complete(elicitationId) }
      : undefined;
    // The asker sees what their catalog shows: a connector hidden from them answers as one that does not exist.
    const usable = new Set(ctx.catalog.connectorNames());
    const answer = await ctx.authorizer.authorize(args.connector, { openUrl, signal: ctx.signal, asker: { principalId: ctx.principal.id, visible: (id) => usable.has(id) } });
    const text = answer.status === "ready"
      ? `${answer.connector} is ready: ${answer.tools} tools (search_tools lists them).`
      : `${answer.connector} needs a login. Show the person this URL to open in their browser: ${answer.authorizationUrl} — then call authorize_connector { connector: "${answer.connector}" } again; it waits until the login is done.`;
    return { content: [{ type: "text", text }], structuredContent: { ...answer } };
  },
});
