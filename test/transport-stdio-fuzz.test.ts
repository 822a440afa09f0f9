// 10,000 generated JSON-RPC lines on atrium's stdin (seeded: ATRIUM_FUZZ_SEED replays a run):
// wrong types for every field, odd ids, deep nesting, invalid UTF-8, a 10 MB line, batches,
// stray responses, notifications and plain garbage, after a valid initialize. The server must
// never exit, write only JSON-RPC responses on stdout, answer every request that has a valid id
// exactly once with an error of the right class (never -32603 for what the client controls),
// answer unreadable lines with id null, keep serving, and end with its children on stdin close.
// Each generated line carries its own expected answer; the generator knows the rules of
// glue/transport/jsonrpc-guard.ts and of the SDK's request schemas.
import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { RawStdioPeer, waitForChildren, hangUp } from "./fixtures/raw-stdio.js";
import { waitFor } from "./harness/until.js";
import { atriumBin } from "./harness/atrium-client.js";
import { SHELL_URI } from "../glue/views/shell-page.js";
import { core } from "../glue/decisions/core.js";
import { Budget } from "../glue/decisions/generated/spec.js";
import { mulberry32 } from "./harness/prng.js";

const SEED = Number(process.env.ATRIUM_FUZZ_SEED ?? 20251125);
const LINES = 10_000;

type Id = string | number;
/** null: never answered; otherwise the id the answer carries and its code ("result" for a result). */
type Expected = { id: Id | null; code: number | "result" } | null;
interface Case { bytes: Buffer; expect: Expected; kind: string }

const SERVED = ["ping", "initialize", "tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get"];
const PAGED = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];
const TOOLS = ["execute_code", "search_tools", "call_tool", "call_destructive_tool", "get_result", "skills"];
const NOT_SERVED = ["completion/complete", "resources/subscribe", "resources/unsubscribe", "tasks/get", "tasks/list", "tasks/cancel", "tasks/result", "notifications/initialized", "sampling/createMessage", "roots/list", "elicitation/create", "Ping", "tools/list/", ""];
const PARSE = -32700, INVALID = -32600, METHOD = -32601, PARAMS = -32602;

const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isSafeInteger(v) ? "int" : "float") : typeof v);

