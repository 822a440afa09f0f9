// A program's own failure is a typed error like every other: `program_error` for a throw (or a
// rejection) of its own, `program_syntax_error` for a text that does not parse, both with
// retryable false, and with the line and column as the user wrote them (1-based), whether the
// throw is on the first line, inside a nested function, or a syntax error; the stack names only
// the program's own lines. And a flood of host calls the program holds unawaited ends in a typed
// refusal naming HOST_CALL_REFUSALS_MAX before the heap fills; an out-of-memory QuickJS could not
// even build an error for (it throws null) is budget_exceeded naming sandbox_heap_bytes. Either
// way the next program runs.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { startAtrium, type Atrium } from "./harness/atrium-client.js";
import { HOST_CALL_REFUSALS_MAX } from "../glue/decisions/generated/spec.js";

// Generous CPU and wall clocks: these programs loop hundreds of thousands of times, and no test here is about time.
const LIMITS = { programWallMs: 60_000, programCpuMs: 20_000, hostCalls: 20, workers: 2 };

let a: Atrium;
type Result = CallToolResult & { structuredContent: any };
const run = async (code: string) => (await a.call("execute_code", { code })) as Result;
const errorOf = async (code: string) => {
  const r = await run(code);
  expect(r.isError).toBe(true);
  return r.structuredContent.error;
};

async function expectServes(): Promise<void> {
  expect((await run("async () => 1 + 1")).structuredContent).toEqual({ ok: true, value: 2 });
}

beforeAll(async () => {
  a = await startAtrium({ config: { mcpServers: {}, atrium: { sandbox: LIMITS } } });
  await Promise.all([run("async () => 1"), run("async () => 2")]);
});
afterAll(async () => { await a?.close(); });

describe("a program's throw is program_error at the program's own line and column", () => {
  it("a throw on line 1 of a bare body is reported at line 1, not the wrapper's line 2", async () => {
    const e = await errorOf("throw new Error('first line')");
    // QuickJS places a `new Error(…)` at its argument list: column 16 of this line.
    expect(e).toMatchObject({ code: "program_error", retryable: false, name: "Error", message: "first line", line: 1, column: 16 });
  });

  it("a throw on line 1 of an arrow function program is reported at line 1", async () => {
    const code = "async () => { throw new TypeError('arrow') }";
    const e = await errorOf(code);
    expect(e).toMatchObject({ code: "program_error", retryable: false, name: "TypeError", message: "arrow", line: 1, column: code.indexOf("('arrow')") + 1 });
  });

  it("an error thrown inside a nested function is reported where it was thrown", async () => {
    const e = await errorOf(["async () => {", "  const inner = () => {", "    throw new RangeError('deep');", "  };", "  return inner();", "}"].join("\n"));
    expect(e).toMatchObject({ code: "program_error", name: "RangeError", message: "deep", line: 3, column: 25 });
  });

  it("the stack names the program's own lines only: no wrapper offset, no prelude frame", async () => {
    const e = await errorOf(["async () => {", "  const inner = () => { throw new Error('s'); };", "  inner();", "}"].join("\n"));
    expect(e.stack).toContain("program.js:2:");
    expect(e.stack).toContain("program.js:3:");
    expect(e.stack).not.toContain("program.js:4:");
    expect(e.stack).not.toContain("atrium-prelude");
  });

  it("a stack the program wrote itself cannot place the error outside the program", async () => {
    const e = await errorOf("async () => { const e = new Error('forged'); e.stack = 'at x (program.js:99999999999999999999999:5)\\nat y (program.js:7:3)'; throw e; }");
    expect(e).toMatchObject({ code: "program_error", message: "forged" });
    expect(e.line).toBeUndefined();
    const far = await errorOf("async () => { const e = new Error('far'); e.stack = 'at x (program.js:9000:5)'; throw e; }");
    expect(far).toMatchObject({ line: 1 });
  });

  it("a thrown value that is not an Error is program_error too, without a position", async () => {
    const e = await errorOf("async () => { throw 'plain text'; }");
    expect(e).toMatchObject({ code: "program_error", retryable: false, message: "non-Error thrown: plain text" });
    expect(e.line).toBeUndefined();
  });

  it("a host error the program lets through keeps its own code", async () => {
    const e = await errorOf("async () => { await atrium.call('nowhere.tool', {}); }");
    expect(e.code).toBe("unknown_address");
  });
});

