// How `atrium serve --http` starts and stops: a non-loopback listener without atrium.http.auth is
// refused at start naming the key; SIGTERM lets a call in flight finish while new requests get
// 503, then atrium exits 0 and no process it started remains.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atriumBin, fixture, nodeServer, programValue } from "./harness/atrium-client.js";
import { connectHttp, startHttpAtrium } from "./harness/atrium-http.js";
import { waitFor } from "./harness/until.js";

describe("serve --http: start", () => {
  it("refuses to listen on a non-loopback address without atrium.http.auth, naming the key", () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-listen-"));
    try {
      writeFileSync(join(dir, "atrium.json"), JSON.stringify({ mcpServers: {} }));
      const r = spawnSync(process.execPath, [atriumBin, "serve", "--http", "--listen", "0.0.0.0:0", "--config", join(dir, "atrium.json")], { encoding: "utf8", timeout: 30_000, env: { ...process.env, ATRIUM_STATE_DIR: join(dir, "state") } });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("without atrium.http.auth");
      expect(r.stderr).toContain("0.0.0.0:0");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("refuses a malformed --listen as a usage error", () => {
    const r = spawnSync(process.execPath, [atriumBin, "serve", "--http", "--listen", "8787"], { encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--listen must be HOST:PORT");
  });
  it("takes --listen only with --http", () => {
    const r = spawnSync(process.execPath, [atriumBin, "serve", "--listen", "127.0.0.1:0"], { encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--listen applies only with --http");
  });
});

describe("serve --http: SIGTERM drains", () => {
  it("finishes the call in flight, answers new requests 503, exits 0 and leaves no process behind", async () => {
    const mark = mkdtempSync(join(tmpdir(), "atrium-drain-"));
    const gate = join(mark, "open");
    const atrium = await startHttpAtrium({ config: { mcpServers: { gate: nodeServer(fixture("gate-server"), { args: [fixture("gate-server"), mark] }) } } });
    try {
      const c = await connectHttp(atrium.url, { revision: "2026-07-28" });
      await waitFor(async () => programValue(await c.call("execute_code", { code: "return (await atrium.search('whoami')).total" })) > 0, "the gate connector's tools");
      const inFlight = c.call("execute_code", { code: `return (await gate.wait_for_file({ path: ${JSON.stringify(gate)} })).waited` });
      await waitFor(() => existsSync(`${gate}.waiting`), "the call to reach the connector");
      atrium.proc.kill("SIGTERM");
      await waitFor(() => atrium.stderr().includes("atrium: stopping (SIGTERM)"), "atrium to start stopping");
      const late = await fetch(`${atrium.base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
      expect(late.status).toBe(503);
      writeFileSync(gate, "");
      expect(programValue(await inFlight)).toBe(gate);
      expect(await atrium.stop()).toBe(0);
      expect(processesNaming(mark)).toEqual([]);
    } finally {
      await atrium.stop();
      rmSync(mark, { recursive: true, force: true });
    }
  }, 90_000);
});

/** Live processes whose command line names `path` (read from /proc). */
function processesNaming(path: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let cmd: string;
    try { cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "); } catch { continue; }
    if (cmd.includes(path)) found.push(`${pid}: ${cmd}`);
  }
  return found;
}