function generate(seed: number, count: number): Case[] {
  const rand = mulberry32(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  // Random JSON values from fast-check, grouped by type, for "any value of another type".
  const pool = fc.sample(fc.jsonValue({ maxDepth: 3 }), { seed, numRuns: 4000 });
  pool.push(0, -1, 1.5, -0.25, 1e300, true, false, null, "", "x", [], {}, [1, "a"], { a: 1 });
  const byType = new Map<string, unknown[]>();
  for (const v of pool) byType.set(typeOf(v), [...(byType.get(typeOf(v)) ?? []), v]);
  const anyBut = (...types: string[]) => pick([...byType.entries()].filter(([t]) => !types.includes(t)).flatMap(([, vs]) => vs));
  const objects = byType.get("object") as Record<string, unknown>[];
  const safeText = (n: number) => Array.from({ length: n }, () => pick([..."abcdefghijklmnopqrstuvwxyz0123456789 ,:[]{}-_.éß中"])).join("");

  let counter = 1_000_000;
  const nextId = (): Id => {
    const k = counter++;
    switch (int(6)) {
      case 0: return k;
      case 1: return -k;
      case 2: return Number.MAX_SAFE_INTEGER - k;
      case 3: return `s-${k}`;
      case 4: return `é中😀\u0000"\\-${k}`;
      default: return `L${k}-${"x".repeat(int(10_000))}`;
    }
  };
  const line = (v: unknown) => Buffer.from(JSON.stringify(v) + "\n");
  const req = (id: Id, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) });
  const nested = (levels: number, leaf: string) => `${'{"a":'.repeat(levels)}${leaf}${"}".repeat(levels)}`;
  const arrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

  const validParams = (method: string): { params?: unknown; code: number | "result" } => {
    switch (method) {
      case "ping":
        return pick([{}, { params: {} }, { params: { _meta: { progressToken: `t-${counter}` } } }, { params: { extra: pick(pool) } }, { params: { task: { ttl: 1000 } } }, { params: { _meta: JSON.parse(nested(10, "1")) } }].map((p) => ({ ...p, code: "result" as const })));
      case "initialize":
        return { params: { protocolVersion: pick(["2025-11-25", "2025-06-18", "1999-01-01"]), capabilities: {}, clientInfo: { name: "fuzz", version: "0" } }, code: "result" };
      case "tools/list":
      case "resources/list":
      case "resources/templates/list":
      case "prompts/list":
        return { ...(rand() < 0.7 && { params: pick([{}, { cursor: safeText(int(20)) }, { task: { ttl: 5 } }]) }), code: "result" };
      case "prompts/get": // the demo connector offers no prompts: every name is unknown
        return { params: { name: pick(["desk.nope", "nope", "", safeText(int(40))]), ...(rand() < 0.5 && { arguments: { a: safeText(int(10)) } }) }, code: PARAMS };
      case "resources/read":
        return rand() < 0.5 ? { params: { uri: SHELL_URI }, code: "result" } : { params: { uri: `ui://nope/${safeText(int(30))}` }, code: -32002 };
      default: { // tools/call
        const r = rand();
        if (r < 0.15) return { params: { name: pick(["get_view", "nope", "", safeText(int(40))]), arguments: pick(objects) }, code: PARAMS };
        const name = rand() < 0.05 ? "execute_code" : pick(TOOLS.filter((t) => t !== "execute_code"));
        const args = name === "execute_code" ? { code: safeText(int(60)) } : pick([pick(objects), { query: safeText(int(30)) }, { address: `desk.${safeText(int(20))}` }, { name: safeText(int(10)) }, { id: safeText(int(10)) }]);
        return { params: { name, ...(rand() < 0.9 && { arguments: args }) }, code: "result" };
      }
    }
  };

  const builders: Array<[number, () => Case]> = [
    [25, () => { // well-formed requests
      const id = nextId();
      const method = pick(SERVED);
      const { params, code } = validParams(method);
      return { bytes: line(req(id, method, params)), expect: { id, code }, kind: `valid ${method}` };
    }],
    [8, () => { // methods the server does not serve, any structured params
      const id = nextId();
      const method = rand() < 0.5 ? pick(NOT_SERVED) : `x/${safeText(int(20))}`;
      const params = pick([undefined, pick(objects), byType.get("array")!.length ? pick(byType.get("array")!) : []]);
      return { bytes: line(req(id, method, params)), expect: { id, code: METHOD }, kind: "unknown method" };
    }],
    [15, () => { // params the SDK's schemas refuse
      const id = nextId();
      const method = pick(SERVED);
      const base = (validParams(method).params ?? {}) as Record<string, unknown>;
      const mutations: Array<() => unknown> = [
        () => anyBut("object", "string", "int", "float", "boolean", "null"), // an array
        () => ({ ...base, _meta: anyBut("object") }),
        () => ({ ...base, _meta: { progressToken: anyBut("string", "int") } }),
      ];
      if (PAGED.includes(method)) mutations.push(() => ({ cursor: anyBut("string") }));
      if (method === "resources/read") mutations.push(() => ({ uri: anyBut("string") }), () => ({}));
      if (method === "prompts/get") mutations.push(() => ({ name: anyBut("string") }), () => ({}));
      if (method === "tools/call") mutations.push(() => ({ name: anyBut("string"), arguments: {} }), () => ({ arguments: {} }), () => ({ name: "skills", arguments: anyBut("object") }));
      if (method === "initialize") {
        mutations.push(
          () => ({ ...base, protocolVersion: anyBut("string") }),
          () => ({ ...base, capabilities: anyBut("object") }),
          () => ({ ...base, clientInfo: anyBut("object") }),
          () => ({ protocolVersion: "2025-11-25" }),
        );
      }
      const params = pick(mutations)();
      return { bytes: line(req(id, method, params)), expect: { id, code: PARAMS }, kind: `bad params ${method}` };
    }],
    [12, () => { // a readable id, a wrong envelope
      const id = nextId();
      const m: Record<string, unknown> = req(id, pick(SERVED));
      switch (int(5)) {
        case 0: if (rand() < 0.5) delete m.jsonrpc; else m.jsonrpc = pick(["1.0", 2, null, "2.0 ", true, {}]); break;
        case 1: m.method = anyBut("string"); break;
        case 2: m[pick(["foo", "result", "error", "Params", "ID", "_meta"])] = pick(pool); break;
        case 3: m.params = anyBut("object", "array"); break;
        default: delete m.method; if (rand() < 0.5) m.params = {}; break;
      }
      return { bytes: line(m), expect: { id, code: INVALID }, kind: "bad envelope" };
    }],
    [6, () => { // an id that is not a string or a safe integer
      const raw = pick(["1.5", "-0.25", "9007199254740993", "-9007199254740993", "1e300", "true", "null", "{}", '{"id":1}', "[1]", "[]"]);
      return { bytes: Buffer.from(`{"jsonrpc":"2.0","id":${raw},"method":"${pick(SERVED)}"}\n`), expect: { id: null, code: INVALID }, kind: "bad id" };
    }],
    [3, () => { // nested past request_depth (the id is read by the scan, before or after the deep part)
      const levels = pick([100, 1000, 100_000]);
      const id = nextId();
      const deep = rand() < 0.5 ? nested(levels, "1") : arrays(levels);
      if (rand() < 0.2) return { bytes: Buffer.from(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":${deep}}}\n`), expect: null, kind: "deep notification" };
      const text = rand() < 0.7
        ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"skills","arguments":{"x":${deep}}}}`
        : `{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"x":${deep}}},"id":${JSON.stringify(id)}}`;
      return { bytes: Buffer.from(text + "\n"), expect: { id: Buffer.byteLength(JSON.stringify(id)) <= core().limitDefault(Budget.echo_clamp_chars) ? id : null, code: INVALID }, kind: `deep ${levels}` };
    }],
    [4, () => { // bytes that are not UTF-8
      const bad = Buffer.from(pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf], [0xfe, 0xfe]]));
      if (rand() < 0.3) {
        const junk = Buffer.concat([Buffer.from(safeText(int(20)).replace(/[{[]/g, "")), bad, Buffer.from(safeText(int(20)))]);
        return { bytes: Buffer.concat([junk, Buffer.from("\n")]), expect: { id: null, code: PARSE }, kind: "non-UTF-8 junk" };
      }
      const id = nextId();
      const head = JSON.stringify(req(id, "tools/call", { name: "skills", arguments: { name: "" } })).slice(0, -4); // ...,"arguments":{"name":"
      const idReadable = Buffer.byteLength(JSON.stringify(id)) <= core().limitDefault(Budget.echo_clamp_chars);
      return { bytes: Buffer.concat([Buffer.from(head), bad, Buffer.from('"}}}\n')]), expect: { id: idReadable ? id : null, code: PARSE }, kind: "non-UTF-8 string" };
    }],
    [6, () => { // not JSON: garbage, or a request cut short after its id and method
      if (rand() < 0.5) return { bytes: Buffer.from(`{x${safeText(int(80))}\n`), expect: { id: null, code: PARSE }, kind: "garbage" };
      const id = nextId();
      const text = JSON.stringify(req(id, "tools/call", { name: "call_tool", arguments: pick(objects) }));
      const start = text.indexOf('"params":') + 9;
      const cut = text.slice(0, start + int(text.length - 1 - start));
      const idReadable = Buffer.byteLength(JSON.stringify(id)) <= core().limitDefault(Budget.echo_clamp_chars);
      return { bytes: Buffer.from(cut + "\n"), expect: { id: idReadable ? id : null, code: PARSE }, kind: "truncated" };
    }],
    [3, () => { // batches are not part of MCP 2025-11-25
      const batch = Array.from({ length: int(4) }, (_, i) => req(`batch-${counter}-${i}`, pick(SERVED)));
      return { bytes: line(rand() < 0.9 ? batch : [batch]), expect: { id: null, code: INVALID }, kind: "batch" };
    }],
    [3, () => ({ bytes: line(anyBut("object", "array")), expect: { id: null, code: INVALID }, kind: "not an object" })],
    [2, () => ({ bytes: line(pick([{}, { jsonrpc: "2.0" }, { jsonrpc: "2.0", method: anyBut("string") }, { params: {} }])), expect: { id: null, code: INVALID }, kind: "no id, no method" })],
    [4, () => { // stray responses: never answered
      const id = `resp-${counter++}`;
      const v = pick([{ jsonrpc: "2.0", id, result: pick(objects) }, { jsonrpc: "2.0", id, error: { code: int(1000) - 500, message: safeText(10) } }, { jsonrpc: "2.0", id, result: anyBut("object") }, { id, result: {} }, { jsonrpc: "2.0", error: { code: 1, message: "no id" } }, { jsonrpc: "2.0", id, result: {}, error: { code: 1, message: "both" } }]);
      return { bytes: line(v), expect: null, kind: "stray response" };
    }],
    [7, () => { // notifications, well-formed or not: never answered
      const v = pick<Record<string, unknown>>([
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: `never-${counter++}`, reason: safeText(10) } },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: `nope-${counter++}`, progress: 1 } },
        { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
        { jsonrpc: "2.0", method: `x/${safeText(10)}`, params: pick(objects) },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: anyBut("object") },
        { jsonrpc: "2.0", method: "notifications/progress", params: { _meta: anyBut("object") } },
        { method: "notifications/initialized" },
        { jsonrpc: "1.0", method: "ping" },
      ]);
      return { bytes: line(v), expect: null, kind: "notification" };
    }],
    [2, () => ({ bytes: Buffer.from(pick(["", "   ", "\r", "\t \r"]) + "\n"), expect: null, kind: "blank" })],
  ];

  const total = builders.reduce((s, [w]) => s + w, 0);
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    if (i === Math.floor(count / 2)) { // one 10 MB line
      const id = nextId();
      const text = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"skills","arguments":{"name":"${"z".repeat(10 * 1024 * 1024)}"}}}\n`;
      const idReadable = Buffer.byteLength(JSON.stringify(id)) <= core().limitDefault(Budget.echo_clamp_chars);
      cases.push({ bytes: Buffer.from(text), expect: { id: idReadable ? id : null, code: INVALID }, kind: "10 MB line" });
      continue;
    }
    let r = rand() * total;
    const [, build] = builders.find(([w]) => (r -= w) < 0) ?? builders[0];
    cases.push(build());
  }
  return cases;
}

