// A real redis-server for the rig: its own temporary directory, a free loopback port, nothing
// persisted (`--save ""`, `--appendonly no`: a restart comes back empty, as a store that lost its
// memory would), an optional password. Ready when it has said so and answered PING over a raw
// RESP socket. pause()/resume() (SIGSTOP/SIGCONT), kill() and restart() on the same port are the
// faults a shared store must survive. Every process ends with the test (children.ts).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnChild, type Child } from "./children.js";
import { freePort } from "./ports.js";

export interface RedisServer {
  readonly port: number;
  /** redis://[:password@]127.0.0.1:port, what atrium.store.url takes. */
  readonly url: string;
  readonly password?: string;
  readonly dir: string;
  /** The pid of the process running now (a restart changes it). */
  readonly pid: number;
  /** Its log so far (this process's). */
  output(): string;
  /** Whether it answers PING with +PONG now (AUTH first when it has a password); false on any error. A paused server never answers: pass a signal to give up. */
  ping(signal?: AbortSignal): Promise<boolean>;
  /** SIGSTOP: connections stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Ends it with `signal` (SIGKILL by default: a crash); resolves once it has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops it (SIGTERM) and starts a new one on the same port and directory: empty, since nothing persists. */
  restart(): Promise<void>;
  /** SIGTERM, then SIGKILL; removes its directory. */
  stop(): Promise<void>;
}

/** Whether redis-server is on PATH (the rig's tests and the bench skip themselves without it). */
export function redisAvailable(): boolean {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const encode = (...parts: string[]) => `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join("")}`;

/** PING over a raw socket: true when the last reply is +PONG. */
export function ping(port: number, password?: string, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const expected = password === undefined ? 1 : 2;
    let text = "";
    const done = (ok: boolean) => {
      socket.destroy();
      signal?.removeEventListener("abort", abort);
      resolve(ok);
    };
    const abort = () => done(false);
    signal?.addEventListener("abort", abort);
    if (signal?.aborted) return done(false);
    socket.once("connect", () => socket.write((password === undefined ? "" : encode("AUTH", password)) + encode("PING")));
    socket.on("data", (c: Buffer) => {
      text += c.toString();
      const replies = text.split("\r\n").filter((l) => l !== "");
      if (replies.length >= expected) done(replies[expected - 1] === "+PONG");
    });
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}

const PORT_ATTEMPTS = 5;

export async function startRedis(opts: { password?: string } = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-rig-redis-"));
  const launch = async (port: number): Promise<Child> => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", "", "--daemonize", "no"];
    if (opts.password !== undefined) args.push("--requirepass", opts.password);
    const child = spawnChild("redis-server", args, { cwd: dir, name: `redis-server on ${port}` });
    await child.waitForOutput(/Ready to accept connections/);
    if (!(await ping(port, opts.password))) throw new Error(`redis-server on ${port} said it was ready but did not answer PING:\n${child.output()}`);
    return child;
  };
  let port = 0;
  let child: Child | undefined;
  for (let attempt = 1; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(port);
    } catch (e) {
      // Another process took the port between freePort() and the bind: try another one.
      if (attempt >= PORT_ATTEMPTS || !/Address already in use/.test((e as Error).message)) throw e;
    }
  }
  let current: Child = child;
  const auth = opts.password === undefined ? "" : `:${encodeURIComponent(opts.password)}@`;
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    password: opts.password,
    dir,
    get pid() {
      return current.pid;
    },
    output: () => current.output(),
    ping: (signal) => ping(port, opts.password, signal),
    pause: () => void current.proc.kill("SIGSTOP"),
    resume: () => void current.proc.kill("SIGCONT"),
    async kill(signal = "SIGKILL") {
      current.proc.kill(signal);
      if (signal !== "SIGKILL") current.proc.kill("SIGCONT"); // a paused one acts on other signals once it runs
      await current.exited;
    },
    async restart() {
      await current.stop();
      current = await launch(port);
    },
    async stop() {
      await current.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
