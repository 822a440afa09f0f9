// The sandbox attacked on purpose: memory, CPU and stack bombs, dead-end awaits, floods,
// prototype pollution, reaching for host functions, forged typed errors, oversized returns and
// logs, and abuse of every budget. Each program must end in the documented typed error, the
// host's or the program's own (never a hang, never a forged code), and the server must then run the next program
// normally. One atrium with lowered limits keeps the bombs fast; no assertion is about time.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { startAtrium, fixture, nodeServer, demoServer, type Atrium, programValue } from "./harness/atrium-client.js";

const LIMITS = { programWallMs: 3000, programCpuMs: 1000, heapBytes: 33_554_432, returnChars: 24_000, logChars: 4000, hostCalls: 20, batchCalls: 10, emitBlocks: 32, workers: 2 };

let a: Atrium;
type Result = CallToolResult & { structuredContent: any };
const run = async (code: string, extra: Record<string, unknown> = {}) => (await a.call("execute_code", { code, ...extra })) as Result;

/** (b) of every test: the next program runs normally. */
async function expectServes(): Promise<void> {
  const r = await run("async () => 1 + 1");
  expect(r.isError).toBeFalsy();
  expect(r.structuredContent).toEqual({ ok: true, value: 2 });
}
function expectBudget(r: Result, budget: string): any {
  expect(r.isError).toBe(true);
  expect(r.structuredContent.ok).toBe(false);
  expect(r.structuredContent.error).toMatchObject({ code: "budget_exceeded", retryable: false, details: { budget } });
  return r.structuredContent.error;
}
/** The program's own error: program_error, not retryable, whatever code or retryable the program set, with its name and message. */
function expectPlain(r: Result, name: string, fragment: string): any {
  expect(r.isError).toBe(true);
  expect(r.structuredContent.ok).toBe(false);
  const e = r.structuredContent.error;
  expect(e.code).toBe("program_error");
  expect(e.retryable).toBe(false);
  expect(e.name).toBe(name);
  expect(e.message).toContain(fragment);
  return e;
}

beforeAll(async () => {
  a = await startAtrium({
    config: {
      mcpServers: {
        desk: nodeServer(demoServer),
        nasty: nodeServer(fixture("nasty-server")),
        // The same fixture with a long per-call deadline, for slow calls that must not time out.
        patient: nodeServer(fixture("nasty-server"), { timeoutMs: 10_000 }),
        // And with a short one, for the hangs: well inside the wall clock, and only ever waited out.
        stuck: nodeServer(fixture("nasty-server"), { timeoutMs: 1000 }),
      },
      atrium: { sandbox: LIMITS },
    },
  });
  // Warm both workers and wait for the connectors, so no bomb runs on a cold sandbox.
  await Promise.all([run("async () => (await desk.list_services({})).services.length"), run("async () => (await nasty.echo({})).tool")]);
});
afterAll(async () => { await a?.close(); });

describe("memory bombs", () => {
  const bombs: Record<string, string> = {
    "a growing array of 1 MB strings": "const a = []; for (;;) a.push('x'.repeat(1e6) + a.length);",
    "a huge string": "return 'x'.repeat(2 ** 29).length;",
    "a 1 GiB ArrayBuffer": "return new ArrayBuffer(2 ** 30).byteLength;",
    "many typed arrays": "const a = []; for (;;) a.push(new Float64Array(1e5));",
  };
  for (const [what, body] of Object.entries(bombs)) {
    it(`${what}, uncaught, is budget_exceeded naming sandbox_heap_bytes`, async () => {
      const e = expectBudget(await run(`async () => { ${body} }`), "sandbox_heap_bytes");
      expect(e.details.limit).toBe(LIMITS.heapBytes);
      await expectServes();
    });
    it(`${what}, caught inside the program, is an out-of-memory error the program reports itself`, async () => {
      const r = await run(`async () => { try { ${body} } catch (e) { return { caught: e.message, name: e.name }; } }`);
      expect(programValue(r)).toEqual({ caught: "out of memory", name: "InternalError" });
      await expectServes();
    });
  }
});

