// Downstream prompts reach the host (issue 18 item 13, PRODUCT.md "Downstream prompts"): every
// connector's prompts listed as <connector>.<prompt> on both revisions, prompts/get forwarded to
// the connector a name names, and a connector's prompts/list_changed passed on.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { startAtrium, fixture, nodeServer, npmBin, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const config = { mcpServers: { everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] }, q: nodeServer(fixture("questions-server")) } };
const list = async (a: Atrium) => (await a.client.request({ method: "prompts/list", params: {} }) as { prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[] }).prompts;
const get = (a: Atrium, name: string, args?: Record<string, string>) => a.client.request({ method: "prompts/get", params: { name, ...(args && { arguments: args }) } }) as Promise<{ messages: { role: string; content: { type: string; text: string } }[] }>;

describe.each(["2025-11-25", "2026-07-28"] as const)("downstream prompts on %s", (revision) => {
  let a: Atrium;
  let changed = 0;
  beforeAll(async () => {
    a = await startAtrium({ revision, config, beforeConnect: (c) => c.setNotificationHandler("notifications/prompts/list_changed", () => { changed++; }) });
  }, 60_000);
  afterAll(() => a?.close());

  it("prompts/list names every connector's prompts <connector>.<prompt>, with their arguments", async () => {
    const prompts = await list(a);
    const names = prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["everything.simple-prompt", "everything.args-prompt", "q.greet"]));
    expect(prompts.find((p) => p.name === "q.greet")!.arguments).toEqual([expect.objectContaining({ name: "name", required: true })]);
  });

  it("prompts/get is answered by the connector the name names", async () => {
    const greet = await get(a, "q.greet", { name: "Ada" });
    expect(greet.messages[0].content.text).toBe("Hello, Ada");
    const simple = await get(a, "everything.simple-prompt");
    expect(simple.messages.length).toBeGreaterThan(0);
  });

  it("an unknown prompt, or a name without a connector, is -32602 and the server serves on", async () => {
    await expect(get(a, "q.nope")).rejects.toMatchObject({ code: -32602 });
    await expect(get(a, "nobody.greet")).rejects.toMatchObject({ code: -32602 });
    await expect(get(a, "greet")).rejects.toMatchObject({ code: -32602 });
    expect((await list(a)).length).toBeGreaterThan(0);
  });

  it.runIf(revision === "2025-11-25")("a connector's prompts/list_changed reaches the host, and the new prompt is listed", async () => {
    const before = changed;
    const r = await a.call("call_tool", { address: "q.add_prompt", args: { name: "fresh" } });
    expect(r.isError).toBeFalsy();
    await waitFor(() => changed > before, "notifications/prompts/list_changed at the host");
    expect((await list(a)).map((p) => p.name)).toContain("q.fresh");
  });
});

describe("a connector that offers prompts coming up after the host connected", () => {
  it("the host hears prompts/list_changed and then lists its prompts", async () => {
    let changed = 0;
    let gate = "";
    const a = await startAtrium({
      waitForConnectors: false,
      config: { mcpServers: { q: nodeServer(fixture("questions-server"), { env: { QUESTIONS_GATE_FILE: "GATE" } }) } },
      beforeConnect: (c) => c.setNotificationHandler("notifications/prompts/list_changed", () => { changed++; }),
    });
    try {
      gate = join(a.dir, "GATE");
      expect((await list(a)).map((p) => p.name)).not.toContain("q.greet"); // held: not started yet
      writeFileSync(gate, "");
      await waitFor(() => changed > 0, "notifications/prompts/list_changed once q is ready");
      expect((await list(a)).map((p) => p.name)).toContain("q.greet");
    } finally {
      await a.close();
    }
  }, 60_000);
});

describe("prompts/get of a connector that is not ready", () => {
  it("is a JSON-RPC error carrying the typed unavailable error, and the server serves on", async () => {
    const a = await startAtrium({ config: { mcpServers: { q: nodeServer(fixture("questions-server"), { disabled: true }), everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] } } } });
    try {
      const e: any = await get(a, "q.greet", { name: "Ada" }).catch((x) => x);
      expect(e.code).toBe(-32603);
      expect(e.data.atrium).toMatchObject({ code: "unavailable", retryable: false });
      expect(e.message).toContain("disabled");
      expect((await list(a)).map((p) => p.name)).toContain("everything.simple-prompt");
    } finally {
      await a.close();
    }
  }, 60_000);
});
