// Approvals inside programs (spec/approvals.md) end to end: a real SDK client that declares form
// elicitation and answers each elicitation/create as a test scripts it, a spawned atrium, and a
// downstream that keeps its own record of every write it ran (test/fixtures/writes-server.ts). What
// counts is the downstream's record: a write happens exactly when the person approved it, once.
import { describe, it, expect } from "vitest";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { withInputRequired } from "@modelcontextprotocol/client";
import { startAtrium, fixture, programValue, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

interface Question { mode?: string; message: string; requestedSchema: { properties: { choice: { oneOf: { const: string; title: string }[] } }; required: string[] } }
/** One scripted answer: given the question and the request's abort signal, the elicitation result (or a throw). */
type Script = (q: Question, signal: AbortSignal) => unknown;
interface Session { a: Atrium; questions: Question[]; withdrawn: number; records(): { tool: string; args: Record<string, unknown> }[]; recorded(): string[] }

const once: Script = () => ({ action: "accept", content: { choice: "run_once" } });
const rest: Script = () => ({ action: "accept", content: { choice: "run_rest" } });
const decline: Script = () => ({ action: "decline" });
const cancel: Script = () => ({ action: "cancel" });
/** Never answers; settles only once the question is withdrawn (notifications/cancelled aborts the handler's signal), and then approves, too late. */
const never: Script = (_q, signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve({ action: "accept", content: { choice: "run_once" } })));

interface SessionOptions { answers?: Script[]; sandbox?: Record<string, unknown>; keep?: string[]; elicitation?: Record<string, unknown> | false; revision?: "2026-07-28"; recorder?: boolean }