describe("CPU bombs", () => {
  it("while (true) {} is stopped: budget_exceeded naming program_cpu_ms", async () => {
    const e = expectBudget(await run("async () => { while (true) {} }"), "program_cpu_ms");
    expect(e.details.limit).toBe(LIMITS.programCpuMs);
    await expectServes();
  });

  it("the CPU interrupt cannot be swallowed by try/catch around a tight loop", async () => {
    expectBudget(await run("async () => { let caught = 0; for (;;) { try { for (;;) {} } catch (e) { caught++; } } }"), "program_cpu_ms");
    expectBudget(await run("async () => { try { while (true) {} } catch (e) { return 'swallowed'; } finally { return 'finally won'; } }"), "program_cpu_ms");
    await expectServes();
  });

  it("a synchronous (non-async) CPU bomb is stopped the same way", async () => {
    expectBudget(await run("() => { for (;;) {} }"), "program_cpu_ms");
    await expectServes();
  });
});

describe("stack bombs", () => {
  it("unbounded recursion is a stack overflow (InternalError), uncaught → plain error", async () => {
    expectPlain(await run("async () => { const f = (n) => f(n + 1) + 1; return f(0); }"), "InternalError", "stack overflow");
    await expectServes();
  });

  it("unbounded recursion can be caught by the program, which then returns normally", async () => {
    const r = await run("async () => { const f = (n) => f(n + 1) + 1; try { return f(0); } catch (e) { return { name: e.name, message: e.message }; } }");
    expect(programValue(r)).toEqual({ name: "InternalError", message: "stack overflow" });
    await expectServes();
  });

  it("a deeply nested JSON.parse is a catchable stack overflow", async () => {
    const r = await run("async () => { try { JSON.parse('['.repeat(1e5)); return 'parsed'; } catch (e) { return { name: e.name, message: e.message }; } }");
    expect(programValue(r)).toMatchObject({ name: expect.stringMatching(/^(InternalError|RangeError|SyntaxError)$/) });
    await expectServes();
  });

  const deepStringify = "async () => { let o = {}; for (let i = 0; i < 1e5; i++) o = { o }; try { return JSON.stringify(o).length; } catch (e) { return { name: e.name, message: e.message }; } }";

  it("JSON.stringify of a 1e5-deep object never hangs the server: at worst the wall clock stops it (typed timeout)", async () => {
    const r = await run(deepStringify);
    // Today QuickJS spends ~20 s inside one native JSON.stringify call (its cycle check is linear in
    // depth, and the CPU interrupt is not polled inside it), so the wall clock is what stops it.
    if (r.isError) expect(r.structuredContent.error).toMatchObject({ code: "timeout", retryable: true, details: { budget: "program_wall_ms", limit: LIMITS.programWallMs } });
    else expect(r.structuredContent.value).toEqual({ name: "InternalError", message: "stack overflow" });
    await expectServes();
  });

  // KNOWN LIMITATION (QuickJS, not atrium glue): the stack overflow inside JSON.stringify of a
  // 1e5-deep object is only reached after ~20 s of uninterruptible native work (quadratic cycle
  // check), so the program cannot catch it within program_cpu_ms; the wall clock kills the run
  // (test above). Flip to `it` if QuickJS or the sandbox bounds native JSON work.
  it.fails("JSON.stringify of a 1e5-deep object is a catchable stack overflow within the CPU budget", async () => {
    const r = await run(deepStringify);
    expect(programValue(r)).toEqual({ name: "InternalError", message: "stack overflow" });
  });
});

describe("awaits that never end and slow hosts", () => {
  it("await new Promise(() => {}) is a plain error saying it can never settle", async () => {
    expectPlain(await run("async () => { await new Promise(() => {}); return 'unreachable'; }"), "Error", "can never settle");
    await expectServes();
  });

  it("a downstream tool that hangs ends in the connector's typed timeout, which the program can catch", async () => {
    const r = await run("async () => { await stuck.hang({}); }");
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "timeout", retryable: true, details: { connector: "stuck", tool: "hang" } });
    const caught = await run("async () => { try { await stuck.hang({}); } catch (e) { return { code: e.code, retryable: e.retryable }; } }");
    expect(programValue(caught)).toEqual({ code: "timeout", retryable: true });
    await expectServes();
  });

  it("many slow host calls past the wall clock end in a typed timeout naming program_wall_ms", async () => {
    const r = await run("async () => { for (let i = 0; i < 20; i++) await patient.slow({ ms: 400 }); return 'finished'; }");
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "timeout", retryable: true, details: { budget: "program_wall_ms", limit: LIMITS.programWallMs } });
    await expectServes();
  });
});

