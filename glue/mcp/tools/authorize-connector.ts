// authorize_connector: starts (or continues) the login a remote connector needs. On a host that
// takes URL-mode elicitation it asks the host to open the URL and waits (bounded) until the
// connector is ready; elsewhere it answers at once with the URL the person must open, and a later
// call waits (bounded) for that login to complete (and the host is told the elicitation is complete).
// A connector that needs no login answers ready.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { defineTool } from "./meta-tool.js";
import { CONNECTOR_ID_CHARS_MAX } from "../../decisions/generated/spec.js";
import type { OpenUrl } from "../../auth/authorizer.js";

export const authorizeConnector = defineTool({
  name: "authorize_connector",
  title: "Log in to a connector",
  description: "Start the login a remote connector needs (after an auth_required error). Show the person the authorizationUrl it returns, then call it again to wait until the connector is ready.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  uses: ["authorizer", "elicit", "signal"] as const,
  input: z.object({ connector: z.string().min(1).max(CONNECTOR_ID_CHARS_MAX) }).strict(),
  async run(args, ctx) {
    const elicit = ctx.elicit;
    const elicitationId = randomUUID();
    const openUrl: OpenUrl | undefined = elicit?.urlMode
      ? { open: async (url, message) => (await elicit.ask({ mode: "url", url, message, elicitationId }, ctx.signal)).action, done: () => elicit.complete(elicitationId) }
      : undefined;
    const answer = await ctx.authorizer.authorize(args.connector, { openUrl, signal: ctx.signal });
    const text = answer.status === "ready"
      ? `${answer.connector} is ready: ${answer.tools} tools (search_tools lists them).`
      : `${answer.connector} needs a login. Show the person this URL to open in their browser: ${answer.authorizationUrl} — then call authorize_connector { connector: "${answer.connector}" } again; it waits until the login is done.`;
    return { content: [{ type: "text", text }], structuredContent: { ...answer } };
  },
});