async function session(o: SessionOptions, body: (s: Session) => Promise<void>): Promise<void> {
  const questions: Question[] = [];
  const state = { withdrawn: 0 };
  const dir = mkdtempSync(join(tmpdir(), "atrium-approvals-"));
  const log = join(dir, "writes.log");
  const a = await startAtrium({
    revision: o.revision,
    capabilities: o.elicitation === false ? {} : { elicitation: o.elicitation ?? { form: {} } },
    beforeConnect: (client) => {
      if (o.elicitation === false) return;
      client.setRequestHandler("elicitation/create", async (request, ctx) => {
        const q = request.params as unknown as Question;
        const script = o.answers?.[questions.length] ?? decline;
        questions.push(q);
        ctx.mcpReq.signal.addEventListener("abort", () => { state.withdrawn++; });
        return (await script(q, ctx.mcpReq.signal)) as never;
      });
    },
    config: {
      mcpServers: {
        w: { command: process.execPath, args: [fixture("writes-server"), log], ...(o.keep && { keepOutsidePrograms: o.keep }) },
        // A read-only downstream that logs each slow_write's start and its cancel ("start <id> <tag>", "cancelled <id> <tag>").
        ...(o.recorder && { n: { command: process.execPath, args: [fixture("nasty-server")], env: { FIXTURE_WRITE_LOG: join(dir, "recorder.log") } } }),
      },
      ...(o.sandbox && { atrium: { sandbox: o.sandbox } }),
    },
  });
  const records = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
  try {
    const recorded = () => (existsSync(join(dir, "recorder.log")) ? readFileSync(join(dir, "recorder.log"), "utf8").split("\n").filter(Boolean) : []);
    await body({ a, questions, get withdrawn() { return state.withdrawn; }, records, recorded });
  } finally {
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a program and returns its value (throws with the envelope when the run failed). */
const value = async (a: Atrium, code: string) => programValue(await a.call("execute_code", { code }));
/** A program that makes each call in turn and reports each outcome: "ok", or the error's code and details.reason / budget. */
const attempts = (calls: string[]) => `async () => {
  const out = [];
  for (const c of [${calls.join(", ")}]) {
    try { await c(); out.push("ok"); } catch (e) { out.push(e.code + ":" + ((e.details && (e.details.reason || e.details.budget)) || "")); }
  }
  return out;
}`;
const add = (args: Record<string, unknown>, reason?: string) => `() => atrium.call("w.add_record", ${JSON.stringify(args)}${reason === undefined ? "" : `, { reason: ${JSON.stringify(reason)} }`})`;
const flag = (args: Record<string, unknown>) => `() => w.set_flag(${JSON.stringify(args)})`;

describe("approvals inside programs", () => {
  for (const revision of [undefined, "2026-07-28"] as const) describe(revision === undefined ? "2025-11-25 (an elicitation/create request)" : "2026-07-28 (an input-required result, answered by the client's retry)", () => {
    it("a program writes three records with three approvals and none after a decline", async () => {
      await session({ answers: [once, once, once, decline], revision }, async ({ a, questions, records }) => {
        const v = await value(a, attempts([add({ n: 1 }, "first"), add({ n: 2 }), add({ n: 3 }), add({ n: 4 })]));
        expect(v).toEqual(["ok", "ok", "ok", "approval_declined:declined"]);
        expect(questions).toHaveLength(4);
        expect(records()).toEqual([1, 2, 3].map((n) => ({ tool: "add_record", args: { n } })));
      });
    });

    it("the question names the tool, the exact arguments, the program's reason and its source (cut, with its full length)", async () => {
      const filler = `// ${"x".repeat(3000)}`;
      const code = `async () => {\n${filler}\nreturn atrium.call("w.add_record", { title: "Q3 report", n: 7 }, { reason: "file the report\\nTool: the person asked for" }); }`;
      await session({ answers: [once], revision }, async ({ a, questions, records }) => {
        expect(await value(a, code)).toEqual({ recorded: 1 });
        const q = questions[0]!;
        expect(q.mode ?? "form").toBe("form");
        expect(q.message).toContain("Add a record");
        expect(q.message).toContain("w.add_record");
        expect(q.message).toContain(JSON.stringify({ title: "Q3 report", n: 7 }));
        // The reason stays on its one line: it cannot lay out a line that reads like atrium's own.
        expect(q.message).toContain("file the report Tool: the person asked for");
        expect(q.message.split("\n").filter((l) => l.startsWith("Tool:"))).toHaveLength(1);
        expect(q.message).toContain("async () => {");
        expect(q.message).toContain(`[cut: ${code.length} characters in all]`);
        expect(q.message.length).toBeLessThan(code.length);
        expect(q.requestedSchema.required).toEqual(["choice"]);
        expect(q.requestedSchema.properties.choice.oneOf.map((c) => c.const)).toEqual(["run_once", "run_rest"]);
        expect(q.requestedSchema.properties.choice.oneOf[1]!.title).toContain("up to 10 more calls");
        expect(records()).toHaveLength(1);
      });
    });

    it("the rest of the run: later calls with the same keys run unasked up to the grant; other keys, another tool and a new run are asked again", async () => {
      await session({ answers: [rest, once, once, once, once], sandbox: { approvalGrantCalls: 2 }, revision }, async ({ a, questions, records }) => {
        const v = await value(a, attempts([add({ n: 1 }), add({ n: 2 }), add({ n: 3 }), add({ n: 4 }), add({ n: 5, note: "x" }), flag({ n: 6 })]));
        expect(v).toEqual(["ok", "ok", "ok", "ok", "ok", "ok"]);
        // Asked: the first call (granted 2 more), the fourth (grant spent), other keys, another tool.
        expect(questions).toHaveLength(4);
        expect(records().map((r) => r.args.n)).toEqual([1, 2, 3, 4, 5, 6]);
        // A grant never crosses runs.
        expect(await value(a, attempts([add({ n: 7 })]))).toEqual(["ok"]);
        expect(questions).toHaveLength(5);
        expect(records()).toHaveLength(7);
      });
    });

    it("a declined, dismissed or malformed answer never reaches the downstream, and the program can catch approval_declined", async () => {
      const noContent: Script = () => ({ action: "accept" });
      const outside: Script = () => ({ action: "accept", content: { choice: "run_everything" } });
      const extra: Script = () => ({ action: "accept", content: { choice: "run_once", also: "yes" } });
      const broken: Script = () => { throw new Error("the client failed to show the question"); };
      const unknown: Script = () => ({ action: "maybe" });
      // On 2026-07-28 a client whose handler fails, or answers outside the protocol, never retries
      // (its own driver fails the call): there the run is abandoned instead (tested below).
      const answers = revision === undefined ? [decline, cancel, noContent, outside, extra, broken, unknown] : [decline, cancel, noContent, outside, extra];
      await session({ answers, sandbox: { approvalsPerRun: 7 }, revision }, async ({ a, questions, records }) => {
        const v = await value(a, attempts(answers.map((_, n) => add({ n }))));
        expect(v).toEqual(["approval_declined:declined", "approval_declined:cancelled", ...Array(answers.length - 2).fill("approval_declined:malformed")]);
        expect(questions).toHaveLength(answers.length);
        expect(records()).toEqual([]);
      });
    });
  });

  it("\"the rest\" is not offered when approvalGrantCalls is 0, and answering it anyway is a decline", async () => {
    await session({ answers: [rest, once], sandbox: { approvalGrantCalls: 0 } }, async ({ a, questions, records }) => {
      expect(await value(a, attempts([add({ n: 1 }), add({ n: 2 })]))).toEqual(["approval_declined:rest_not_offered", "ok"]);
      expect(questions[0]!.requestedSchema.properties.choice.oneOf.map((c) => c.const)).toEqual(["run_once"]);
      expect(records()).toEqual([{ tool: "add_record", args: { n: 2 } }]);
    });
  });

  it("a host without elicitation gets destructive_tool_requires_approval exactly as before", async () => {
    await session({ elicitation: false }, async ({ a, records }) => {
      const e = await value(a, `async () => { try { await atrium.call("w.add_record", { n: 1 }, { reason: "r" }); } catch (e) { return { code: e.code, message: e.message, nextAction: e.nextAction, details: e.details }; } }`);
      expect(e).toEqual({
        code: "destructive_tool_requires_approval",
        message: "w.add_record is not read-only (read_only_false); it runs only through call_destructive_tool, after the person approves",
        nextAction: { tool: "call_destructive_tool", arguments: { address: "w.add_record", args: { n: 1 } }, purpose: "run it once the person has approved this write" },
        details: { address: "w.add_record", reason: "read_only_false" },
      });
      expect(records()).toEqual([]);
    });
  });

  it("a host declaring URL-mode elicitation only is not asked either", async () => {
    await session({ elicitation: { url: {} } }, async ({ a, questions, records }) => {
      expect(await value(a, attempts([add({ n: 1 })]))).toEqual(["destructive_tool_requires_approval:read_only_false"]);
      expect(questions).toHaveLength(0);
      expect(records()).toEqual([]);
    });
  });

  it("a tool in keepOutsidePrograms is refused even when the host can be asked; another tool is still asked", async () => {
    await session({ answers: [once], keep: ["add_record"] }, async ({ a, questions, records }) => {
      const v = await value(a, attempts([add({ n: 1 }), flag({ n: 2 })]));
      expect(v).toEqual(["destructive_tool_requires_approval:kept_outside_programs", "ok"]);
      expect(questions).toHaveLength(1);
      expect(questions[0]!.message).toContain("w.set_flag");
      expect(records()).toEqual([{ tool: "set_flag", args: { n: 2 } }]);
    });
  });

  it("a run that would put more questions than approvalsPerRun gets budget_exceeded naming approvals_per_run", async () => {
    await session({ answers: [once, once, once], sandbox: { approvalsPerRun: 2 } }, async ({ a, questions, records }) => {
      expect(await value(a, attempts([add({ n: 1 }), add({ n: 2 }), add({ n: 3 })]))).toEqual(["ok", "ok", "budget_exceeded:approvals_per_run"]);
      expect(questions).toHaveLength(2);
      expect(records()).toHaveLength(2);
    });
  });

  it("the wall clock stops while the person decides (on both revisions): a program whose question stays open longer than its whole wall clock still completes", async () => {
    const WALL_MS = 3000;
    for (const revision of [undefined, "2026-07-28"] as const) {
      let answer!: () => void;
      const answered = new Promise<void>((r) => { answer = r; });
      const late: Script = async () => { await answered; return { action: "accept", content: { choice: "run_once" } }; };
      // The CPU budget is above the wall, so the spinning program below ends by its wall clock.
      await session({ answers: [late], sandbox: { programWallMs: WALL_MS, programCpuMs: 4 * WALL_MS, workers: 2 }, revision }, async ({ a, questions, records }) => {
        const asking = value(a, `async () => { const r = await atrium.call("w.add_record", { n: 1 }); return r.recorded; }`);
        await waitFor(() => questions.length === 1, "the question at the client");
        // A program started after the question was put runs out its whole wall clock: more than
        // WALL_MS have passed since, and had the asking run's clock kept going, it would have ended first.
        const spinner = await a.call("execute_code", { code: "async () => { for (;;) {} }" });
        expect((spinner.structuredContent as any).error).toMatchObject({ code: "timeout", details: { budget: "program_wall_ms" } });
        answer();
        expect(await asking).toBe(1);
        expect(records()).toHaveLength(1);
      });
    }
  });


  it("a question never answered ends at approvalWaitMs as a decline, withdrawn from the client; the next question finds no wait left", async () => {
    await session({ answers: [never, once], sandbox: { approvalWaitMs: 1000 } }, async (s) => {
      expect(await value(s.a, attempts([add({ n: 1 }), add({ n: 2 })]))).toEqual(["approval_declined:timed_out", "budget_exceeded:approval_wait_ms"]);
      expect(s.questions).toHaveLength(1);
      expect(s.withdrawn).toBe(1);
      expect(s.records()).toEqual([]);
    });
  });

  it("a cancelled run withdraws its open question, and the write never happens", async () => {
    const ac = new AbortController();
    let seen!: () => void;
    const asked = new Promise<void>((r) => { seen = r; });
    const waitThenCancel: Script = (q, signal) => { seen(); return never(q, signal); };
    await session({ answers: [waitThenCancel] }, async (s) => {
      const run = s.a.client.request({ method: "tools/call", params: { name: "execute_code", arguments: { code: `async () => atrium.call("w.add_record", { n: 1 })` } } }, CallToolResultSchema, { signal: ac.signal }).catch((e: unknown) => e);
      await asked;
      ac.abort();
      await run;
      // The question is withdrawn (the client's handler sees its request cancelled) and its late "approve" runs nothing.
      await waitFor(() => s.withdrawn === 1, "the question withdrawn at the client");
      expect(await value(s.a, `async () => (await atrium.call("w.count_records", {})).count`)).toBe(0);
      expect(s.records()).toEqual([]);
    });
  });

  it("a batch's writes are asked one at a time, each with its item's reason; a declined item fails inline and the others run", async () => {
    await session({ answers: [once, decline, once] }, async ({ a, questions, records }) => {
      const v = await value(a, `async () => (await atrium.batch([1, 2, 3].map((n) => ({ address: "w.add_record", args: { n }, reason: "item " + n })))).map((r) => r.ok ? "ok" : r.error.code)`);
      // Whichever item was asked second is the one declined.
      const reasons = questions.map((q) => /The program's reason: (.*)/.exec(q.message)?.[1]);
      expect([...reasons].sort()).toEqual(["item 1", "item 2", "item 3"]);
      const declined = Number(reasons[1]!.slice("item ".length));
      expect(v).toEqual([1, 2, 3].map((n) => (n === declined ? "approval_declined" : "ok")));
      expect(records().map((r) => r.args.n).sort()).toEqual([1, 2, 3].filter((n) => n !== declined));
    });
  });

  it("a run that ends with its question open (the program returned without awaiting the write) withdraws it", async () => {
    await session({ answers: [never] }, async (s) => {
      expect(await value(s.a, `async () => { atrium.call("w.add_record", { n: 1 }).catch(() => {}); return "done"; }`)).toBe("done");
      // Whether the question went out before the run ended or not, none stays open and nothing is written.
      await waitFor(() => s.withdrawn === s.questions.length, "every question put withdrawn");
      expect(await value(s.a, `async () => (await atrium.call("w.count_records", {})).count`)).toBe(0);
      expect(s.records()).toEqual([]);
    });
  });

  it("the reason is bounded: over APPROVAL_REASON_CHARS_MAX or not a string is invalid_args, and nothing is asked", async () => {
    await session({ answers: [once] }, async ({ a, questions, records }) => {
      const v = await value(a, attempts([add({ n: 1 }, "x".repeat(501)), `() => atrium.call("w.add_record", { n: 2 }, { reason: 5 })`, `() => atrium.call("w.add_record", { n: 3 }, "why")`]));
      expect(v).toEqual(["invalid_args:", "invalid_args:", "invalid_args:"]);
      expect(questions).toHaveLength(0);
      expect(records()).toEqual([]);
    });
  });

  it("2026-07-28: the run parks on its question; a retry with a forged or stale requestState resumes nothing, the genuine one resumes it once", async () => {
    await session({ revision: "2026-07-28" }, async ({ a, records }) => {
      const params = { name: "execute_code", arguments: { code: `async () => atrium.call("w.add_record", { n: 1 }, { reason: "parked" })` } };
      const ask = () => a.client.request({ method: "tools/call", params }, withInputRequired(CallToolResultSchema), { allowInputRequired: true }) as Promise<any>;
      const retry = (requestState: string, choice = "run_once") => a.client.request({ method: "tools/call", params: { ...params, inputResponses: { approve: { action: "accept", content: { choice } } }, requestState } } as never, withInputRequired(CallToolResultSchema), { allowInputRequired: true }) as Promise<any>;
      const first = await ask();
      expect(first.resultType).toBe("input_required");
      expect(first.inputRequests.approve.method).toBe("elicitation/create");
      expect(first.inputRequests.approve.params.message).toContain("parked");
      const state: string = first.requestState;
      // A tampered tag, another run's id, and a state too long to read: none finds the run.
      const tampered = state.slice(0, -2) + (state.endsWith("AA") ? "BB" : "AA");
      for (const bad of [tampered, `${"0".repeat(36)}.1.${state.split(".").pop()}`, "x".repeat(500)]) {
        const r = await retry(bad);
        expect(r.isError).toBe(true);
        expect(r.structuredContent.error.code).toBe("not_found");
      }
      expect(records()).toEqual([]);
      // The genuine state still resumes it: the write runs once.
      const done = await retry(state);
      expect(programValue(done)).toEqual({ recorded: 1 });
      // Used once: the same state again finds nothing, and nothing runs twice.
      expect((await retry(state)).structuredContent.error.code).toBe("not_found");
      expect(records()).toHaveLength(1);
    });
  });

  it("2026-07-28: a parked run whose retry never comes is abandoned once approvalWaitMs is spent: its calls in flight are cancelled, and its state finds nothing", async () => {
    await session({ revision: "2026-07-28", sandbox: { approvalWaitMs: 1000 }, recorder: true }, async ({ a, records, recorded }) => {
      // Before its question, the program leaves a call running on another connector: the run's end cancels it there.
      const params = { name: "execute_code", arguments: { code: `async () => { atrium.call("n.slow_write", { ms: 600000, tag: "parked" }).catch(() => {}); await n.echo({}); return atrium.call("w.add_record", { n: 1 }, { reason: "parked" }); }` } };
      const parked = await a.client.request({ method: "tools/call", params }, withInputRequired(CallToolResultSchema), { allowInputRequired: true }) as any;
      expect(parked.resultType).toBe("input_required");
      expect(recorded().some((l) => /^start \S+ parked$/.test(l))).toBe(true);
      await waitFor(() => recorded().some((l) => /^cancelled \S+ parked$/.test(l)), "the parked run abandoned (its call cancelled downstream)");
      const retried = await a.client.request({ method: "tools/call", params: { ...params, inputResponses: { approve: { action: "accept", content: { choice: "run_once" } } }, requestState: parked.requestState } } as never, withInputRequired(CallToolResultSchema), { allowInputRequired: true }) as any;
      expect(retried.structuredContent.error.code).toBe("not_found");
      expect(records()).toEqual([]);
    });
  });
});
