// A real redis-server (Debian's, installed by .ci/run) for the store's tests: its own temporary
// folder, a free loopback port, no persistence; ready when it answers PING. pause() and resume()
// stop and continue the process (a store that does not answer), stop() ends it.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "./until.js";

export interface TestRedis {
  url: string;
  port: number;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket: true on +PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    let got = "";
    sock.once("error", () => resolve(false));
    sock.on("data", (c) => {
      got += c.toString();
      if (got.includes("\r\n")) {
        sock.destroy();
        resolve(got.startsWith("+PONG"));
      }
    });
    sock.once("connect", () => sock.write("PING\r\n"));
  });
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-redis-"));
  const port = await freePort();
  const proc = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const ended = () => proc.exitCode !== null || proc.signalCode !== null;
  process.once("exit", () => { if (!ended()) proc.kill("SIGKILL"); });
  proc.once("error", () => {});
  await waitFor(async () => {
    if (ended()) throw new Error("redis-server exited before answering (is Debian's redis-server installed? .ci/run installs it)");
    return pong(port);
  }, "redis-server answering PING");
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => void proc.kill("SIGSTOP"),
    resume: () => void proc.kill("SIGCONT"),
    async stop() {
      if (!ended()) {
        proc.kill("SIGCONT");
        proc.kill("SIGTERM");
      }
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
