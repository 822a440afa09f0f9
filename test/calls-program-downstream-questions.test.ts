// A downstream's question asked while a program's call is out is that run's question (issue 18
// item 14, spec/approvals.md P13): counted with the run's approvals (a run at approvalsPerRun
// gets it declined with the budget's reason), withdrawn when the run ends; a question while
// calls of a run and a direct call are out is declined (atrium cannot say whose it is). And P12's ELICIT_WAIT_MS, proved on a fake clock.
import { describe, it, expect, vi, afterEach } from "vitest";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { startAtrium, fixture, nodeServer, programValue, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";
import { core } from "../glue/decisions/core.js";
import { askerFor } from "../glue/calls/downstream-questions.js";
import { ELICIT_WAIT_MS, ElicitationSupport, Revision } from "../glue/decisions/generated/spec.js";

type Reply = (signal: AbortSignal) => unknown;
const accept: Reply = () => ({ action: "accept", content: { answer: "42" } });

async function session(sandbox: Record<string, unknown>, replies: Reply[], body: (a: Atrium, s: { asked: unknown[]; withdrawn: number }) => Promise<void>) {
  const s = { asked: [] as unknown[], withdrawn: 0 };
  const a = await startAtrium({
    config: { mcpServers: { q: nodeServer(fixture("questions-server")) }, atrium: { sandbox } },
    capabilities: { elicitation: { form: {}, url: {} } },
    beforeConnect: (c) => c.setRequestHandler("elicitation/create", async (request, ctx) => {
      const reply = replies[s.asked.length] ?? accept;
      s.asked.push(request.params);
      ctx.mcpReq.signal.addEventListener("abort", () => { s.withdrawn++; });
      return (await reply(ctx.mcpReq.signal)) as never;
    }),
  });
  try {
    await body(a, s);
  } finally {
    await a.close();
  }
}

/** The answer the asking tool heard, as the program sees it (the fixture returns it as JSON text). */
const heard = `(r) => JSON.parse(r.content?.[0]?.text ?? JSON.stringify(r))`;
const never: Reply = (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("withdrawn"))));

describe("P13: a downstream's question during a program's call is the run's question", () => {
  it("the question is put to the host, the connector named, and its answer reaches the program's call", async () => {
    await session({}, [], async (a, s) => {
      const v = await programValue(await a.call("execute_code", { code: `async () => (${heard})(await atrium.call("q.ask_form", {}))` }));
      expect(v).toEqual({ action: "accept", content: { answer: "42" } });
      expect((s.asked[0] as { message: string }).message).toContain('The connector "q" asks');
    });
  }, 60_000);

  it("it counts with the run's questions: a run at approvalsPerRun gets the next downstream question declined with the budget's reason, never shown", async () => {
    await session({ approvalsPerRun: 1 }, [], async (a, s) => {
      const v = await programValue(await a.call("execute_code", { code: `async () => { const h = ${heard}; return [h(await atrium.call("q.ask_form", {})), h(await atrium.call("q.ask_form", {}))]; }` })) as any[];
      expect(v[0]).toEqual({ action: "accept", content: { answer: "42" } });
      expect(v[1].action).toBe("decline");
      expect(v[1]._meta["atrium/declined"]).toMatch(/approvals_per_run/);
      expect(s.asked).toHaveLength(1);
    });
  }, 60_000);

  it("the run's end withdraws its open downstream question", async () => {
    await session({}, [never], async (a, s) => {
      const ac = new AbortController();
      const run = a.client.request({ method: "tools/call", params: { name: "execute_code", arguments: { code: `async () => atrium.call("q.ask_form", {})` } } }, CallToolResultSchema, { signal: ac.signal }).catch((e: unknown) => e);
      await waitFor(() => s.asked.length === 1, "the downstream question at the host");
      ac.abort();
      await run;
      await waitFor(() => s.withdrawn === 1, "the open question withdrawn at the host");
    });
  }, 60_000);

  it("while a run's and a direct call are both out to the connector, a question is declined: atrium cannot say whose it is", async () => {
    let answer!: (v: unknown) => void;
    const held: Reply = () => new Promise((r) => { answer = r; });
    await session({}, [held], async (a, s) => {
      const run = a.call("execute_code", { code: `async () => (${heard})(await atrium.call("q.ask_form", {}))` });
      await waitFor(() => s.asked.length === 1, "the run's downstream question at the host");
      const r = await a.call("call_tool", { address: "q.ask_form", args: {} });
      const seen = JSON.parse((r.content as { text: string }[])[0].text);
      expect(seen.action).toBe("decline");
      expect(seen._meta["atrium/declined"]).toMatch(/cannot say whose question/);
      expect(s.asked).toHaveLength(1);
      answer({ action: "accept", content: { answer: "mine" } });
      expect(await programValue(await run)).toEqual({ action: "accept", content: { answer: "mine" } });
    });
  }, 60_000);
});

describe("P12: ELICIT_WAIT_MS withdraws an unanswered downstream question (fake clock)", () => {
  afterEach(() => { vi.useRealTimers(); });
  it("a question the person never answers is withdrawn at ELICIT_WAIT_MS and the connector hears cancel", async () => {
    vi.useFakeTimers();
    let withdrawnAt: number | undefined;
    const host = {
      revision: Revision.r2025_11_25,
      elicitation: ElicitationSupport.form_and_url,
      // The host never answers; like the SDK's request timeout, the wait ends at `timeout`.
      ask: (_q: unknown, o: { signal: AbortSignal; timeout: number }) => new Promise<never>((_, reject) => {
        const t = setTimeout(() => { withdrawnAt = Date.now() - start; reject(new Error("timed out")); }, o.timeout);
        o.signal.addEventListener("abort", () => { clearTimeout(t); reject(new Error("withdrawn")); });
      }),
      complete: async () => {},
    };
    const start = Date.now();
    const answer = askerFor(core(), host).ask("q", { mode: "form", message: "?", requestedSchema: { type: "object", properties: {} } }, new AbortController().signal);
    let settled = false;
    void answer.then(() => { settled = true; });
    await vi.advanceTimersByTimeAsync(ELICIT_WAIT_MS - 1);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toEqual({ action: "cancel" });
    expect(withdrawnAt).toBe(ELICIT_WAIT_MS);
  });
});
