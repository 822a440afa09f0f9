// spec/access.md wired (issue 20 item 4): a connector a principal may not use is invisible to them
// on every path — search, program globals, atrium.call, call_tool (unknown_address worded as for a
// connector that does not exist), execute_code's listing — while a principal a rule grants it to
// uses it; a reload applies new rules to the next request. Two principals on one app, each with
// its own server instance, over the SDK's in-memory transport; real connectors behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { createApp } from "../glue/app.js";
import { core } from "../glue/decisions/core.js";
import { validateConfig } from "../glue/config/validate.js";
import type { AtriumConfig } from "../glue/config/schema.js";
import { Revision } from "../glue/decisions/generated/spec.js";
import { tokenPrincipal, type Principal } from "../glue/support/principal.js";
import { demoServer, fixture, nodeServer, programValue } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const configOf = (access: unknown): AtriumConfig => {
  const r = validateConfig({ mcpServers: { desk: nodeServer(demoServer), gate: nodeServer(fixture("gate-server")) }, atrium: { log: { enabled: false }, search: { semantic: false }, ...(access !== undefined && { access }) } }, core());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
};
const ruled = configOf([{ connectors: ["desk"] }, { groups: ["ops"], connectors: ["gate"] }]);
const alice = tokenPrincipal("https://login.example", "alice", ["ops"], []);
const bob = tokenPrincipal("https://login.example", "bob", ["sales"], []);

let app: ReturnType<typeof createApp>;
const clients: Client[] = [];
/** A 2025-11-25 connection acting for `principal` (the program and call paths are the same on both revisions; test/http-auth covers 2026-07-28 over HTTP). */
async function clientFor(principal: Principal) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await app.serverFor(Revision.r2025_11_25, principal).connect(b);
  const client = new Client({ name: "access-test", version: "0" });
  await client.connect(a);
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema)) as { isError?: boolean; structuredContent?: any; content: any[] };
  return { client, call };
}

beforeAll(async () => {
  app = createApp(ruled, "0.0.0-test");
  await app.registry.startAll();
  await waitFor(() => app.registry.connectors.every((c) => c.state === "ready"), "both connectors ready");
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await app.registry.stopAll();
  await app.pool.close();
});

describe("access rules: a connector the principal may not use is invisible", () => {
  it("search lists only the connectors each principal may use (G1, G2)", async () => {
    const a = await clientFor(alice);
    const b = await clientFor(bob);
    const addresses = async (c: typeof a) => ((await c.call("search_tools", { query: "", limit: 50 })).structuredContent.results as { address: string }[]).map((r) => r.address);
    expect((await addresses(a)).some((x) => x.startsWith("gate."))).toBe(true);
    expect((await addresses(b)).some((x) => x.startsWith("gate."))).toBe(false);
    expect((await addresses(b)).some((x) => x.startsWith("desk."))).toBe(true);
  });

  it("call_tool answers a hidden connector's address exactly as one that does not exist", async () => {
    const b = await clientFor(bob);
    const hidden = await b.call("call_tool", { address: "gate.whoami", args: {} });
    const never = await b.call("call_tool", { address: "gatx.whoami", args: {} });
    expect(hidden.isError).toBe(true);
    expect(hidden.structuredContent.error.code).toBe("unknown_address");
    expect(JSON.stringify(hidden.structuredContent).replaceAll("gate", "gatx")).toBe(JSON.stringify(never.structuredContent));
    const a = await clientFor(alice);
    expect((await a.call("call_tool", { address: "gate.whoami", args: {} })).isError).toBeFalsy();
  });

  {
    it("a program has no global for a hidden connector and atrium.call refuses it as unknown", async () => {
      const b = await clientFor(bob);
      expect(programValue(await b.call("execute_code", { code: "return [typeof gate, typeof desk]" }))).toEqual(["undefined", "object"]);
      const r = await b.call("execute_code", { code: "try { await atrium.call('gate.whoami', {}); return 'ran'; } catch (e) { return e.code; }" });
      expect(programValue(r)).toBe("unknown_address");
      const a = await clientFor(alice);
      expect(programValue(await a.call("execute_code", { code: "return (await gate.whoami({})).label" }))).toBe("gate");
    });
  }

  it("execute_code's listing names only the connectors the principal may use", async () => {
    const describe = async (p: Principal) => (await (await clientFor(p)).client.listTools()).tools.find((t) => t.name === "execute_code")!.description!;
    expect(await describe(alice)).toMatch(/Connectors: desk, gate\./);
    expect(await describe(bob)).toMatch(/Connectors: desk\./);
  });

  it("a reload's rules apply to the next request (G4: no rules, every connector)", async () => {
    const b = await clientFor(bob);
    expect((await b.call("call_tool", { address: "gate.whoami", args: {} })).structuredContent.error.code).toBe("unknown_address");
    app.running.replace(configOf(undefined));
    try {
      expect((await b.call("call_tool", { address: "gate.whoami", args: {} })).isError).toBeFalsy();
      app.running.replace(configOf([]));
      expect((await b.call("call_tool", { address: "desk.list_services", args: {} })).structuredContent.error.code).toBe("unknown_address");
    } finally {
      app.running.replace(ruled);
    }
  });
});