describe("a syntax error is program_syntax_error with the line and column where parsing stopped", () => {
  it("in an arrow function program, at the line the user wrote", async () => {
    const e = await errorOf(["async () => {", "  const a = 1;", "  a +* 2;", "}"].join("\n"));
    expect(e).toMatchObject({ code: "program_syntax_error", retryable: false, name: "SyntaxError", line: 3, column: 6 });
  });

  it("in a bare body, as the body reads (the reading that parsed further), not as an expression", async () => {
    const e = await errorOf("let x = ;");
    expect(e).toMatchObject({ code: "program_syntax_error", name: "SyntaxError", message: "unexpected token in expression: ';'", line: 1, column: 9 });
  });

  it("a program cut short is reported at its end, never past its last line", async () => {
    const code = "async () => { return 1";
    const e = await errorOf(code);
    expect(e).toMatchObject({ code: "program_syntax_error", line: 1, column: code.length + 1 });
    expect(e.stack ?? "").not.toContain("program.js:2:");
    await expectServes();
  });
});

describe("a flood of host calls the program holds ends in a typed refusal before the heap fills", () => {
  const floods: Record<string, string> = {
    "300,000 searches pushed into an array": "async () => { const ps = []; for (let i = 0; i < 300000; i++) ps.push(atrium.search('x')); return ps.length; }",
    "Promise.all over 300,000 searches": "async () => { const ps = []; for (let i = 0; i < 300000; i++) ps.push(atrium.search('x')); await Promise.all(ps); }",
    "300,000 searches each with a .catch": "async () => { const ps = []; for (let i = 0; i < 300000; i++) ps.push(atrium.search('x').catch((e) => e)); return (await Promise.all(ps)).length; }",
    "Promise.allSettled over 300,000 calls": "async () => (await Promise.allSettled(Array.from({ length: 300000 }, () => atrium.call('a.b', {})))).length",
  };
  for (const [what, code] of Object.entries(floods)) {
    it(`${what}: budget_exceeded naming HOST_CALL_REFUSALS_MAX, and the next program runs`, async () => {
      const e = await errorOf(code);
      expect(e).toMatchObject({ code: "budget_exceeded", retryable: false, details: { bound: "HOST_CALL_REFUSALS_MAX", limit: HOST_CALL_REFUSALS_MAX } });
      expect(JSON.stringify(e)).not.toContain("non-Error");
      await expectServes();
    });
  }

  it("every refused call up to the bound is a rejected promise; past it each call throws the same typed error where it is made", async () => {
    const v = (await run(`async () => {
      let rejected = 0, thrown = 0, last;
      for (let i = 0; i < 300000; i++) {
        try { atrium.search('x').catch(() => { rejected++; }); } catch (e) { thrown++; last = e; }
      }
      await Promise.resolve();
      return [rejected, thrown, last.code, last.details.bound, last.retryable];
    }`)).structuredContent;
    expect(v).toEqual({ ok: true, value: [HOST_CALL_REFUSALS_MAX, 300000 - LIMITS.hostCalls - HOST_CALL_REFUSALS_MAX, "budget_exceeded", "HOST_CALL_REFUSALS_MAX", false] });
  });
});

describe("running out of memory is budget_exceeded naming sandbox_heap_bytes, even when QuickJS throws null", () => {
  it("a million closures in an array (QuickJS cannot build its out-of-memory error and throws null)", async () => {
    const e = await errorOf("async () => { const fs = []; for (let i = 0; i < 1e6; i++) fs.push(() => i); return fs.length; }");
    expect(e).toMatchObject({ code: "budget_exceeded", retryable: false, details: { budget: "sandbox_heap_bytes" } });
    expect(e.message).not.toContain("non-Error");
    await expectServes();
  });
});
