// skills: the long guides, out of the always-loaded context. `usage` is byte-identical in
// every deployment (a static file shipped with the package).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { skillsDir } from "../../support/paths.js";
import { z } from "zod";
import { defineTool } from "./meta-tool.js";
import { AtriumError } from "../../support/errors.js";
import { SKILL_NAME_CHARS_MAX } from "../../decisions/generated/spec.js";

const SKILLS: Record<string, { summary: string; file: string }> = {
  usage: { summary: "How to find and call tools through atrium; read once per task", file: "usage.md" },
};

const skillText = (name: string) => readFileSync(join(skillsDir, SKILLS[name].file), "utf8");

export const skills = defineTool({
  name: "skills",
  title: "Read a guide",
  description: "List atrium's guides, or read one by name (start with `usage`).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  uses: [] as const,
  input: z.object({ name: z.string().max(SKILL_NAME_CHARS_MAX).optional() }).strict(),
  async run(args) {
    if (args.name === undefined) {
      return { content: [{ type: "text", text: Object.entries(SKILLS).map(([n, s]) => `${n}: ${s.summary}`).join("\n") }] };
    }
    if (!Object.hasOwn(SKILLS, args.name)) throw new AtriumError("not_found", `no guide named ${args.name}; guides: ${Object.keys(SKILLS).join(", ")}`);
    return { content: [{ type: "text", text: skillText(args.name) }] };
  },
});
