// The atrium server over real stdio with its embedded demo connector: the meta-tool surface,
// the read-only gate, typed errors, and that bad input never stops it serving.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { startAtrium, atriumBin, repo, type Atrium } from "./harness/atrium-client.js";
import { core } from "../glue/decisions/core.js";
import { Budget, BudgetCheck } from "../glue/decisions/generated/spec.js";
import { waitForValue } from "./harness/until.js";

let a: Atrium;
beforeAll(async () => { a = await startAtrium(); });
afterAll(async () => { await a.close(); });

describe("atrium over stdio with the embedded demo", () => {
  it("declares the MCP Apps extension and short instructions within instructions_chars", () => {
    expect(a.client.getServerCapabilities()?.extensions).toHaveProperty(["io.modelcontextprotocol/ui"]);
    const text = a.client.getInstructions() ?? "";
    expect(text.length).toBeGreaterThan(100);
    expect(core().budgetCheck(Budget.instructions_chars, 0, text.length, core().limitDefault(Budget.instructions_chars))).toBe(BudgetCheck.ok);
  });

  it("lists the meta-tools with accurate annotations, not the downstream tools", async () => {
    const { tools } = await a.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(["authorize_connector", "call_destructive_tool", "call_tool", "execute_code", "get_result", "search_tools", "skills"]);
    expect(byName.call_destructive_tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.search_tools.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.call_tool.inputSchema.properties).toHaveProperty("address");
  });

  it("search_tools ranks desk.list_incidents first for 'incidents' and marks safety", async () => {
    const r = await a.json("search_tools", { query: "incidents" });
    expect(r.results[0].address).toBe("desk.list_incidents");
    expect(r.results[0].safety).toBe("read_only");
    const close = r.results.find((x: any) => x.address === "desk.close_incident");
    expect(close).toMatchObject({ safety: "approval", reason: "read_only_false" });
  });

  it("search_tools filters by safety, pages with a cursor bound to its query, and returns compact schemas on request", async () => {
    const ro = await a.json("search_tools", { query: "", safety: "read_only" });
    expect(ro.results.every((x: any) => x.safety === "read_only")).toBe(true);
    expect(ro.total).toBe(4);
    const p1 = await a.json("search_tools", { query: "", limit: 2 });
    const p2 = await a.json("search_tools", { query: "", limit: 2, cursor: p1.nextCursor });
    const all = await a.json("search_tools", { query: "", limit: 50 });
    expect([...p1.results, ...p2.results].map((x: any) => x.address)).toEqual(all.results.slice(0, 4).map((x: any) => x.address));
    const wrong = await a.call("search_tools", { query: "metrics", cursor: p1.nextCursor });
    expect(wrong.isError).toBe(true);
    expect((wrong.structuredContent as any).error.code).toBe("invalid_args");
    const withSchema = await a.json("search_tools", { query: "get_incident", schemas: true, limit: 1 });
    expect(withSchema.results[0].inputSchema.properties).toHaveProperty("id");
  });

  it("call_tool runs a read-only tool in value mode with a fields projection", async () => {
    const r = await a.json("call_tool", { address: "desk.list_incidents", args: { status: "open", limit: 3 }, resultMode: "value", fields: ["incidents[].id", "incidents[].status"] });
    expect(r.ok).toBe(true);
    expect(r.data.incidents).toHaveLength(3);
    for (const row of r.data.incidents) expect(Object.keys(row).sort()).toEqual(["id", "status"]);
    expect(r.data.incidents.every((x: any) => x.status === "open")).toBe(true);
  });

  it("call_tool passes the downstream content through as is in mcp mode", async () => {
    const r = await a.call("call_tool", { address: "desk.get_service_metrics", args: { service: "checkout-api" } });
    expect(r.isError).toBeFalsy();
    expect(r.content[0].type).toBe("text");
    expect(JSON.parse((r.content[0] as any).text)).toEqual(r.structuredContent);
  });

  it("R4: call_tool refuses a tool that is not read-only with destructive_tool_requires_approval and a nextAction", async () => {
    const r = await a.call("call_tool", { address: "desk.close_incident", args: { id: "INC-1050", resolution: "x" } });
    expect(r.isError).toBe(true);
    const e = (r.structuredContent as any).error;
    expect(e).toMatchObject({ code: "destructive_tool_requires_approval", retryable: false });
    expect(e.nextAction).toMatchObject({ tool: "call_destructive_tool", arguments: { address: "desk.close_incident" } });
  });

  it("call_destructive_tool runs the write and never forwards reason", async () => {
    const open = await a.json("call_tool", { address: "desk.list_incidents", args: { status: "open", limit: 1 }, resultMode: "value" });
    const id = open.data.incidents[0].id;
    const r = await a.json("call_destructive_tool", { address: "desk.close_incident", args: { id, resolution: "fixed by test" }, reason: "the person asked", resultMode: "value" });
    expect(r.ok).toBe(true);
    expect(r.data.status).toBe("closed");
    const after = await a.json("call_tool", { address: "desk.get_incident", args: { id }, resultMode: "value" });
    expect(after.data.status).toBe("closed");
  });

  it("unknown connectors and tools are typed errors that point at search_tools", async () => {
    const r1 = await a.call("call_tool", { address: "nope.list" });
    expect((r1.structuredContent as any).error).toMatchObject({ code: "unknown_address", retryable: false, nextAction: { tool: "search_tools" } });
    const r2 = await a.call("call_tool", { address: "desk.list_incidentz" });
    expect((r2.structuredContent as any).error).toMatchObject({ code: "unknown_tool", nextAction: { tool: "search_tools", arguments: { connector: "desk" } } });
  });

  it("wrong argument types are invalid_args, and the downstream's own validation is too", async () => {
    const r = await a.call("call_tool", { address: 42 });
    expect((r.structuredContent as any).error.code).toBe("invalid_args");
    const r2 = await a.call("call_tool", { address: "desk.list_incidents", args: { limit: 5000 }, resultMode: "value" });
    expect(r2.isError).toBe(true);
  });

  it("skills usage is byte-identical to the shipped guide", async () => {
    const r = await a.call("skills", { name: "usage" });
    expect((r.content[0] as any).text).toBe(readFileSync(join(repo, "glue/skills/usage.md"), "utf8"));
    const missing = await a.call("skills", { name: "nope" });
    expect((missing.structuredContent as any).error.code).toBe("not_found");
  });

  it("resources/templates/list answers an empty list, as the resources capability promises", async () => {
    expect(a.client.getServerCapabilities()?.resources).toBeDefined();
    expect(await a.client.listResourceTemplates()).toEqual({ resourceTemplates: [] });
  });

  it("get_result for an unknown id is not_found", async () => {
    const r = await a.call("get_result", { id: "00000000-0000-0000-0000-000000000000" });
    expect((r.structuredContent as any).error).toMatchObject({ code: "not_found", retryable: false });
  });
});

describe("garbage on stdin", () => {
  it("a malformed JSON-RPC line and an unknown method get errors, and the next request is served", async () => {
    const child = spawn(process.execPath, [atriumBin], { stdio: ["pipe", "pipe", "pipe"] });
    const lines: any[] = [];
    let buf = "";
    child.stdout.on("data", (c) => { buf += c; let i; while ((i = buf.indexOf("\n")) >= 0) { lines.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); } });
    const send = (m: unknown) => child.stdin.write((typeof m === "string" ? m : JSON.stringify(m)) + "\n");
    const answerTo = (id: number) => waitForValue(() => lines.find((l) => l.id === id), `the answer to ${id}`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    await answerTo(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send("{this is not json");
    send({ jsonrpc: "2.0", id: 2, method: "no/such/method" });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "no_such_tool", arguments: {} } });
    send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    expect((await answerTo(2)).error.code).toBe(-32601);
    expect((await answerTo(3)).error.code).toBe(-32602);
    expect((await answerTo(4)).result.tools.length).toBe(7);
    child.stdin.end();
    const code = await new Promise((r) => child.on("exit", r));
    expect(code).toBe(0);
  });
});
