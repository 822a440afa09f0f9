// A remote connector comes back after its server restarts: a real stateful SDK 2 Streamable HTTP
// server (test/fixtures/stateful-http-server.ts, its own process) is killed and started again on
// the same port. A 404 for atrium's session leads to a new `initialize` (the MCP transport spec);
// a refused connection while the server is down is `unavailable`, retryable, with a restart in the
// background, and search lists the connector as unavailable instead of showing its tools. The
// real server-everything (from npm) in its Streamable HTTP mode, killed and restarted, too.
import { describe, it, expect, afterEach } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { startAtrium, fixture, npmBin, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const err = (r: any) => r.structuredContent?.error;
let open: Atrium[] = [];
let servers: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(open.map((a) => a.close()));
  for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill("SIGKILL");
  open = [];
  servers = [];
});

/** Starts the stateful server on `port` (0: any free one), `sse`: with its standalone SSE stream, `unknownSession`: its status for a session it does not know; resolves once it listens. */
async function serve(port = 0, sse = false, unknownSession = 404): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fixture("stateful-http-server")], { env: { ...process.env, PORT: String(port), ...(sse && { STATEFUL_SSE: "1" }), STATEFUL_UNKNOWN_SESSION: String(unknownSession) }, stdio: ["ignore", "pipe", "inherit"] });
  servers.push(child);
  const listening = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`the stateful server exited (code ${code}) before it listened`)));
  });
  return { child, port: listening };
}
async function kill(child: ChildProcess): Promise<void> {
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
async function atriumFor(port: number): Promise<Atrium> {
  const a = await startAtrium({ config: { mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp` } } } });
  open.push(a);
  return a;
}
/** whoami through call_tool: the serving process's pid and the session's number in it, or the error. */
async function whoami(a: Atrium): Promise<{ pid: number; session: number } | { error: any }> {
  const r = await a.call("call_tool", { address: "remote.whoami", resultMode: "value" });
  if (r.isError) return { error: err(r) };
  const data = (r.structuredContent as any).data;
  return typeof data === "string" ? JSON.parse(data) : data;
}
/** Calls whoami until it answers (the connector's restart is in the background); that answer. */
async function whoamiOnceBack(a: Atrium): Promise<{ pid: number; session: number }> {
  let answer: any;
  await waitFor(async () => !("error" in (answer = await whoami(a))), "a call to remote.whoami that answers");
  return answer;
}

describe("a remote connector whose server restarts", () => {
  it("a 404 for its session is answered with a new initialize: unavailable (retryable) once, then calls reach the restarted server", async () => {
    let server = await serve();
    const a = await atriumFor(server.port);
    expect(await whoami(a)).toEqual({ pid: server.child.pid, session: 1 });

    await kill(server.child);
    server = await serve(server.port);
    // The first call after the restart names the old session; the server answers 404 for it.
    const lost = await whoami(a);
    expect("error" in lost && lost.error).toMatchObject({ code: "unavailable", retryable: true });
    expect("error" in lost && lost.error.message).toContain("HTTP 404");
    // The next call waits for the new session on the restarted server (its first initialize),
    // asked for at once; atrium was not restarted.
    expect(await whoami(a)).toEqual({ pid: server.child.pid, session: 1 });
    expect(await whoami(a)).toEqual({ pid: server.child.pid, session: 1 });
  });

  it("while its server is down a call is unavailable (retryable) and search lists the connector as unavailable, not its tools; it comes back with its server", async () => {
    let server = await serve();
    const a = await atriumFor(server.port);
    expect(await whoami(a)).toEqual({ pid: server.child.pid, session: 1 });
    expect((await a.json("search_tools", { query: "whoami" })).results.map((r: any) => r.address)).toContain("remote.whoami");

    await kill(server.child);
    const down = await whoami(a);
    expect("error" in down && down.error).toMatchObject({ code: "unavailable", retryable: true });
    expect("error" in down && down.error.message).toContain(`127.0.0.1:${server.port}/mcp`);
    const found = await a.json("search_tools", { query: "whoami" });
    expect(found.results.map((r: any) => r.address)).not.toContain("remote.whoami");
    expect(found.unavailable?.find((u: any) => u.connector === "remote")).toMatchObject({ state: "restarting" });
    // A program's call says the same.
    const fromProgram = await a.value(`async () => { try { await remote.whoami({}); return "ran"; } catch (e) { return { code: e.code, retryable: e.retryable }; } }`);
    expect(fromProgram).toEqual({ code: "unavailable", retryable: true });

    server = await serve(server.port);
    expect(await whoamiOnceBack(a)).toEqual({ pid: server.child.pid, session: 1 });
    const back = await a.json("search_tools", { query: "whoami" });
    expect(back.results.map((r: any) => r.address)).toContain("remote.whoami");
    expect(back.unavailable).toBeUndefined();
  });

  it("a server with an open SSE stream is seen to go down without a call: search lists the connector as unavailable until its server is back", async () => {
    let server = await serve(0, true);
    const a = await atriumFor(server.port);
    expect(await whoami(a)).toEqual({ pid: server.child.pid, session: 1 });

    await kill(server.child);
    // The SDK reconnects the broken stream; that request is refused, and that is the loss.
    await waitFor(async () => (await a.json("search_tools", { query: "whoami" })).unavailable?.some((u: any) => u.connector === "remote" && u.state === "restarting"), "remote listed as unavailable, with no call made");
    expect((await a.json("search_tools", { query: "whoami" })).results.map((r: any) => r.address)).not.toContain("remote.whoami");

    server = await serve(server.port, true);
    expect(await whoamiOnceBack(a)).toEqual({ pid: server.child.pid, session: 1 });
    expect((await a.json("search_tools", { query: "whoami" })).unavailable).toBeUndefined();
  });

  it("a 400 refusing the session (as the SDK's example servers answer an unknown one) is taken for a lost session the same way", async () => {
    let server = await serve(0, false, 400);
    const a = await atriumFor(server.port);
    expect(await whoami(a)).toEqual({ pid: server.child.pid, session: 1 });

    await kill(server.child);
    server = await serve(server.port, false, 400);
    const lost = await whoami(a);
    expect("error" in lost && lost.error).toMatchObject({ code: "unavailable", retryable: true });
    expect("error" in lost && lost.error.message).toContain("HTTP 400");
    expect(await whoami(a)).toEqual({ pid: server.child.pid, session: 1 });
  });

  it("the real server-everything over Streamable HTTP, killed and started again on the same port, is reached again; every call meanwhile is unavailable and retryable", async () => {
    /** server-everything's HTTP mode on `port` (0: any); resolves with the port once it listens. */
    const everything = async (port: number) => {
      const child = spawn(process.execPath, [npmBin("mcp-server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
      servers.push(child);
      await new Promise<void>((resolve) => {
        let out = "";
        const seen = (c: Buffer) => { out += c.toString(); if (out.includes("listening")) resolve(); };
        child.stdout!.on("data", seen);
        child.stderr!.on("data", seen);
      });
      return child;
    };
    const port = await new Promise<number>((resolve) => { const s = createServer().listen(0, "127.0.0.1", () => { const p = (s.address() as AddressInfo).port; s.close(() => resolve(p)); }); });
    let child = await everything(port);
    const a = await atriumFor(port);
    const echo = async () => a.call("call_tool", { address: "remote.echo", args: { message: "again" } });
    expect(JSON.stringify((await echo()).content)).toContain("again");

    await kill(child);
    child = await everything(port);
    const seen: any[] = [];
    await waitFor(async () => {
      const r = await echo();
      if (!r.isError) return JSON.stringify(r.content).includes("again");
      seen.push(err(r));
      return false;
    }, "a call to the restarted server-everything that answers");
    for (const e of seen) expect(e).toMatchObject({ code: "unavailable", retryable: true });
  }, 60_000);
});
