// Downstream elicitation reaches the person (issue 18 item 14, spec/approvals.md P12): a
// connector's form and URL questions go on to a host that declared them, naming the connector,
// the answer back to the asking connector only, bounded; a host that cannot be asked, a 2026-07-28
// host and a question too large are declined on the person's behalf with the reason.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { startAtrium, fixture, nodeServer, npmBin, type Atrium } from "./harness/atrium-client.js";
import { ELICIT_ANSWER_BYTES_MAX } from "../glue/decisions/generated/spec.js";
import { waitFor } from "./harness/until.js";

const config = { mcpServers: { q: nodeServer(fixture("questions-server")), everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] } } };
/** What the asking downstream tool got back from atrium (its tools return the ElicitResult as JSON text). */
const answerSeen = async (a: Atrium, address: string) => {
  const r = await a.call("call_tool", { address, args: {} });
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  return JSON.parse((r.content as { text: string }[])[0].text);
};

describe("a host that declared form and URL elicitation is asked, the connector named", () => {
  let a: Atrium;
  const asked: any[] = [];
  const completed: string[] = [];
  let reply: (params: any) => unknown = () => ({ action: "accept", content: { answer: "42" } });
  beforeAll(async () => {
    a = await startAtrium({
      config,
      capabilities: { elicitation: { form: {}, url: {} } },
      beforeConnect: (c) => {
        c.setRequestHandler("elicitation/create", (request) => { asked.push(request.params); return reply(request.params) as never; });
        c.setNotificationHandler("notifications/elicitation/complete", (n) => { completed.push(n.params.elicitationId); });
      },
    });
  }, 60_000);
  afterAll(() => a?.close());

  it("a form question reaches the host with a first line naming the connector, and the answer goes back to it", async () => {
    expect(await answerSeen(a, "q.ask_form")).toEqual({ action: "accept", content: { answer: "42" } });
    const q = asked.at(-1);
    expect(q.mode ?? "form").toBe("form");
    expect(q.message.split("\n")[0]).toBe('The connector "q" asks (atrium passes its question on):');
    expect(q.message).toContain("What is the answer?");
    expect(q.requestedSchema.properties.answer.type).toBe("string");
  });

  it("a URL question reaches the host with its URL under an id naming the connector; the accept goes back, and its completion comes on", async () => {
    reply = () => ({ action: "accept" });
    expect(await answerSeen(a, "q.ask_url")).toEqual({ action: "accept" });
    const q = asked.at(-1);
    expect(q).toMatchObject({ mode: "url", url: "https://example.test/consent", elicitationId: "q/consent-1" });
    expect(q.message).toContain('The connector "q" asks');
    await waitFor(() => completed.includes("q/consent-1"), "notifications/elicitation/complete at the host");
  });

  it("a decline goes back as decline; an answer over ELICIT_ANSWER_BYTES_MAX goes back as cancel", async () => {
    reply = () => ({ action: "decline" });
    expect((await answerSeen(a, "q.ask_form")).action).toBe("decline");
    reply = () => ({ action: "accept", content: { answer: "x".repeat(ELICIT_ANSWER_BYTES_MAX + 1) } });
    expect(await answerSeen(a, "q.ask_form")).toEqual({ action: "cancel" });
  });

  it("a question over its size bound is declined on the person's behalf and never shown", async () => {
    const before = asked.length;
    const seen = await answerSeen(a, "q.ask_huge");
    expect(seen.action).toBe("decline");
    expect(seen._meta["atrium/declined"]).toMatch(/larger than atrium passes on/);
    expect(asked.length).toBe(before);
  });

  it("the real server-everything's elicitation tool is asked through atrium and hears the answer", async () => {
    reply = () => ({ action: "accept", content: { name: "Ada", check: true } });
    const r = await a.call("call_destructive_tool", { address: "everything.trigger-elicitation-request", args: {} });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(asked.at(-1).message).toContain('The connector "everything" asks');
    expect(JSON.stringify(r.content)).toContain("Ada");
  });
});

describe("a host that cannot be asked: the question is declined on its behalf, with the reason", () => {
  it("2025-11-25 without the elicitation capability", async () => {
    const a = await startAtrium({ config });
    try {
      const seen = await answerSeen(a, "q.ask_form");
      expect(seen.action).toBe("decline");
      expect(seen._meta["atrium/declined"]).toMatch(/did not declare this elicitation mode/);
    } finally {
      await a.close();
    }
  }, 60_000);

  it("2025-11-25 with form only, asked a URL question", async () => {
    const a = await startAtrium({ config, capabilities: { elicitation: { form: {} } }, beforeConnect: (c) => c.setRequestHandler("elicitation/create", () => ({ action: "accept", content: {} }) as never) });
    try {
      const seen = await answerSeen(a, "q.ask_url");
      expect(seen.action).toBe("decline");
      expect(seen._meta["atrium/declined"]).toMatch(/did not declare this elicitation mode/);
    } finally {
      await a.close();
    }
  }, 60_000);

  it("2026-07-28, whose requests carry no server question to the host", async () => {
    const a = await startAtrium({ config, revision: "2026-07-28", capabilities: { elicitation: { form: {}, url: {} } } });
    try {
      const seen = await answerSeen(a, "q.ask_form");
      expect(seen.action).toBe("decline");
      expect(seen._meta["atrium/declined"]).toMatch(/2026-07-28/);
    } finally {
      await a.close();
    }
  }, 60_000);
});