describe("promise floods finish or fail cleanly, never hang", () => {
  const floods: Record<string, [string, number]> = {
    "1e5 chained .then": ["async () => { let p = Promise.resolve(0); for (let i = 0; i < 1e5; i++) p = p.then((x) => x + 1); return await p; }", 1e5],
    "Promise.all of 1e5": ["async () => (await Promise.all(Array.from({ length: 1e5 }, (_, i) => Promise.resolve(i)))).length", 1e5],
    "1e4 awaits in a loop": ["async () => { let n = 0; for (let i = 0; i < 1e4; i++) n += await i; return n; }", (1e4 * (1e4 - 1)) / 2],
  };
  for (const [what, [code, expected]] of Object.entries(floods)) {
    it(what, async () => {
      const r = await run(code);
      if (r.structuredContent.ok) expect(r.structuredContent.value).toBe(expected);
      else {
        // A clean failure: the sandbox's own verdict (memory, CPU, or an error the guest threw),
        // never the wall clock (which would mean it hung) nor a crashed worker.
        expect(r.isError).toBe(true);
        const e = r.structuredContent.error;
        expect(["timeout", "unavailable"]).not.toContain(e.code);
        if (e.code !== undefined) expect(e.code).toBe("budget_exceeded");
      }
      await expectServes();
    });
  }
});

describe("prototype pollution and tampering", () => {
  it("polluting every prototype and global the prelude relies on leaves host calls, batch, errors and console working", async () => {
    const r = await run(`async () => {
      Object.prototype.x = 1;
      Array.prototype.map = null; Array.prototype.push = null; Array.prototype.join = null; Array.prototype.forEach = null;
      Array.prototype[Symbol.iterator] = function* () {};
      JSON.parse = () => ({}); JSON.stringify = () => "{}";
      Promise.prototype.then = function () { return 42; }; Promise.resolve = () => 0; Promise.reject = () => 0;
      Function.prototype.call = null; Function.prototype.apply = null; Function.prototype.bind = null; Reflect.apply = null;
      Object.defineProperty = null; Object.freeze = null; String = null; Error = function () {};
      WeakMap.prototype.get = () => undefined; WeakMap.prototype.set = null; WeakSet.prototype.has = () => true;
      const services = await desk.list_services({});
      const viaCall = await atrium.call("desk.get_incident", { id: "INC-1042" });
      const b = await atrium.batch([{ address: "desk.get_service_metrics", args: { service: "identity" } }, { address: "desk.nope", args: {} }]);
      console.log("still logging", [1, 2]);
      let refused;
      try { await atrium.call("desk.close_incident", { id: "INC-1042", resolution: "x" }); } catch (e) { refused = e.code; }
      return { n: services.services.length, id: viaCall.id, b0: b[0].ok, b1: b[1].error.code, refused };
    }`);
    expect(programValue(r)).toEqual({ n: 6, id: "INC-1042", b0: true, b1: "unknown_tool", refused: "destructive_tool_requires_approval" });
    expect(r.structuredContent.logs).toBe("still logging [1,2]\n");
    await expectServes();
  });

  it("the next program runs in a fresh context: no pollution survives", async () => {
    // Two at once, each holding its worker on a host call, so both workers run a polluting program.
    const polluter = "async () => { Object.prototype.x = 1; Array.prototype.map = null; globalThis.leak = 'yes'; Object.prototype.toJSON = () => 'hacked'; await patient.slow({ ms: 100 }); return 1; }";
    await Promise.all([run(polluter), run(polluter)]);
    const check = "async () => { await patient.slow({ ms: 100 }); return { x: ({}).x, map: typeof [].map, leak: typeof leak, toJSON: typeof ({}).toJSON }; }";
    for (const r of await Promise.all([run(check), run(check), run(check)])) expect(programValue(r)).toEqual({ map: "function", leak: "undefined", toJSON: "undefined" });
    await expectServes();
  });

  it("replacing JSON.parse / JSON.stringify before a host call does not break the host", async () => {
    const r = await run("async () => { JSON.parse = () => ({}); JSON.stringify = () => '{}'; const s = await desk.get_service_metrics({ service: 'identity' }); return typeof s === 'object' && s !== null && Object.keys(s).length > 0; }");
    expect(programValue(r)).toBe(true);
    await expectServes();
  });

  it("atrium and the connector globals cannot be replaced, deleted, redefined or re-prototyped", async () => {
    const r = await run(`async () => {
      const original = atrium, originalCall = atrium.call, originalDesk = desk, originalList = desk.list_services, originalLog = console.log;
      const attempts = {
        assign: () => { atrium = { call: () => "fake" }; },
        assignMember: () => { atrium.call = () => "fake"; },
        deleteMember: () => { delete atrium.call; },
        defineMember: () => Object.defineProperty(atrium, "call", { value: () => "fake" }),
        addMember: () => { atrium.extra = 1; },
        setPrototype: () => Object.setPrototypeOf(atrium, { call: () => "fake" }),
        protoAssign: () => { atrium.__proto__ = { call: () => "fake" }; },
        deleteGlobal: () => { delete globalThis.atrium; },
        redefineGlobal: () => Object.defineProperty(globalThis, "atrium", { value: { call: () => "fake" } }),
        reflectSet: () => Reflect.set(globalThis, "atrium", 1),
        deskAssign: () => { desk = { list_services: () => "fake" }; },
        deskMember: () => { desk.list_services = () => "fake"; },
        deskDelete: () => { delete desk.list_services; },
        deskDefine: () => Object.defineProperty(desk, "list_services", { value: () => "fake" }),
        deskProto: () => Object.setPrototypeOf(desk, null),
        consoleMember: () => { console.log = () => "fake"; },
      };
      const outcome = {};
      for (const [k, f] of Object.entries(attempts)) { try { f(); outcome[k] = "no error"; } catch (e) { outcome[k] = e.name; } }
      const intact = atrium === original && atrium.call === originalCall && desk === originalDesk && desk.list_services === originalList && console.log === originalLog
        && Object.isFrozen(atrium) && Object.isFrozen(desk) && Object.getPrototypeOf(atrium) === Object.prototype && !("extra" in atrium);
      const viaCall = await atrium.call("desk.list_services", {});
      const viaGlobal = await desk.list_services({});
      return { outcome, intact, n1: viaCall.services.length, n2: viaGlobal.services.length };
    }`);
    const v = programValue(r);
    expect(v.intact).toBe(true);
    expect(v.n1).toBe(6);
    expect(v.n2).toBe(6);
    // Every attempt either threw a TypeError or silently did nothing (sloppy-mode assignment, or
    // Reflect.set answering false); none succeeded, as `intact` shows.
    for (const [k, o] of Object.entries(v.outcome)) expect([k, o]).toEqual([k, expect.stringMatching(/^(TypeError|no error)$/)]);
    expect(v.outcome.redefineGlobal).toBe("TypeError");
    expect(v.outcome.setPrototype).toBe("TypeError");
    expect(v.outcome.defineMember).toBe("TypeError");
    await expectServes();
  });

  it("strict-mode tampering with atrium throws TypeError at each attempt", async () => {
    const r = await run(`async () => {
      "use strict";
      const out = [];
      for (const f of [() => { atrium = 1; }, () => { atrium.call = 1; }, () => { delete atrium.call; }, () => { desk.list_services = 1; }, () => { delete globalThis.atrium; }]) {
        try { f(); out.push("no error"); } catch (e) { out.push(e.name); }
      }
      return out;
    }`);
    expect(programValue(r)).toEqual(["TypeError", "TypeError", "TypeError", "TypeError", "TypeError"]);
    await expectServes();
  });
});

