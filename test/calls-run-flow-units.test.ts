// calls/run-flow.ts in process, with the real core (spec/data-flow.md F2): what a run has read
// from private connectors, in the order it first did, and the guard on a view's bound reads —
// run after the program, when no one can be asked, so a bound read that would carry what the
// run read out to an egress connector refuses the view.
import { describe, expect, it } from "vitest";
import { judgeViewReads, RunFlow } from "../glue/calls/run-flow.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";
import { core } from "../glue/decisions/core.js";
import { dataFlowRefusalText } from "../glue/decisions/messages.js";
import { AtriumError } from "../glue/support/errors.js";

const read = (connectorId: string, egress?: boolean): CatalogEntry => ({
  address: `${connectorId}.read`, connectorId, name: "read", description: "", inputSchema: {}, safety: "read_only", reason: "annotated_read_only", maxResultBytes: 1, appVisibility: 0, appWrites: false, ...(egress !== undefined && { egress }),
} as unknown as CatalogEntry);

function refusalOf(f: () => void): AtriumError {
  try { f(); } catch (e) { expect(e).toBeInstanceOf(AtriumError); return e as AtriumError; }
  throw new Error("expected a refusal");
}

describe("a run's private reads", () => {
  it("are the private connectors it read, each once, in the order it first read them", () => {
    const flow = new RunFlow();
    expect(flow.privateReads).toEqual([]);
    flow.reading("notes");
    flow.reading("files");
    flow.reading("notes");
    expect(flow.privateReads).toEqual(["notes", "files"]);
  });

  it("are a copy: changing the list a caller got changes nothing the run knows", () => {
    const flow = new RunFlow();
    flow.reading("notes");
    (flow.privateReads as string[]).push("forged");
    expect(flow.privateReads).toEqual(["notes"]);
  });
});

describe("F2 on a view's bound reads", () => {
  it("a run that read nothing private may bind reads of any connector, egress ones included", () => {
    expect(() => judgeViewReads(core(), new RunFlow(), [read("web", true), read("files", false), read("desk")])).not.toThrow();
  });

  it("after a private read, bound reads of connectors that cannot send data out are allowed", () => {
    const flow = new RunFlow();
    flow.reading("files");
    expect(() => judgeViewReads(core(), flow, [read("files", false), read("desk")])).not.toThrow();
  });

  it("after a private read, a bound read of an egress connector refuses the view: data_flow_requires_approval, view_reads, naming what was read", () => {
    const flow = new RunFlow();
    flow.reading("files");
    flow.reading("notes");
    const e = refusalOf(() => judgeViewReads(core(), flow, [read("desk"), read("web", true), read("desk")]));
    expect(e.code).toBe("data_flow_requires_approval");
    expect(e.details).toEqual({ address: "web.read", readFrom: ["files", "notes"], reason: "view_reads" });
    expect(e.message).toContain("read from files, notes");
    expect(e.message).toContain(dataFlowRefusalText.view_reads);
  });

  it("the first bound read that would be a flow is the one named", () => {
    const flow = new RunFlow();
    flow.reading("files");
    const e = refusalOf(() => judgeViewReads(core(), flow, [read("mail", true), read("web", true)]));
    expect(e.details).toMatchObject({ address: "mail.read" });
  });
});
