// get_view: the app-only path to a view's payload, for Apps hosts that strip `_meta` from
// what they hand the view. Listed only for Apps hosts, with visibility ["app"].
import { z } from "zod";
import { defineTool } from "./meta-tool.js";
import { jsonResult } from "./tool-result.js";
import { AtriumError } from "../../support/errors.js";
import { VIEW_ID_CHARS_MAX } from "../../decisions/generated/spec.js";

export const getView = defineTool({
  name: "get_view",
  title: "Fetch a view for the shell",
  description: "For atrium's view shell only: a view's page by id.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  uses: ["viewStore"] as const,
  appsHostOnly: true,
  _meta: { ui: { visibility: ["app"] } },
  input: z.object({ id: z.string().min(1).max(VIEW_ID_CHARS_MAX) }).strict(),
  async run(args, ctx) {
    const text = await ctx.viewStore.get(args.id);
    if (text === undefined) throw new AtriumError("not_found", "no such view: it never existed or has expired; run the program again");
    return jsonResult({ id: args.id, ...JSON.parse(text) });
  },
});