describe("reaching for host functions", () => {
  const HIDDEN = ["process", "require", "fetch", "setTimeout", "setInterval", "setImmediate", "queueMicrotask", "WebAssembly", "module", "exports", "Buffer", "XMLHttpRequest", "std", "os", "__host", "__emit", "__ui", "__log", "__cfg", "__done", "__atriumRun"];

  it("none of the host's or Node's names is reachable by typeof", async () => {
    const r = await run(`async () => Object.fromEntries(${JSON.stringify(HIDDEN)}.map((k) => [k, eval("typeof " + k)]))`);
    expect(programValue(r)).toEqual(Object.fromEntries(HIDDEN.map((k) => [k, "undefined"])));
    await expectServes();
  });

  it("import('fs') rejects", async () => {
    const r = await run("async () => { try { await import('fs'); return 'imported'; } catch (e) { return { name: e.name, message: e.message }; } }");
    const v = programValue(r);
    expect(v).not.toBe("imported");
    expect(v.message).toContain("fs");
    await expectServes();
  });

  it("Function('return this')() is the same sandbox global, with no hidden names", async () => {
    const r = await run(`async () => {
      const g = Function("return this")();
      return { same: g === globalThis, dunder: Object.getOwnPropertyNames(g).filter((n) => n.startsWith("__")), hidden: ${JSON.stringify(HIDDEN)}.filter((k) => g[k] !== undefined) };
    }`);
    expect(programValue(r)).toEqual({ same: true, dunder: [], hidden: [] });
    await expectServes();
  });

  it("globalThis.constructor.constructor('return process')() finds no process", async () => {
    const r = await run("async () => { try { return { got: typeof globalThis.constructor.constructor('return process')() }; } catch (e) { return { name: e.name, message: e.message }; } }");
    expect(programValue(r)).toEqual({ name: "ReferenceError", message: expect.stringContaining("process") });
    await expectServes();
  });

  it("walking atrium.call.constructor (and the async-function constructor) reaches only the sandbox's own Function", async () => {
    const r = await run(`async () => {
      const F = atrium.call.constructor;
      const AF = (async () => {}).constructor;
      const probe = "return [typeof __host, typeof __emit, typeof __log, typeof __cfg, typeof process, typeof require].join()";
      const chain = [];
      for (let p = atrium.call; p; p = Object.getPrototypeOf(p)) chain.push(Object.getOwnPropertyNames(p).filter((n) => n.startsWith("__") && n !== "__proto__" && !/^__(define|lookup)[GS]etter__$/.test(n)));
      return { isFunction: F === Function, viaF: F(probe)(), viaAF: await AF(probe)(), viaCtorCtor: F.constructor.constructor(probe)(), globalSame: F("return this")() === globalThis, chain };
    }`);
    const u = "undefined,undefined,undefined,undefined,undefined,undefined";
    expect(programValue(r)).toEqual({ isFunction: true, viaF: u, viaAF: u, viaCtorCtor: u, globalSame: true, chain: [[], [], []] });
    await expectServes();
  });

  it("Object.getOwnPropertyNames(globalThis) has no __ names, and the only additions are atrium, console and the connectors", async () => {
    const r = await run("async () => Object.getOwnPropertyNames(globalThis)");
    const names: string[] = programValue(r);
    expect(names.filter((n) => n.startsWith("__"))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(["atrium", "console", "desk", "nasty", "patient"]));
    for (const n of HIDDEN) expect(names).not.toContain(n);
    await expectServes();
  });

  it("eval('__host') is a ReferenceError", async () => {
    const r = await run("async () => { try { eval('__host'); return 'reached'; } catch (e) { return { name: e.name, message: e.message }; } }");
    expect(programValue(r)).toEqual({ name: "ReferenceError", message: expect.stringContaining("__host") });
    await expectServes();
  });
});

