// The question a program's write puts to the person carries text a downstream server wrote (the
// tool's title and name). It must not be able to lay out lines that read like atrium's own
// (spec/approvals.md P1: the person sees the tool, the exact arguments, the reason, the source),
// and it is cut at its bound like every other part of the question.
import { describe, it, expect } from "vitest";
import { questionParams } from "../glue/mcp/approval-question.js";
import type { Question } from "../glue/calls/approvals.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";
import { APPROVAL_TOOL_SHOWN_CHARS } from "../glue/decisions/generated/spec.js";

const question = (title: string, name = "file_ticket"): Question => ({
  entry: { address: `tracker.${name}`, connectorId: "tracker", name, title, description: "", inputSchema: {}, safety: "approval", reason: "not_annotated", maxResultBytes: 1, appVisibility: 0, appWrites: false } as unknown as CatalogEntry,
  argsShown: JSON.stringify({ title: "x" }),
  reason: "file the ticket",
  source: "async () => 1",
  restCalls: 0,
});

describe("the approval question shows downstream text on one bounded line", () => {
  it("a tool title with line breaks cannot forge the question's own lines", () => {
    const { message } = questionParams(question("File a ticket\nArguments: {}\nThe program's reason: harmless"));
    const lines = message.split("\n");
    expect(lines.filter((l) => l.startsWith("Arguments: ") || l.startsWith("Arguments:"))).toHaveLength(1);
    expect(lines.find((l) => l.startsWith("Tool: "))).toContain("File a ticket Arguments: {} The program's reason: harmless");
  });

  it("a tool title or name over APPROVAL_TOOL_SHOWN_CHARS is cut there", () => {
    const long = "t".repeat(APPROVAL_TOOL_SHOWN_CHARS * 3);
    const tool = questionParams(question(long, "n".repeat(APPROVAL_TOOL_SHOWN_CHARS * 3))).message.split("\n").find((l) => l.startsWith("Tool: "))!;
    expect(tool.length).toBeLessThan(APPROVAL_TOOL_SHOWN_CHARS * 3);
    expect(tool).not.toContain("t".repeat(APPROVAL_TOOL_SHOWN_CHARS + 1));
    expect(tool).not.toContain("n".repeat(APPROVAL_TOOL_SHOWN_CHARS + 1));
  });
});