const key = (id: Id) => `${typeof id}:${id}`;

describe("10,000 generated lines on stdin", () => {
  it(`every request with a valid id gets exactly one answer of the right class, stdout stays JSON-RPC, and the server keeps serving (seed ${SEED})`, async () => {
    const cases = generate(SEED, LINES);
    const peer = new RawStdioPeer(atriumBin);
    try {
      await peer.initialize();
      const kids = await waitForChildren(peer.child.pid!);
      expect(kids.length).toBeGreaterThan(0);

      // Arrival time of each answer, for the latency figure.
      const arrived = new Map<string, number>();
      let tail = "";
      peer.child.stdout.on("data", (chunk: Buffer) => {
        const now = performance.now();
        const text = tail + chunk.toString("latin1");
        const lines = text.split("\n");
        tail = lines.pop()!;
        for (const l of lines) {
          const m = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+)/.exec(l) ?? /"id":("(?:[^"\\]|\\.)*"|-?\d+)\}?$/.exec(l);
          if (m) {
            try { const id = JSON.parse(Buffer.from(m[1], "latin1").toString("utf8")); if (!arrived.has(key(id))) arrived.set(key(id), now); } catch { /* not an id */ }
          }
        }
      });

      const expected = new Map<string, { code: number | "result"; kind: string }>();
      const expectedNull: number[] = [];
      for (const c of cases) {
        if (!c.expect) continue;
        if (c.expect.id === null) expectedNull.push(c.expect.code as number);
        else {
          expect(expected.has(key(c.expect.id)), `generated id ${c.expect.id} twice`).toBe(false);
          expected.set(key(c.expect.id), { code: c.expect.code, kind: c.kind });
        }
      }

      const linesBefore = peer.lines.length;
      const sentAt = new Map<string, number>();
      const t0 = performance.now();
      for (const c of cases) {
        if (c.expect?.id != null) sentAt.set(key(c.expect.id), performance.now());
        peer.writeRaw(c.bytes);
      }
      const want = expected.size + expectedNull.length;
      const answers = () => peer.lines.length - linesBefore;
      await waitFor(() => {
        if (peer.child.exitCode !== null) throw new Error(`atrium exited during the run (code ${peer.child.exitCode})`);
        return answers() >= want;
      }, `${want} answers`, 240_000);
      const elapsedMs = performance.now() - t0;
      // A request written after every fuzz line: once it is answered, atrium has read and handled
      // all of them, so a duplicate or stray answer would be on stdout by now. (Also: still serving.)
      const BARRIER = "after-every-fuzz-line";
      expect(expected.has(key(BARRIER))).toBe(false);
      peer.send({ jsonrpc: "2.0", id: BARRIER, method: "tools/list" });
      const list = await peer.answerTo(BARRIER);
      expect((list.result as { tools: unknown[] }).tools.length).toBe(7);

      // stdout: only JSON-RPC responses
      const got = peer.lines.slice(linesBefore).map((l) => JSON.parse(l) as Record<string, any>).filter((m) => m.id !== BARRIER);
      for (const m of got) {
        expect(m.jsonrpc).toBe("2.0");
        expect(Object.hasOwn(m, "id")).toBe(true);
        expect(Object.hasOwn(m, "method")).toBe(false);
        expect(Object.hasOwn(m, "result") !== Object.hasOwn(m, "error")).toBe(true);
        if (m.error) expect(Number.isInteger(m.error.code) && typeof m.error.message === "string").toBe(true);
      }

      // every expected id answered once, with the expected class; nothing else answered
      const byId = new Map<string, Record<string, any>[]>();
      for (const m of got) if (m.id !== null) byId.set(key(m.id), [...(byId.get(key(m.id)) ?? []), m]);
      const problems: string[] = [];
      for (const [k, e] of expected) {
        const ms = byId.get(k) ?? [];
        const codes = ms.map((m) => (m.error ? m.error.code : "result"));
        if (codes.length !== 1 || codes[0] !== e.code) problems.push(`${e.kind} ${k.slice(0, 60)}: expected [${e.code}], got [${codes}] ${ms.map((m) => m.error?.message ?? "").join(" | ").slice(0, 200)}`);
      }
      for (const k of byId.keys()) if (!expected.has(k)) problems.push(`unexpected answer to ${k.slice(0, 60)}`);
      const nullCodes = got.filter((m) => m.id === null).map((m) => m.error?.code).sort();
      expect(problems.slice(0, 20)).toEqual([]);
      expect(nullCodes).toEqual([...expectedNull].sort());
      expect(got.filter((m) => m.error?.code === -32603)).toEqual([]);

      // figures for the bench (not asserted)
      const latencies = [...expected.keys()].map((k) => (arrived.get(k) ?? NaN) - sentAt.get(k)!).filter(Number.isFinite).sort((a, b) => a - b);
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${peer.child.pid}/status`, "utf8"))?.[1];
      const kinds = new Map<string, number>();
      for (const c of cases) kinds.set(c.kind.split(" ")[0], (kinds.get(c.kind.split(" ")[0]) ?? 0) + 1);
      console.log(`fuzz lines by kind: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")}`);
      console.log(`fuzz seed ${SEED}: ${cases.length} lines (${(cases.reduce((s, c) => s + c.bytes.length, 0) / 1e6).toFixed(1)} MB), ${want} answers in ${elapsedMs.toFixed(0)} ms; latency p50 ${latencies[latencies.length >> 1]?.toFixed(0)} ms, max ${latencies.at(-1)?.toFixed(0)} ms; server VmHWM ${hwm} kB`);

      // closing stdin ends atrium and its connector children
      expect(await hangUp(peer, kids)).toEqual({ code: 0, childrenEnded: true });
      expect(peer.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await peer.close();
    }
  }, 300_000);
});
