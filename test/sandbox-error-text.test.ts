// What a failed program hands back is bounded, whatever it throws: every error text (name,
// message, stack, a thrown non-Error) is cut inside the sandbox at error_text_chars with a
// marker giving its true length, so the whole result stays within return_chars; and reading
// a thrown value (getters, toJSON, proxies) happens under the CPU budget, never outside it.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { startAtrium, type Atrium } from "./harness/atrium-client.js";
import { core } from "../glue/decisions/core.js";
import { Budget } from "../glue/decisions/generated/spec.js";

const LIMITS = { programWallMs: 8000, programCpuMs: 1000, returnChars: 24_000, workers: 2 };
const ERROR_TEXT = core().limitDefault(Budget.error_text_chars);
/** Room for the cut marker ("… [cut: N characters]"). */
const MARKER = 64;

let a: Atrium;
type Result = CallToolResult & { structuredContent: any };
const run = async (code: string) => (await a.call("execute_code", { code })) as Result;
const text = (r: Result) => (r.content[0] as { text: string }).text;

async function expectServes(): Promise<void> {
  expect((await run("async () => 1 + 1")).structuredContent).toEqual({ ok: true, value: 2 });
}

beforeAll(async () => {
  a = await startAtrium({ config: { mcpServers: {}, atrium: { sandbox: LIMITS } } });
  await Promise.all([run("async () => 1"), run("async () => 2")]);
});
afterAll(async () => { await a?.close(); });

describe("every error text that leaves a run is cut at error_text_chars", () => {
  const huge: Record<string, [string, string, number]> = {
    // what → [program body, the field that is huge, its true length]
    "an Error with an 8 MB message": ["throw new Error('x'.repeat(8e6));", "message", 8e6],
    "an Error with a 3 MB name": ["const e = new Error('m'); e.name = 'N'.repeat(3e6); throw e;", "name", 3e6],
    "an Error with a 3 MB one-line stack": ["const e = new Error('m'); Object.defineProperty(e, 'stack', { value: 's'.repeat(3e6) }); throw e;", "stack", 3e6],
    "a thrown 3 MB string": ["throw 'z'.repeat(3e6);", "message", 3e6 + 20],
    "a thrown object holding 3 MB": ["throw { big: 'q'.repeat(3e6) };", "message", 3e6],
  };
  for (const [what, [body, field, length]] of Object.entries(huge)) {
    it(`${what} comes back cut, with a marker giving its length, and the whole result stays within return_chars`, async () => {
      const r = await run(`async () => { ${body} }`);
      expect(r.isError).toBe(true);
      expect(text(r).length).toBeLessThan(LIMITS.returnChars);
      const e = r.structuredContent.error;
      for (const k of ["name", "message", "stack"]) if (e[k] !== undefined) expect(e[k].length).toBeLessThanOrEqual(ERROR_TEXT + MARKER);
      expect(e[field]).toMatch(/\[cut: \d+ characters\]$/);
      expect(Number(/\[cut: (\d+) characters\]$/.exec(e[field])![1])).toBeGreaterThanOrEqual(length - 40);
      await expectServes();
    });
  }

  it("a short error passes through untouched (no marker)", async () => {
    const e = (await run("async () => { throw new TypeError('short'); }")).structuredContent.error;
    expect(e).toMatchObject({ name: "TypeError", message: "short" });
    expect(JSON.stringify(e)).not.toContain("[cut:");
  });
});

describe("a thrown value is read under the CPU budget", () => {
  const spinning: Record<string, string> = {
    "a message getter that spins": "throw { get message() { for (;;) {} } };",
    "a name getter that spins": "const e = new Error('m'); Object.defineProperty(e, 'name', { get() { for (;;) {} } }); throw e;",
    "a toJSON that spins": "throw { toJSON() { for (;;) {} } };",
    "a proxy whose every read spins": "throw new Proxy({}, { get() { for (;;) {} } });",
  };
  for (const [what, body] of Object.entries(spinning)) {
    it(`a program that throws ${what} ends in budget_exceeded naming program_cpu_ms`, async () => {
      const r = await run(`async () => { ${body} }`);
      expect(r.structuredContent.error).toMatchObject({ code: "budget_exceeded", details: { budget: "program_cpu_ms" } });
      await expectServes();
    });
    it(`program text that throws ${what} while it is evaluated ends in budget_exceeded naming program_cpu_ms`, async () => {
      // The text closes the wrapper, so the throw happens at evaluation, before any function runs.
      const r = await run(`0)); ${body} ((0`);
      expect(r.structuredContent.error).toMatchObject({ code: "budget_exceeded", details: { budget: "program_cpu_ms" } });
      await expectServes();
    });
  }

  it("two such programs at once do not pin both workers: both end on the CPU budget and the next program runs", async () => {
    const [x, y] = await Promise.all([run("0)); throw { get message() { for (;;) {} } }; ((0"), run("0)); throw { toJSON() { for (;;) {} } }; ((0")]);
    for (const r of [x, y]) expect(r.structuredContent.error).toMatchObject({ code: "budget_exceeded", details: { budget: "program_cpu_ms" } });
    await expectServes();
  });
});
