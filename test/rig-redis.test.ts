// The rig's redis-server (test/harness/redis-server.ts) does what the store's fault tests will lean
// on: it answers PING only once ready, asks for its password, stops answering while paused and
// answers again on resume, comes back empty on the same port after a restart, and leaves no
// process behind.
import { afterAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createConnection } from "node:net";
import { waitFor } from "./harness/until.js";
import { ping, redisAvailable, startRedis, type RedisServer } from "./harness/redis-server.js";

const started: RedisServer[] = [];
afterAll(async () => {
  await Promise.all(started.map((r) => r.stop()));
});
const start = async (opts: { password?: string } = {}) => {
  const r = await startRedis(opts);
  started.push(r);
  return r;
};

/** One RESP command's raw reply (the rig's own check that state is really gone after a restart). */
function command(port: number, password: string | undefined, ...parts: string[]): Promise<string> {
  const enc = (p: string[]) => `*${p.length}\r\n${p.map((x) => `$${Buffer.byteLength(x)}\r\n${x}\r\n`).join("")}`;
  return new Promise((resolve, reject) => {
    const s = createConnection({ host: "127.0.0.1", port });
    let text = "";
    const want = password === undefined ? 1 : 2;
    s.once("connect", () => s.write((password === undefined ? "" : enc(["AUTH", password])) + enc(parts)));
    s.on("data", (c: Buffer) => {
      text += c.toString();
      const lines = text.split("\r\n").filter(Boolean);
      if (lines.length >= want + (lines[want - 1]?.startsWith("$") && lines[want - 1] !== "$-1" ? 1 : 0)) {
        s.destroy();
        resolve(lines.slice(want - 1).join("\n"));
      }
    });
    s.once("error", reject);
  });
}

/** The state letter in /proc/<pid>/stat (R, S, T for stopped…). */
const procState = (pid: number) => /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1];

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!redisAvailable())("rig: redis-server", () => {
  it("answers PING once started, on its own port, and needs its password", async () => {
    const r = await start({ password: "rig-secret" });
    expect(r.url).toBe(`redis://:rig-secret@127.0.0.1:${r.port}`);
    expect(await r.ping()).toBe(true);
    expect(await ping(r.port)).toBe(false); // no AUTH: -NOAUTH, not +PONG
    expect(await ping(r.port, "wrong")).toBe(false);
  });

  it("stops answering while paused and answers again on resume", async () => {
    const r = await start();
    r.pause();
    await waitFor(() => procState(r.pid) === "T", "redis-server stopped (state T)");
    // A paused server accepts (the kernel does) but answers nothing; resume, and the same PING is answered.
    let answered = false;
    const pending = r.ping().then((ok) => ((answered = true), ok));
    expect(procState(r.pid)).toBe("T");
    expect(answered).toBe(false);
    r.resume();
    expect(await pending).toBe(true);
    expect(procState(r.pid)).not.toBe("T");
  });

  it("restarts on the same port, empty (nothing persists), and a killed one is gone", async () => {
    const r = await start();
    expect(await command(r.port, undefined, "SET", "k", "v")).toBe("+OK");
    expect(await command(r.port, undefined, "GET", "k")).toBe("$1\nv");
    const before = r.pid;
    await r.restart();
    expect(r.pid).not.toBe(before);
    expect(pidAlive(before)).toBe(false);
    expect(await r.ping()).toBe(true);
    expect(await command(r.port, undefined, "GET", "k")).toBe("$-1");
    const pid = r.pid;
    await r.kill();
    expect(pidAlive(pid)).toBe(false);
    expect(await r.ping()).toBe(false);
  });
});
