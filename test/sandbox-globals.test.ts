// Connector globals: `<connector>.<anything>(args)` is atrium.call("<connector>.<anything>", args),
// so a typo or a connector that is down gets the host's typed answer (with its nextAction), not
// "not a function". Two connectors whose ids map to one identifier share a global that throws
// ambiguous_tool_alias, and every other program runs. The globals stay non-replaceable and lead
// nowhere near the host (sandbox-abuse.test.ts attacks them too).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { startAtrium, nodeServer, demoServer, type Atrium, programValue } from "./harness/atrium-client.js";
import { SandboxPool } from "../glue/sandbox/pool.js";
import { quickjsWasmPath, sandboxWorkerPath } from "../glue/support/paths.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";
import type { AliasConnector, RunLimits, RunOutcome } from "../glue/sandbox/protocol.js";

let a: Atrium;
type Result = CallToolResult & { structuredContent: any };
const run = async (code: string) => (await a.call("execute_code", { code })) as Result;

beforeAll(async () => {
  a = await startAtrium({
    config: {
      mcpServers: {
        desk: nodeServer(demoServer),
        "my-db": nodeServer(demoServer),
        my_db: nodeServer(demoServer),
        // Exits at once: a connector that is down.
        gone: { command: process.execPath, args: ["-e", "process.exit(3)"] },
      },
      atrium: { sandbox: { workers: 2 } },
    },
  });
});
afterAll(async () => { await a?.close(); });

describe("a connector global answers every tool name with a call", () => {
  it("a typo in a tool name is a typed unknown_tool with a nextAction, exactly as atrium.call answers it", async () => {
    const v = programValue(await run(`async () => {
      const viaGlobal = await desk.list_servces({}).catch((e) => ({ name: e.name, code: e.code, retryable: e.retryable, next: e.nextAction && e.nextAction.tool }));
      const viaCall = await atrium.call("desk.list_servces", {}).catch((e) => ({ name: e.name, code: e.code, retryable: e.retryable, next: e.nextAction && e.nextAction.tool }));
      return { viaGlobal, viaCall };
    }`));
    expect(v.viaGlobal).toEqual({ name: "AtriumError", code: "unknown_tool", retryable: false, next: "search_tools" });
    expect(v.viaGlobal).toEqual(v.viaCall);
  });

  it("any tool of a connector that is down throws the typed error atrium.call gives", async () => {
    const v = programValue(await run(`async () => {
      const viaGlobal = await gone.anything({}).catch((e) => [e.name, e.code]);
      const viaCall = await atrium.call("gone.anything", {}).catch((e) => [e.name, e.code]);
      return { viaGlobal, viaCall };
    }`));
    expect(v.viaGlobal).toEqual(["AtriumError", "unavailable"]);
    expect(v.viaGlobal).toEqual(v.viaCall);
  });

  it("a known tool still runs through its global, and a tool's exact name works as well as its identifier", async () => {
    const v = programValue(await run(`async () => [(await desk.list_services({})).services.length, (await desk["list_services"]({})).services.length]`));
    expect(v).toEqual([6, 6]);
  });

  it("then, toJSON and symbols are undefined, so await, JSON.stringify, console.log and spreading leave a global alone", async () => {
    const r = await run(`async () => {
      const awaited = await desk;
      console.log(desk);
      return {
        same: awaited === desk,
        then: typeof desk.then, toJSON: typeof desk.toJSON, iterator: typeof desk[Symbol.iterator], tag: typeof desk[Symbol.toStringTag],
        json: JSON.stringify({ desk }), keys: Object.keys(desk).includes("list_services"), frozen: Object.isFrozen(desk), typo: typeof desk.anything,
      };
    }`);
    expect(programValue(r)).toEqual({ same: true, then: "undefined", toJSON: "undefined", iterator: "undefined", tag: "undefined", json: "{\"desk\":{}}", keys: true, frozen: true, typo: "function" });
    expect(r.structuredContent.logs).toBe("{}\n");
  });

  it("a global leads nowhere near the host: its own keys are its tools, its functions are the sandbox's, and it cannot be changed", async () => {
    const v = programValue(await run(`async () => {
      const f = desk.no_such_tool;
      const probe = "return [typeof __host, typeof __emit, typeof __log, typeof __cfg, typeof process].join()";
      let defined; try { Object.defineProperty(desk, "no_such_tool", { value: 1 }); defined = "defined"; } catch (e) { defined = e.name; }
      let proto; try { Object.setPrototypeOf(desk, { x: 1 }); proto = "set"; } catch (e) { proto = e.name; }
      return {
        names: Object.getOwnPropertyNames(desk).every((n) => typeof desk[n] === "function"),
        unknownIsOwn: Object.getOwnPropertyNames(desk).includes("no_such_tool"),
        stable: desk.no_such_tool === f, isFunction: f.constructor === Function, viaCtor: f.constructor(probe)(),
        defined, proto, prototype: Object.getPrototypeOf(desk),
      };
    }`));
    expect(v).toEqual({ names: true, unknownIsOwn: false, stable: true, isFunction: true, viaCtor: "undefined,undefined,undefined,undefined,undefined", defined: "TypeError", proto: "TypeError", prototype: null });
  });
});

describe("connector ids that map to one guest identifier", () => {
  it("do not break other programs", async () => {
    expect(programValue(await run("async () => 1 + 1"))).toBe(2);
  });

  it("share a global whose every tool throws ambiguous_tool_alias naming both ids and atrium.call; the exact addresses work", async () => {
    const v = programValue(await run(`async () => {
      const e = await my_db.list_services({}).catch((e) => ({ name: e.name, code: e.code, retryable: e.retryable, message: e.message }));
      const viaCall = (await atrium.call("my-db.list_services", {})).services.length;
      return { e, viaCall };
    }`));
    expect(v.e).toMatchObject({ name: "AtriumError", code: "ambiguous_tool_alias", retryable: false });
    for (const s of ["my-db", "my_db", "atrium.call"]) expect(v.e.message).toContain(s);
    expect(v.viaCall).toBe(6);
  });
});

describe("the prelude never fails a run, and never passes for memory", () => {
  const LIMITS: RunLimits = { cpuMs: 2000, heapBytes: 67_108_864, stackBytes: 1_048_576, logChars: 4000, emitBytes: 4_000_000 };
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = new SandboxPool({ size: 1, queue: 4, heapBytes: LIMITS.heapBytes, workerPath: sandboxWorkerPath, wasmPath: quickjsWasmPath });
    await pool.warm();
  });
  afterAll(async () => { await pool?.close(); });
  const runWith = async (aliases: unknown, code = "async () => [typeof NaN, typeof ok_db]") =>
    (await pool.run({ code, aliases: aliases as AliasConnector[], limits: LIMITS }, { wallMs: 10_000, host: { answer: () => ({ ok: true, json: "1" }) }, principal: LOCAL_PRINCIPAL.id })) as RunOutcome;

  it("a global the sandbox cannot define (an identifier it already owns) is skipped, and the program runs", async () => {
    const conn = (ident: string): AliasConnector => ({ ident, connectorId: ident, tools: [], ambiguousWith: [] });
    const out = await runWith([conn("NaN"), conn("ok_db"), conn("ok_db")]);
    expect(out.ok).toBe(true);
    expect(JSON.parse(out.json!)).toEqual(["number", "object"]);
  });

  it("a prelude that fails (a malformed job) is the sandbox's own failure, not out of memory", async () => {
    const out = await runWith(null);
    expect(out.ok).toBe(false);
    expect(out.stopped).toBe("internal");
  });
});