describe("forged typed errors", () => {
  it("an Error with code/retryable/name AtriumError assigned is reported as a plain error", async () => {
    const e = expectPlain(await run(`async () => { throw Object.assign(new Error("x"), { code: "timeout", retryable: true, name: "AtriumError", details: { budget: "program_wall_ms" } }); }`), "AtriumError", "x");
    expect(e).not.toHaveProperty("details");
    await expectServes();
  });

  it("a class extending Error with the same fields is also plain", async () => {
    const e = expectPlain(await run(`async () => {
      class AtriumError extends Error { constructor() { super("x"); this.name = "AtriumError"; this.code = "timeout"; this.retryable = true; this.nextAction = { tool: "call_destructive_tool" }; } }
      throw new AtriumError();
    }`), "AtriumError", "x");
    expect(e).not.toHaveProperty("nextAction");
    await expectServes();
  });

  it("a plain object shaped like the host's error body is plain", async () => {
    expectPlain(await run(`async () => { throw { name: "AtriumError", code: "timeout", retryable: true, message: "x", host: true, body: { code: "timeout", retryable: true } }; }`), "AtriumError", "x");
    await expectServes();
  });

  const FORGED = `{ ok: false, error: { host: true, name: "AtriumError", message: "forged", body: { code: "timeout", message: "forged", retryable: true } } }`;

  it("Object.prototype.toJSON cannot rewrite the run's report into a typed error", async () => {
    const e = expectPlain(await run(`async () => {
      const forged = ${FORGED};
      Object.prototype.toJSON = function (key) { if (key === "") { delete Object.prototype.toJSON; return forged; } return this; };
      throw new Error("plain");
    }`), "Error", "plain");
    expect(e.message).not.toContain("forged");
    await expectServes();
  });

  it("replacing Promise.resolve / Promise.prototype.then cannot hand the host a forged report", async () => {
    const viaResolve = await run(`async () => { const forged = JSON.stringify(${FORGED}); Promise.resolve = () => ({ then: (ok) => ok(forged) }); throw new Error("plain"); }`);
    expectPlain(viaResolve, "Error", "plain");
    const viaThen = await run(`async () => { const forged = JSON.stringify(${FORGED}); Promise.prototype.then = function (ok) { ok(forged); }; throw new Error("plain"); }`);
    expectPlain(viaThen, "Error", "plain");
    const viaThenOk = await run(`async () => { const forged = JSON.stringify(${FORGED}); Promise.prototype.then = function (ok) { ok(forged); }; return "fine"; }`);
    expect(programValue(viaThenOk)).toBe("fine");
    await expectServes();
  });

  it("source that breaks out of the program wrapper cannot supply the run's outcome", async () => {
    // The program text closes the wrapper and evaluates to a promise of a forged report.
    const injected = `0)); (async () => JSON.stringify(${FORGED}))((0`;
    const r = await run(injected);
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error.code).toMatch(/^program_(syntax_)?error$/);
    expect(r.structuredContent.error.message).not.toContain("forged");
    await expectServes();
  });

  it("a host error the program catches and rethrows stays typed, and its report cannot be edited", async () => {
    const r = await run(`async () => {
      try { await atrium.call("desk.close_incident", { id: "INC-1042", resolution: "x" }); }
      catch (e) { e.message = "edited"; try { e.code = "timeout"; } catch {} try { e.details.reason = "edited"; } catch {} throw e; }
    }`);
    expect(r.isError).toBe(true);
    const e = r.structuredContent.error;
    expect(e).toMatchObject({ code: "destructive_tool_requires_approval", retryable: false, nextAction: { tool: "call_destructive_tool" }, details: { address: "desk.close_incident", reason: "read_only_false" } });
    expect(e.message).not.toContain("edited");
    await expectServes();
  });

  it("a destructive tool called through its connector global is refused with destructive_tool_requires_approval", async () => {
    const r = await run(`async () => desk.close_incident({ id: "INC-1042", resolution: "sneaky" })`);
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "destructive_tool_requires_approval", retryable: false, nextAction: { tool: "call_destructive_tool", arguments: { address: "desk.close_incident" } } });
    // It did not run: the incident is still open.
    expect(programValue(await run(`async () => (await desk.get_incident({ id: "INC-1042" })).status`))).not.toBe("closed");
    await expectServes();
  });
});

