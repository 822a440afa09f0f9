// get_result: pages a cut direct result by UTF-8 byte offsets that never split a character.
import { z } from "zod";
import { defineTool } from "./meta-tool.js";
import { jsonResult } from "./tool-result.js";
import { sliceUtf8, utf8Length } from "../../results/utf8.js";
import { AtriumError } from "../../support/errors.js";
import { RESULT_ID_CHARS_MAX } from "../../decisions/generated/spec.js";

export const getResult = defineTool({
  name: "get_result",
  title: "Read more of a large result",
  description: "Read more of a result call_tool cut at its size cap, by its resultId, from a byte offset.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  uses: ["config", "stash"] as const,
  input: z.object({
    id: z.string().min(1).max(RESULT_ID_CHARS_MAX),
    offset: z.number().int().min(0).default(0).describe("nextOffset of the previous page"),
    maxBytes: z.number().int().min(1).optional(),
  }).strict(),
  async run(args, ctx) {
    const text = await ctx.stash.get(args.id);
    if (text === undefined) throw new AtriumError("not_found", "no such result: it never existed or has expired; call the tool again");
    const total = utf8Length(text);
    const page = sliceUtf8(text, Math.min(args.offset, total), args.maxBytes ?? ctx.config.results.directResultBytes);
    return jsonResult({ offset: page.start, ...(page.end < total && { nextOffset: page.end }), totalBytes: total, text: page.text });
  },
});
