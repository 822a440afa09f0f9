// The demo connector over real stdio: spawn the compiled server, talk to it with the SDK client.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { waitFor } from "./harness/until.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const serverPath = join(repo, "dist/glue/demo/server.js");

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

interface Summary {
  id: string;
  service: string;
  severity: string;
  status: string;
  opened: string;
  updated: string;
}

const open: Client[] = [];

async function connect(): Promise<Client> {
  const client = new Client({ name: "demo-connector-test", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
  open.push(client);
  return client;
}

type CallResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

// A successful call: the text block and structuredContent must carry the same object.
async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await call(client, name, args);
  expect(result.isError, result.content[0]?.text).toBeFalsy();
  const parsed = JSON.parse(result.content[0]!.text!);
  expect(result.structuredContent).toEqual(parsed);
  return parsed;
}

async function allIncidents(client: Client, filters: Record<string, unknown> = {}, limit = 50): Promise<Summary[][]> {
  const pages: Summary[][] = [];
  let cursor: string | undefined;
  do {
    const page = await callOk(client, "list_incidents", { ...filters, limit, ...(cursor ? { cursor } : {}) });
    pages.push(page.incidents);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 100);
  return pages;
}

let shared: Client;

beforeAll(async () => {
  if (!existsSync(serverPath)) throw new Error(`${serverPath} is missing; run \`npx tsc -p .\` first`);
  shared = await connect();
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

describe("demo connector over stdio", () => {
  it("lists the five tools with titles, described inputs and exact annotations", async () => {
    const { tools } = await shared.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["close_incident", "get_incident", "get_service_metrics", "list_incidents", "list_services"],
    );
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description, tool.name).toBeTruthy();
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
      }
      if (tool.name === "close_incident") {
        expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
        expect(tool.inputSchema.required?.sort()).toEqual(["id", "resolution"]);
      } else {
        expect(tool.annotations, tool.name).toEqual(READ_ONLY);
      }
    }
  });

  it("pages with a cursor visit every incident exactly once, in the one-page order", async () => {
    const [everything] = await allIncidents(shared, {}, 50);
    expect(everything!.length).toBeGreaterThanOrEqual(30);
    const pages = await allIncidents(shared, {}, 7);
    expect(pages.length).toBe(Math.ceil(everything!.length / 7));
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(7);
    const ids = pages.flat().map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(everything!.map((i) => i.id));
    // Newest first.
    const opened = everything!.map((i) => i.opened);
    expect(opened).toEqual([...opened].sort().reverse());
  });

  it("uses a default page of 10 and reports the total", async () => {
    const page = await callOk(shared, "list_incidents");
    expect(page.incidents).toHaveLength(10);
    const [everything] = await allIncidents(shared);
    expect(page.total).toBe(everything!.length);
    expect(typeof page.nextCursor).toBe("string");
  });

  it("filters by status, service and severity return exactly the matching incidents", async () => {
    const all = (await allIncidents(shared)).flat();
    const { services } = await callOk(shared, "list_services");
    const cases: Record<string, string>[] = [
      ...["open", "investigating", "resolved", "closed"].map((status) => ({ status })),
      ...["sev1", "sev2", "sev3", "sev4"].map((severity) => ({ severity })),
      ...services.map((s: { id: string }) => ({ service: s.id })),
      { service: "checkout-api", status: "investigating" },
      { service: "media-cdn", severity: "sev1", status: "investigating" },
    ];
    let nonEmpty = 0;
    for (const filters of cases) {
      const got = (await allIncidents(shared, filters, 4)).flat();
      const want = all.filter((i) => Object.entries(filters).every(([k, v]) => i[k as keyof Summary] === v));
      expect(got.map((i) => i.id), JSON.stringify(filters)).toEqual(want.map((i) => i.id));
      if (want.length > 0) nonEmpty++;
    }
    // Guard against a vacuous pass: the dataset must exercise most filters.
    expect(nonEmpty).toBeGreaterThanOrEqual(cases.length - 1);
  });

  it("refuses an unknown service filter and a cursor from another filter as tool errors", async () => {
    const unknown = await call(shared, "list_incidents", { service: "nope" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toMatch(/Unknown service "nope"/);

    const first = await callOk(shared, "list_incidents", { status: "closed", limit: 2 });
    const foreign = await call(shared, "list_incidents", { status: "open", limit: 2, cursor: first.nextCursor });
    expect(foreign.isError).toBe(true);
    const garbage = await call(shared, "list_incidents", { cursor: "not-a-cursor" });
    expect(garbage.isError).toBe(true);
  });

  it("get_incident returns the full incident with a consistent timeline; unknown id is a tool error", async () => {
    const all = (await allIncidents(shared)).flat();
    for (const row of all) {
      const incident = await callOk(shared, "get_incident", { id: row.id });
      expect(incident).toMatchObject(row);
      expect(typeof incident.description).toBe("string");
      const times = incident.timeline.map((e: { at: string }) => e.at);
      expect(incident.timeline[0].kind).toBe("opened");
      expect(times[0]).toBe(incident.opened);
      expect(times[times.length - 1]).toBe(incident.updated);
      expect(times).toEqual([...times].sort());
    }
    const missing = await call(shared, "get_incident", { id: "INC-0000" });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toContain("INC-0000");
  });

  it("get_service_metrics returns current metrics and a 12-point series; unknown service is a tool error", async () => {
    const { services } = await callOk(shared, "list_services");
    expect(services.length).toBe(6);
    for (const s of services) {
      const m = await callOk(shared, "get_service_metrics", { service: s.id });
      expect(m.service).toBe(s.id);
      expect(m.latencySeries).toHaveLength(12);
      expect(m.latencyP95Ms).toBe(m.latencySeries[11].p95Ms);
      expect(m.latencyP50Ms).toBeLessThanOrEqual(m.latencyP95Ms);
      expect(m.errorRate).toBeGreaterThanOrEqual(0);
      expect(m.availability).toBeLessThanOrEqual(100);
    }
    const missing = await call(shared, "get_service_metrics", { service: "nope" });
    expect(missing.isError).toBe(true);
  });

  it("close_incident closes an incident for later reads in the same process only", async () => {
    const client = await connect();
    const [target] = (await allIncidents(client, { status: "open" })).flat();
    const closed = await callOk(client, "close_incident", { id: target!.id, resolution: "Rolled back the deploy." });
    expect(closed).toMatchObject({ id: target!.id, status: "closed", resolution: "Rolled back the deploy." });

    const reread = await callOk(client, "get_incident", { id: target!.id });
    expect(reread.status).toBe("closed");
    expect(reread.timeline.at(-1)).toMatchObject({ kind: "closed", note: "Rolled back the deploy." });
    const closedIds = (await allIncidents(client, { status: "closed" })).flat().map((i) => i.id);
    expect(closedIds).toContain(target!.id);

    const again = await call(client, "close_incident", { id: target!.id, resolution: "twice" });
    expect(again.isError).toBe(true);
    const unknown = await call(client, "close_incident", { id: "INC-0000", resolution: "x" });
    expect(unknown.isError).toBe(true);

    // State is per process: a fresh server still has it open.
    const fresh = await connect();
    expect((await callOk(fresh, "get_incident", { id: target!.id })).status).toBe("open");
  });

  it("two fresh server processes give byte-identical tool lists and list results", async () => {
    const snapshot = async () => {
      const client = await connect();
      const texts = [JSON.stringify(await client.listTools())];
      const services = await call(client, "list_services");
      texts.push(services.content[0]!.text!);
      let cursor: string | undefined;
      do {
        const page = await call(client, "list_incidents", { limit: 9, ...(cursor ? { cursor } : {}) });
        texts.push(page.content[0]!.text!);
        cursor = JSON.parse(page.content[0]!.text!).nextCursor;
      } while (cursor);
      for (const s of JSON.parse(services.content[0]!.text!).services) {
        texts.push((await call(client, "get_service_metrics", { service: s.id })).content[0]!.text!);
      }
      return texts;
    };
    const [a, b] = await Promise.all([snapshot(), snapshot()]);
    expect(a.length).toBeGreaterThan(5);
    expect(b).toEqual(a);
  });

  it("writes only JSON-RPC messages to stdout", async () => {
    const child = spawn(process.execPath, [serverPath], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const send = (m: object) => child.stdin.write(JSON.stringify(m) + "\n");
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_incidents", arguments: { limit: 3 } } });
    send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "get_incident", arguments: { id: "INC-0000" } } });
    await waitFor(() => stdout.split("\n").filter(Boolean).length >= 4, "four answers on stdout");
    child.stdin.end();
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(0); // stdin closing ends the server cleanly
    const lines = stdout.split("\n").filter(Boolean);
    const messages = lines.map((l) => JSON.parse(l));
    for (const m of messages) expect(m.jsonrpc).toBe("2.0");
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4]);
    expect(stderr).toBe("");
  });

  it("createDemoServer instances keep separate state, so a close in one is not seen by another", async () => {
    const { createDemoServer } = await import(pathToFileURL(serverPath).href);
    const inProcess = async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createDemoServer().connect(serverSide);
      const client = new Client({ name: "in-process", version: "0.0.0" });
      await client.connect(clientSide);
      open.push(client);
      return client;
    };
    const a = await inProcess();
    const b = await inProcess();
    await callOk(a, "close_incident", { id: "INC-1042", resolution: "Closed in a." });
    expect((await callOk(a, "get_incident", { id: "INC-1042" })).status).toBe("closed");
    expect((await callOk(b, "get_incident", { id: "INC-1042" })).status).toBe("open");
  });
});