describe("huge and odd return values", () => {
  it("a 1 MB string comes back as one truncation envelope that itself fits return_chars", async () => {
    const r = await run("async () => 'y'.repeat(1e6)");
    const v = programValue(r);
    expect(v).toMatchObject({ truncated: true, totalChars: 1_000_002 });
    expect(JSON.stringify(v).length).toBeLessThanOrEqual(LIMITS.returnChars);
    expect((r.content[0] as { text: string }).text.length).toBeLessThan(LIMITS.returnChars + 500);
    await expectServes();
  });

  it("a return value with a cycle is a plain error", async () => {
    expectPlain(await run("async () => { const o = {}; o.self = o; return o; }"), "TypeError", "circular");
    await expectServes();
  });

  it("undefined comes back as value null", async () => {
    const r = await run("async () => undefined");
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ ok: true, value: null });
    await expectServes();
  });

  it("a BigInt is a plain error", async () => {
    expectPlain(await run("async () => 10n ** 30n"), "TypeError", "BigInt");
    await expectServes();
  });
});

describe("huge logs", () => {
  it("one huge line and thousands of lines are cut at log_chars and counted; the run still succeeds", async () => {
    const r = await run("async () => { console.log('z'.repeat(1e5)); for (let i = 0; i < 5000; i++) console.log('line', i); return 'done'; }");
    expect(programValue(r)).toBe("done");
    expect(r.structuredContent.logs.length).toBeGreaterThan(0);
    expect(r.structuredContent.logs.length).toBeLessThanOrEqual(LIMITS.logChars);
    expect(r.structuredContent.logLinesDropped).toBeGreaterThan(0);
    await expectServes();
  });

  it("logs are kept (bounded) when the program fails", async () => {
    const r = await run("async () => { for (let i = 0; i < 3000; i++) console.warn('w', i); throw new Error('after the logs'); }");
    expectPlain(r, "Error", "after the logs");
    expect(r.structuredContent.logs.startsWith("[warn] w 0\n")).toBe(true);
    expect(r.structuredContent.logs.length).toBeLessThanOrEqual(LIMITS.logChars);
    expect(r.structuredContent.logLinesDropped).toBeGreaterThan(0);
    await expectServes();
  });
});

