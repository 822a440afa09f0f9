// What atrium does with stdin lines a host should never send: too long, too deep, not JSON,
// not UTF-8, or JSON-RPC of the wrong shape. Every request that carries an id gets exactly one
// answer with the right code, and the server keeps serving; closing stdin always ends atrium
// and its connector children. Runs the real built server (bin/atrium.js) over real pipes.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { RawStdioPeer, waitForChildren, hangUp, type JsonRpcMessage } from "./fixtures/raw-stdio.js";
import { atriumBin } from "./harness/atrium-client.js";
import { core } from "../glue/decisions/core.js";
import { Budget } from "../glue/decisions/generated/spec.js";

const lineLimit = core().limitDefault(Budget.request_line_bytes);
const depthLimit = core().limitDefault(Budget.request_depth);
const code = (m: JsonRpcMessage) => m.error?.code;
const line = (m: unknown) => JSON.stringify(m) + "\n";
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;


describe("a request line longer than request_line_bytes", () => {
  it("is answered -32600 with the id read from its start, later requests are served, and stdin close ends atrium and its connector", async () => {
    const peer = new RawStdioPeer(atriumBin);
    try {
      await peer.initialize();
      const kids = await waitForChildren(peer.child.pid!);
      const head = `{"jsonrpc":"2.0","id":"too-long","method":"tools/call","params":{"name":"skills","arguments":{"name":"`;
      const filler = "a".repeat(lineLimit + 3 * 1024 * 1024 - head.length); // ~11 MB with the default limit
      peer.writeRaw(head + filler + `"}}}\n`);
      const after = await peer.request("ping", undefined, 30_000);
      expect(after.result).toEqual({});
      const answer = await peer.answerTo("too-long", 30_000);
      expect(code(answer)).toBe(-32600);
      expect(answer.error?.message).toContain("request_line_bytes");
      expect(peer.answersTo("too-long")).toHaveLength(1);
      const list = await peer.request("tools/list");
      expect((list.result as { tools: unknown[] }).tools.length).toBe(7);

      expect(await hangUp(peer, kids)).toEqual({ code: 0, childrenEnded: true });
      expect(peer.stderr.match(/request_line_bytes/g)).toHaveLength(1);
    } finally {
      await peer.close();
    }
  });

  it("a line of exactly request_line_bytes is read as usual", async () => {
    const peer = new RawStdioPeer(atriumBin);
    try {
      await peer.initialize();
      const head = `{"jsonrpc":"2.0","id":"at-limit","method":"ping","params":{"pad":"`;
      const tail = `"}}`;
      peer.writeRaw(head + "b".repeat(lineLimit - head.length - tail.length) + tail + "\n");
      expect((await peer.answerTo("at-limit", 30_000)).result).toEqual({});
    } finally {
      await peer.close();
    }
  });

  it("an oversized notification is dropped with one stderr line and never answered", async () => {
    const peer = new RawStdioPeer(atriumBin);
    try {
      await peer.initialize();
      peer.writeRaw(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"${"n".repeat(lineLimit)}","progress":1}}\n`);
      expect((await peer.request("ping", undefined, 30_000)).result).toEqual({});
      expect(peer.inbound.filter((m) => m.method === undefined)).toEqual([]);
    } finally {
      await peer.close();
    }
    expect(peer.stderr.match(/request_line_bytes/g)).toHaveLength(1);
  });
});

describe("malformed JSON-RPC on stdin", () => {
  let peer: RawStdioPeer;
  beforeAll(async () => {
    peer = new RawStdioPeer(atriumBin);
    await peer.initialize();
  });
  afterAll(async () => { await peer.close(); });

  const cases: Array<[string, string, number | string | null, number]> = [
    ["params as an array is invalid params", line({ jsonrpc: "2.0", id: 1, method: "ping", params: [] }), 1, -32602],
    ["params null is an invalid request", line({ jsonrpc: "2.0", id: 2, method: "ping", params: null }), 2, -32600],
    ["params as a string is an invalid request", line({ jsonrpc: "2.0", id: 3, method: "ping", params: "str" }), 3, -32600],
    ["_meta as an array is invalid params", line({ jsonrpc: "2.0", id: 4, method: "ping", params: { _meta: [] } }), 4, -32602],
    ["a fractional progressToken is invalid params", line({ jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: { progressToken: 1.5 } } }), 5, -32602],
    ["resources/read with a numeric uri is invalid params", line({ jsonrpc: "2.0", id: 6, method: "resources/read", params: { uri: 5 } }), 6, -32602],
    ["tools/list with a numeric cursor is invalid params", line({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { cursor: 5 } }), 7, -32602],
    ["initialize without its fields is invalid params", line({ jsonrpc: "2.0", id: 8, method: "initialize", params: {} }), 8, -32602],
    ["tools/call with a numeric name is invalid params", line({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: 5 } }), 9, -32602],
    ["an unknown method is method not found, whatever its params", line({ jsonrpc: "2.0", id: 10, method: "no/such", params: [] }), 10, -32601],
    ["a method the server does not serve is method not found", line({ jsonrpc: "2.0", id: 11, method: "completion/complete" }), 11, -32601],
    ["a wrong jsonrpc version is an invalid request", line({ jsonrpc: "1.0", id: 12, method: "ping" }), 12, -32600],
    ["a missing jsonrpc member is an invalid request", line({ id: 13, method: "ping" }), 13, -32600],
    ["a numeric method is an invalid request", line({ jsonrpc: "2.0", id: 14, method: 7 }), 14, -32600],
    ["an unknown top-level member is an invalid request", line({ jsonrpc: "2.0", id: 15, method: "ping", extra: true }), 15, -32600],
    ["an id with no method is an invalid request", line({ jsonrpc: "2.0", id: 16 }), 16, -32600],
    [`_meta nested past request_depth is an invalid request`, `{"jsonrpc":"2.0","id":17,"method":"ping","params":{"_meta":${nested(1000)}}}\n`, 17, -32600],
    ["arguments nested 100,000 levels are an invalid request", `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"skills","arguments":{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}\n`, 18, -32600],
    ["an id after the deep part is still read", `{"jsonrpc":"2.0","method":"ping","params":{"_meta":${nested(500)}},"id":19}\n`, 19, -32600],
    ["invalid UTF-8 in a string is a parse error that keeps the id", `{"jsonrpc":"2.0","id":20,"method":"ping","params":{"x":"\xff\xfe"}}\n`, 20, -32700],
    ["a truncated request is a parse error that keeps the id", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"sk\n`, 21, -32700],
    ["a fractional id is an invalid request answered with id null", line({ jsonrpc: "2.0", id: 1.5, method: "ping" }), null, -32600],
    ["a batch is one invalid request answered with id null", line([{ jsonrpc: "2.0", id: 22, method: "ping" }, { jsonrpc: "2.0", id: 23, method: "ping" }]), null, -32600],
    ["text that is not JSON is a parse error with id null", "{this is not json\n", null, -32700],
  ];

  it.each(cases)("%s", async (_name, raw, id, expected) => {
    const before = peer.answersTo(id).length;
    peer.writeRaw(Buffer.from(raw, "latin1"));
    await peer.waitFor(() => peer.answersTo(id).length > before);
    // a ping afterwards is served, and no second answer to the bad line came before its answer
    expect((await peer.request("ping")).result).toEqual({});
    expect(peer.answersTo(id).slice(before).map(code)).toEqual([expected]);
  });

  it("a request at exactly request_depth levels is served", async () => {
    // the message object and params are two levels, _meta's own object the third
    peer.writeRaw(`{"jsonrpc":"2.0","id":"deep-ok","method":"ping","params":{"_meta":${nested(depthLimit - 2)}}}\n`);
    expect((await peer.answerTo("deep-ok")).result).toEqual({});
    peer.writeRaw(`{"jsonrpc":"2.0","id":"deep-over","method":"ping","params":{"_meta":${nested(depthLimit - 1)}}}\n`);
    expect(code(await peer.answerTo("deep-over"))).toBe(-32600);
  });

  it("notifications, stray responses and blank lines are never answered", async () => {
    const before = peer.inbound.length;
    peer.writeRaw(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    peer.writeRaw(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: [] }));
    peer.writeRaw(line({ jsonrpc: "2.0", method: "no/such/notification", params: "x" }));
    peer.writeRaw(line({ method: "notifications/progress" }));
    peer.writeRaw(line({ jsonrpc: "2.0", id: "stray-1", result: {} }));
    peer.writeRaw(line({ jsonrpc: "2.0", id: "stray-2", error: { code: 1, message: "x" } }));
    peer.writeRaw(line({ jsonrpc: "2.0", id: "stray-3", result: 5 }));
    peer.writeRaw(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":${nested(1000)}}}\n`);
    peer.writeRaw("\n   \n\r\n");
    expect((await peer.request("ping")).result).toEqual({});
    expect(peer.inbound.slice(before)).toEqual([]);
  });

  it("a task-augmented tools/call is served as a plain call, since atrium declares no tasks capability", async () => {
    peer.writeRaw(line({ jsonrpc: "2.0", id: "task", method: "tools/call", params: { name: "skills", arguments: { name: "usage" }, task: { ttl: 1000 } } }));
    const r = await peer.answerTo("task");
    expect(r.error).toBeUndefined();
    expect((r.result as { content: { text: string }[] }).content[0].text.length).toBeGreaterThan(100);
  });

  it("a very long string id is echoed back whole", async () => {
    const id = "i".repeat(100_000);
    peer.writeRaw(line({ jsonrpc: "2.0", id, method: "ping" }));
    expect((await peer.answerTo(id)).result).toEqual({});
  });

  it("the server still lists its tools afterwards", async () => {
    const list = await peer.request("tools/list");
    expect((list.result as { tools: unknown[] }).tools.length).toBe(7);
  });
});
