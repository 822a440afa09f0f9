// atrium in front of real MCP servers from npm (server-everything over stdio and over
// Streamable HTTP, server-filesystem on a temporary folder, server-memory) plus the demo.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { startAtrium, npmBin, demoServer, nodeServer, type Atrium } from "./harness/atrium-client.js";

const err = (r: any) => r.structuredContent?.error;
const freePort = () => new Promise<number>((resolve) => { const s = createServer().listen(0, () => { const p = (s.address() as any).port; s.close(() => resolve(p)); }); });

describe("real MCP servers from npm behind atrium", () => {
  let a: Atrium;
  let files: string;
  let http: ChildProcess;
  let port: number;
  beforeAll(async () => {
    files = mkdtempSync(join(tmpdir(), "atrium-fs-"));
    writeFileSync(join(files, "notes.txt"), "first line\nsecond line — ünïcödé\n");
    port = await freePort();
    http = spawn(process.execPath, [npmBin("mcp-server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    await new Promise<void>((resolve) => http.stderr!.on("data", (c) => { if (String(c).includes("listening")) resolve(); }));
    a = await startAtrium({
      config: {
        mcpServers: {
          everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] },
          remote: { url: `http://127.0.0.1:${port}/mcp`, headers: { "X-Atrium-Test": "1" } },
          fs: { command: npmBin("mcp-server-filesystem"), args: [files] },
          memory: { command: npmBin("mcp-server-memory"), env: { MEMORY_FILE_PATH: join(files, "memory.jsonl") } },
          desk: nodeServer(demoServer),
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    http?.kill();
    rmSync(files, { recursive: true, force: true });
  });

  it("every connector starts and search spans them all in one ranked list", async () => {
    const all = await a.json("search_tools", { query: "", limit: 50 });
    expect(all.unavailable).toBeUndefined();
    const connectors = new Set<string>();
    for (let cursor: string | undefined, page: any = all; ; ) {
      for (const r of page.results) connectors.add(r.address.split(".")[0]);
      cursor = page.nextCursor;
      if (!cursor) break;
      page = await a.json("search_tools", { query: "", limit: 50, cursor });
    }
    expect([...connectors].sort()).toEqual(["desk", "everything", "fs", "memory", "remote"]);
    const files_ = await a.json("search_tools", { query: "read text file" });
    expect(files_.results[0].address).toBe("fs.read_text_file");
  });

  it("classifies the real servers' annotations: reads are read-only, writes need approval", async () => {
    const fs = await a.json("search_tools", { query: "", connector: "fs", limit: 50 });
    const safety = Object.fromEntries(fs.results.map((r: any) => [r.address, r.safety]));
    expect(safety["fs.read_text_file"]).toBe("read_only");
    expect(safety["fs.list_directory"]).toBe("read_only");
    expect(safety["fs.write_file"]).toBe("approval");
    expect(safety["fs.move_file"]).toBe("approval");
    const mem = await a.json("search_tools", { query: "", connector: "memory", safety: "approval", limit: 50 });
    expect(mem.results.map((r: any) => r.address)).toContain("memory.delete_entities");
  });

  it("reads a real file through call_tool, and a write is refused until call_destructive_tool", async () => {
    const r = await a.call("call_tool", { address: "fs.read_text_file", args: { path: join(files, "notes.txt") } });
    expect(JSON.stringify(r.content)).toContain("ünïcödé");
    const refused = await a.call("call_tool", { address: "fs.write_file", args: { path: join(files, "out.txt"), content: "x" } });
    expect(err(refused).code).toBe("destructive_tool_requires_approval");
    const written = await a.call("call_destructive_tool", { address: "fs.write_file", args: { path: join(files, "out.txt"), content: "written through atrium" }, reason: "test" });
    expect(written.isError).toBeFalsy();
    expect(readFileSync(join(files, "out.txt"), "utf8")).toBe("written through atrium");
  });

  it("the filesystem server's own refusals come back as its error, and atrium keeps serving", async () => {
    const r = await a.call("call_tool", { address: "fs.read_text_file", args: { path: "/etc/passwd" } });
    expect(r.isError).toBe(true);
    expect((await a.call("call_tool", { address: "fs.list_directory", args: { path: files } })).isError).toBeFalsy();
  });

  it("server-everything works the same over stdio and over Streamable HTTP", async () => {
    for (const id of ["everything", "remote"]) {
      const sum = await a.json("call_tool", { address: `${id}.get-sum`, args: { a: 2, b: 40 }, resultMode: "value" });
      expect(JSON.stringify(sum.data)).toContain("42");
      const echo = await a.call("call_tool", { address: `${id}.echo`, args: { message: "héllo" } });
      expect(JSON.stringify(echo.content)).toContain("héllo");
    }
  });

  it("image content passes through in mcp mode", async () => {
    const r = await a.call("call_tool", { address: "everything.get-tiny-image" });
    expect(r.content.some((b: any) => b.type === "image" && b.mimeType === "image/png" && b.data.length > 100)).toBe(true);
  });

  it("server-memory: a write through approval, then a read sees it", async () => {
    const w = await a.call("call_destructive_tool", { address: "memory.create_entities", args: { entities: [{ name: "atrium", entityType: "project", observations: ["gateway"] }] } });
    expect(w.isError).toBeFalsy();
    const g = await a.json("call_tool", { address: "memory.read_graph", resultMode: "value", fields: ["entities[].name"] });
    expect(g.data.entities).toContainEqual({ name: "atrium" });
  });
});