describe("host-call budgets", () => {
  it("1,000 host calls in a loop: the 21st throws a catchable budget_exceeded naming host_calls with room 0", async () => {
    const r = await run(`async () => {
      let ok = 0;
      for (let i = 0; i < 1000; i++) {
        try { await desk.list_services({}); ok++; }
        catch (e) { return { ok, code: e.code, retryable: e.retryable, details: e.details, isError: e instanceof Error }; }
      }
      return { ok };
    }`);
    expect(programValue(r)).toEqual({ ok: LIMITS.hostCalls, code: "budget_exceeded", retryable: false, isError: true, details: { budget: "host_calls", limit: LIMITS.hostCalls, used: LIMITS.hostCalls, requested: 1, room: 0 } });
    const uncaught = await run("async () => { for (let i = 0; i < 1000; i++) await desk.list_services({}); }");
    expect(expectBudget(uncaught, "host_calls").details.room).toBe(0);
    await expectServes();
  });

  it("a batch of 11 is budget_exceeded naming batch_calls, and none of its items ran", async () => {
    // Items are nasty.add_tool calls: had any run, adding the same name again would fail.
    const r = await run(`async () => {
      const items = (n) => Array.from({ length: n }, (_, i) => ({ address: "nasty.add_tool", args: { name: "abuse_b11_" + i } }));
      let refused;
      try { await atrium.batch(items(11)); } catch (e) { refused = { code: e.code, details: e.details }; }
      const again = await atrium.batch(items(10));
      const last = await nasty.add_tool({ name: "abuse_b11_10" });
      return { refused, againOk: again.map((x) => x.ok && x.data.added), last: last.added };
    }`);
    const v = programValue(r);
    expect(v.refused).toEqual({ code: "budget_exceeded", details: { budget: "batch_calls", limit: LIMITS.batchCalls, used: 0, requested: 11, room: LIMITS.batchCalls } });
    expect(v.againOk).toEqual(Array.from({ length: 10 }, (_, i) => `abuse_b11_${i}`));
    expect(v.last).toBe("abuse_b11_10");
    await expectServes();
  });

  it("a batch larger than the host calls left is budget_exceeded and none of its items ran", async () => {
    const r = await run(`async () => {
      for (let i = 0; i < 15; i++) await nasty.echo({ i });
      const items = (n) => Array.from({ length: n }, (_, i) => ({ address: "nasty.add_tool", args: { name: "abuse_over_" + i } }));
      let refused;
      try { await atrium.batch(items(6)); } catch (e) { refused = { code: e.code, details: e.details }; }
      const fits = await atrium.batch(items(5));
      return { refused, fits: fits.map((x) => x.ok && x.data.added) };
    }`);
    const v = programValue(r);
    expect(v.refused).toEqual({ code: "budget_exceeded", details: { budget: "host_calls", limit: LIMITS.hostCalls, used: 15, requested: 6, room: 5 } });
    expect(v.fits).toEqual(Array.from({ length: 5 }, (_, i) => `abuse_over_${i}`));
    // The sixth item never ran either: adding it now succeeds.
    expect(programValue(await run(`async () => (await nasty.add_tool({ name: "abuse_over_5" })).added`))).toBe("abuse_over_5");
    await expectServes();
  });

  it("per-item batch failures are inline { ok: false, error } while the other items succeed", async () => {
    const r = await run(`async () => atrium.batch([
      { address: "desk.get_incident", args: { id: "INC-1042" } },
      { address: "desk.close_incident", args: { id: "INC-1042", resolution: "x" } },
      { address: "nope.nope", args: {} },
      5,
      { address: "nasty.error_result", args: {} },
      { address: "stuck.hang", args: {} },
      { address: "nasty.echo", args: { fine: true } },
    ])`);
    const v = programValue(r);
    expect(v.map((x: any) => (x.ok ? "ok" : x.error.code))).toEqual(["ok", "destructive_tool_requires_approval", "unknown_address", "invalid_args", "connector_call_failed", "timeout", "ok"]);
    expect(v[0].data.id).toBe("INC-1042");
    expect(v[6].data).toMatchObject({ tool: "echo", args: { fine: true } });
    await expectServes();
  });
});

