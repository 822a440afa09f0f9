// Load: many programs at once, quick and slow mixed. Each one either finishes with its own value
// or is answered executor_overloaded (typed, retryable) right away; none hangs, none gets
// another's value, and the server serves normally afterwards. No assertion is about time.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { startAtrium, fixture, nodeServer, demoServer, type Atrium } from "./harness/atrium-client.js";

let a: Atrium;
type Result = CallToolResult & { structuredContent: any };
const run = async (code: string) => (await a.call("execute_code", { code }, 120_000)) as Result;

beforeAll(async () => {
  a = await startAtrium({ config: { mcpServers: { desk: nodeServer(demoServer), patient: nodeServer(fixture("nasty-server"), { timeoutMs: 10_000 }) } } });
  await Promise.all([run("async () => (await desk.list_services({})).services.length"), run("async () => (await patient.echo({})).tool")]);
});
afterAll(async () => { await a?.close(); });

let CPU_SUM = 0;
for (let k = 0; k < 2e5; k++) CPU_SUM += k % 7;
/** Program i and the value it returns when it runs. */
const KINDS: [string, (i: number) => string, (i: number) => unknown][] = [
  ["quick", (i) => `async () => ${i}`, (i) => i],
  ["slow host call", (i) => `async () => ({ i: ${i}, waited: (await patient.slow({ ms: 150 })).waited })`, (i) => ({ i, waited: 150 })],
  ["CPU work", (i) => `async () => { let s = 0; for (let k = 0; k < 2e5; k++) s += k % 7; return [${i}, s]; }`, (i) => [i, CPU_SUM]],
  ["search and call", (i) => `async () => { const s = await atrium.search("services"); const d = await desk.list_services({}); return [${i}, s.results.length > 0, d.services.length]; }`, (i) => [i, true, 6]],
];

describe("200 programs at once", () => {
  it("each finishes with its own value or is refused executor_overloaded (typed, retryable); the server then serves normally", async () => {
    const programs = Array.from({ length: 200 }, (_, i) => KINDS[i % KINDS.length]!);
    const results = await Promise.all(programs.map(([, code], i) => run(code(i))));
    const verdicts = { ok: 0, overloaded: 0 };
    results.forEach((r, i) => {
      const [kind, , expected] = programs[i]!;
      if (r.structuredContent?.ok) {
        expect([kind, r.structuredContent.value]).toEqual([kind, expected(i)]);
        verdicts.ok++;
      } else {
        expect([kind, r.isError, r.structuredContent?.error]).toEqual([kind, true, expect.objectContaining({ code: "executor_overloaded", retryable: true })]);
        verdicts.overloaded++;
      }
    });
    expect(verdicts.ok).toBeGreaterThan(0);
    expect(verdicts.ok + verdicts.overloaded).toBe(200);
    expect((await run("async () => 1 + 1")).structuredContent).toEqual({ ok: true, value: 2 });
  });

  it("a second wave right after the first is answered the same way", async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => run(`async () => ${i}`)));
    results.forEach((r, i) => {
      if (r.structuredContent?.ok) expect(r.structuredContent.value).toBe(i);
      else expect(r.structuredContent?.error).toMatchObject({ code: "executor_overloaded", retryable: true });
    });
  });
});
