// One resolver for every path (issue 18, item 12): call_tool, call_destructive_tool, atrium.call,
// atrium.describe and a program's connector globals turn an address into a tool by the same rule
// (glue/catalog/resolver.ts): the exact address, else the identifier form a program's global
// uses (`everything.get_sum` for server-everything's `get-sum`); an address with a typo is a
// typed unknown_tool (or unknown_address) naming the nearest real addresses. Real npm servers
// (server-everything, server-filesystem), as the field test had them.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startAtrium, npmBin, fixture, nodeServer, type Atrium } from "./harness/atrium-client.js";
import { matchName } from "../glue/catalog/resolver.js";

let a: Atrium;
let files: string;
const errorOf = async (tool: string, args: Record<string, unknown>) => ((await a.call(tool, args)).structuredContent as any).error;

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), "atrium-resolve-"));
  writeFileSync(join(files, "notes.txt"), "hello\n");
  a = await startAtrium({
    config: {
      mcpServers: {
        everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] },
        filesystem: { command: npmBin("mcp-server-filesystem"), args: [files] },
      },
    },
  });
}, 60_000);
afterAll(async () => {
  await a?.close();
  rmSync(files, { recursive: true, force: true });
});

describe("call_tool forgives as a program does", () => {
  it("call_tool everything.get_sum runs everything.get-sum, as a program's everything.get_sum does", async () => {
    const direct = await a.json("call_tool", { address: "everything.get_sum", args: { a: 2, b: 3 }, resultMode: "value" });
    expect(direct.ok).toBe(true);
    expect(JSON.stringify(direct.data)).toContain("5");
    const fromProgram = await a.value(`async () => {
      const viaGlobal = await everything.get_sum({ a: 2, b: 3 });
      const viaCall = await atrium.call("everything.get_sum", { a: 2, b: 3 });
      const described = await atrium.describe("everything.get_sum");
      return { viaGlobal: JSON.stringify(viaGlobal), viaCall: JSON.stringify(viaCall), address: described.address };
    }`);
    expect(fromProgram.viaGlobal).toContain("5");
    expect(fromProgram.viaCall).toBe(fromProgram.viaGlobal);
    expect(fromProgram.address).toBe("everything.get-sum");
  });

  it("a tool name with a typo is unknown_tool naming the nearest real address, from call_tool and from a program alike", async () => {
    const err = await errorOf("call_tool", { address: "filesystem.list_directroy", args: { path: files } });
    expect(err).toMatchObject({ code: "unknown_tool", retryable: false, details: { nearest: ["filesystem.list_directory"] }, nextAction: { tool: "search_tools" } });
    expect(err.message).toContain("did you mean filesystem.list_directory?");
    const fromProgram = await a.value(`async () => {
      const viaCall = await atrium.call("filesystem.list_directroy", {}).catch((e) => ({ code: e.code, nearest: e.details && e.details.nearest }));
      const viaGlobal = await filesystem.list_directroy({}).catch((e) => ({ code: e.code, nearest: e.details && e.details.nearest }));
      return { viaCall, viaGlobal };
    }`);
    expect(fromProgram.viaCall).toEqual({ code: "unknown_tool", nearest: ["filesystem.list_directory"] });
    expect(fromProgram.viaGlobal).toEqual(fromProgram.viaCall);
  });

  it("a tool name in the wrong case is unknown_tool naming the real one (names are exact; only the identifier form is forgiven)", async () => {
    const err = await errorOf("call_tool", { address: "everything.Echo", args: { message: "hi" } });
    expect(err).toMatchObject({ code: "unknown_tool", details: { nearest: ["everything.echo"] } });
  });

  it("a connector id with a typo is unknown_address naming the nearest connector", async () => {
    const err = await errorOf("call_tool", { address: "filesystm.list_directory", args: {} });
    expect(err).toMatchObject({ code: "unknown_address", retryable: false, details: { nearest: ["filesystem"] } });
    expect(err.message).toContain("did you mean filesystem?");
  });

  it("a bare tool name (no connector) is unknown_address naming the addresses that have it", async () => {
    const err = await errorOf("call_tool", { address: "list_directory", args: {} });
    expect(err).toMatchObject({ code: "unknown_address", details: { nearest: ["filesystem.list_directory"] } });
  });

  it("a miss with nothing near names nothing, and says to search", async () => {
    const err = await errorOf("call_tool", { address: "filesystem.zzzzzzzzzzzz", args: {} });
    expect(err.code).toBe("unknown_tool");
    expect(err.details?.nearest).toBeUndefined();
    expect(err.nextAction).toMatchObject({ tool: "search_tools", arguments: { connector: "filesystem" } });
  });
});

describe("the resolver's rule", () => {
  it("the exact name wins; else the one name whose identifier was written; several are ambiguous", () => {
    expect(matchName("get_item", ["get-item", "get_item"])).toEqual({ name: "get_item" });
    expect(matchName("get_sum", ["get-sum", "echo"])).toEqual({ name: "get-sum" });
    expect(matchName("delete_", ["delete"])).toEqual({ name: "delete" });
    expect(matchName("a_b", ["a-b", "a.b"])).toEqual({ ambiguous: ["a-b", "a.b"] });
    expect(matchName("Echo", ["echo"])).toEqual({ none: true });
  });
});

describe("an identifier two names share fails closed on every path; one a single name has reaches it", () => {
  let b: Atrium;
  const defs = () => join(files, "defs.json");
  beforeAll(async () => {
    const tool = (name: string) => ({ name, description: `tool ${name}`, inputSchema: { type: "object" }, annotations: { readOnlyHint: true } });
    writeFileSync(defs(), JSON.stringify([tool("a-b"), tool("a.b"), tool("peek")]));
    b = await startAtrium({ config: { mcpServers: { "my-db": nodeServer(fixture("pins-server"), { args: [fixture("pins-server"), defs()] }) } } });
  }, 60_000);
  afterAll(async () => { await b?.close(); });

  it("call_tool my-db.a_b is ambiguous_tool_alias naming both tools, as the program's global is; the exact addresses run", async () => {
    const err = ((await b.call("call_tool", { address: "my-db.a_b" })).structuredContent as any).error;
    expect(err).toMatchObject({ code: "ambiguous_tool_alias", retryable: false, details: { candidates: ["my-db.a-b", "my-db.a.b"] } });
    const v = await b.value(`async () => ({
      global: await my_db.a_b({}).catch((e) => e.code),
      exact: (await atrium.call("my-db.a.b", {})).ran,
    })`);
    expect(v).toEqual({ global: "ambiguous_tool_alias", exact: "a.b" });
    expect((await b.json("call_tool", { address: "my-db.a-b", resultMode: "value" })).data).toEqual({ ran: "a-b" });
  });

  it("a connector's identifier form reaches it: call_tool my_db.peek runs my-db.peek", async () => {
    expect((await b.json("call_tool", { address: "my_db.peek", resultMode: "value" })).data).toEqual({ ran: "peek" });
  });
});