describe("emit abuse", () => {
  const bad: Record<string, [string, string]> = {
    "two blocks in one call (an array)": ["[{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]", "exactly one content block"],
    "an unknown type": ["{ type: 'video', data: 'AAAA', mimeType: 'video/mp4' }", "type must be"],
    "extra keys": ["{ type: 'text', text: 'a', _meta: { x: 1 } }", "unexpected _meta"],
    "non-base64 image data": ["{ type: 'image', data: 'not base64!!', mimeType: 'image/png' }", "base64"],
    "an image with a text mimeType": ["{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'text/html' }", "mimeType"],
    "a non-serializable value": ["(() => { const o = { type: 'text' }; o.text = o; return o; })()", "content block"],
  };
  for (const [what, [block, fragment]] of Object.entries(bad)) {
    it(`${what} is a catchable invalid_args, and nothing is emitted`, async () => {
      const r = await run(`async () => { try { atrium.emit(${block}); return "accepted"; } catch (e) { return { name: e.name, code: e.code, retryable: e.retryable, message: e.message }; } }`);
      const v = programValue(r);
      expect(v).toMatchObject({ name: "AtriumError", code: "invalid_args", retryable: false });
      expect(v.message).toContain(fragment);
      expect(r.structuredContent).not.toHaveProperty("emitted");
      expect(r.content).toHaveLength(1);
      await expectServes();
    });
  }

  it("33 blocks: the 33rd is a catchable budget_exceeded naming emit_blocks; the 32 accepted are delivered", async () => {
    const r = await run(`async () => {
      let n = 0;
      try { for (let i = 0; i < 33; i++) { atrium.emit({ type: "text", text: "b" + i }); n++; } }
      catch (e) { return { n, code: e.code, details: e.details }; }
      return { n };
    }`);
    expect(programValue(r)).toEqual({ n: LIMITS.emitBlocks, code: "budget_exceeded", details: { budget: "emit_blocks", limit: LIMITS.emitBlocks, used: LIMITS.emitBlocks, requested: 1, room: 0 } });
    expect(r.structuredContent.emitted).toBe(LIMITS.emitBlocks);
    expect(r.content).toHaveLength(1 + LIMITS.emitBlocks);
    await expectServes();
  });

  it("the blocks of a failed run are not delivered; emittedDiscarded counts them", async () => {
    const r = await run("async () => { atrium.emit({ type: 'text', text: 'one' }); atrium.emit({ type: 'text', text: 'two' }); throw new Error('boom'); }");
    expectPlain(r, "Error", "boom");
    expect(r.structuredContent.emittedDiscarded).toBe(2);
    expect(r.structuredContent).not.toHaveProperty("emitted");
    expect(r.content).toHaveLength(1);
    expect(JSON.stringify(r.content)).not.toContain("\"one\"");
    const overBudget = await run("async () => { for (let i = 0; i < 40; i++) atrium.emit({ type: 'text', text: 'b' + i }); }");
    expectBudget(overBudget, "emit_blocks");
    expect(overBudget.structuredContent.emittedDiscarded).toBe(LIMITS.emitBlocks);
    expect(overBudget.content).toHaveLength(1);
    await expectServes();
  });
});

describe("concurrency", () => {
  it("6 programs in parallel on 2 workers all complete with their own results (queueing works)", async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => run(`async () => { const r = await patient.slow({ ms: 150 }); let s = 0; for (let k = 0; k < 1e5; k++) s += k; return { i: ${i}, waited: r.waited, s }; }`)));
    expect(results.map((r) => programValue(r))).toEqual(Array.from({ length: 6 }, (_, i) => ({ i, waited: 150, s: (1e5 * (1e5 - 1)) / 2 })));
    await expectServes();
  });

  it("a CPU bomb in parallel with a normal program does not stop the normal one", async () => {
    const [bomb, normal] = await Promise.all([
      run("async () => { for (;;) {} }"),
      run("async () => { const a = await desk.list_services({}); const b = await patient.slow({ ms: 200 }); return { n: a.services.length, waited: b.waited }; }"),
    ]);
    expectBudget(bomb, "program_cpu_ms");
    expect(programValue(normal)).toEqual({ n: 6, waited: 200 });
    await expectServes();
  });

  it("a memory bomb, a wall-clock overrun and normal programs in parallel: each gets its own verdict", async () => {
    const [mem, wall, ...normals] = await Promise.all([
      run("async () => { const a = []; for (;;) a.push(new Float64Array(1e5)); }"),
      run("async () => { for (let i = 0; i < 20; i++) await patient.slow({ ms: 400 }); }"),
      ...Array.from({ length: 4 }, (_, i) => run(`async () => (await nasty.echo({ i: ${i} })).args.i`)),
    ]);
    expectBudget(mem, "sandbox_heap_bytes");
    expect(wall.structuredContent.error).toMatchObject({ code: "timeout", details: { budget: "program_wall_ms" } });
    expect(normals.map((r) => programValue(r))).toEqual([0, 1, 2, 3]);
    await expectServes();
  });
});
