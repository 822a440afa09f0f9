// A real haproxy in front of N atrium replicas: mode http, `balance roundrobin`, no stickiness
// (each request is balanced on its own, keep-alive connections included: no prefer-last-server),
// health checks on GET /readyz, timeouts long enough for SSE streams, a connection refused by a
// dead replica redispatched once to another. Its log goes to stdout: one `rig-request` line per
// request naming the replica that served it and the request's `x-rig-request` header (the rig's
// way to tell replicas apart without a product header), and haproxy's own "Server … is DOWN/UP"
// lines. The admin socket says what haproxy thinks of each replica.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnChild, type Child } from "./children.js";
import { freePort, waitForPort } from "./ports.js";
import { waitFor } from "./until.js";

/** The header a rig client sets on each request so haproxy's log says which replica served it. */
export const RIG_REQUEST_HEADER = "x-rig-request";
/** Server names in haproxy's config: r0, r1, … in the order the backends were given. */
export const serverName = (i: number) => `r${i}`;

export interface HaproxyOptions {
  /** The replicas' ports on 127.0.0.1. */
  backends: number[];
  /** Health check interval (default 200 ms) and how many checks in a row mark a replica down / up again (default 1 / 2). */
  checkIntervalMs?: number;
  fall?: number;
  rise?: number;
}

export interface ServedLine {
  request: string;
  /** r0, r1, … (or "<NOSRV>" when no replica was chosen). */
  server: string;
  status: number;
}

export interface Haproxy {
  readonly port: number;
  /** http://127.0.0.1:port */
  readonly base: string;
  /** http://127.0.0.1:port/mcp */
  readonly url: string;
  readonly pid: number;
  readonly dir: string;
  /** stdout and stderr so far: the request log and haproxy's own lines. */
  output(): string;
  /** The request log so far, one entry per request answered. */
  served(): ServedLine[];
  /** haproxy's view of each server now, from the admin socket: r0 → "UP", "DOWN", "MAINT", … */
  states(): Promise<Record<string, string>>;
  /** Resolves once haproxy has logged that server `i` changed to `state` (counting lines from now). */
  waitForServer(i: number, state: "UP" | "DOWN"): Promise<void>;
  stop(): Promise<void>;
}

/** Whether haproxy is on PATH. */
export function haproxyAvailable(): boolean {
  try {
    execFileSync("haproxy", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function haproxyConfig(port: number, dir: string, opts: HaproxyOptions): string {
  const inter = opts.checkIntervalMs ?? 200;
  return [
    "global",
    "  log stdout format raw local0 info",
    `  stats socket ${join(dir, "admin.sock")} mode 600 level admin`,
    "  maxconn 8192",
    "defaults",
    "  mode http",
    "  log global",
    "  option dontlognull",
    "  option http-keep-alive",
    // A connection refused by a dead replica is tried again, the last time on another one; a request already sent is never replayed.
    "  option redispatch 1",
    "  retries 2",
    "  timeout connect 5s",
    "  timeout client 1h",
    "  timeout server 1h",
    "  timeout tunnel 1h",
    "  timeout http-request 60s",
    "  timeout http-keep-alive 60s",
    "  timeout check 5s",
    "frontend mcp",
    `  bind 127.0.0.1:${port}`,
    "  maxconn 8192",
    `  capture request header ${RIG_REQUEST_HEADER} len 80`,
    '  log-format "rig-request %[capture.req.hdr(0)] %s %ST"',
    "  default_backend atrium",
    "backend atrium",
    "  balance roundrobin",
    "  option httpchk",
    "  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host 127.0.0.1",
    "  http-check expect status 200",
    `  default-server inter ${inter} fastinter ${inter} downinter ${inter} fall ${opts.fall ?? 1} rise ${opts.rise ?? 2} maxconn 4096`,
    ...opts.backends.map((p, i) => `  server ${serverName(i)} 127.0.0.1:${p} check`),
    "",
  ].join("\n");
}

function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = createConnection({ path: socket });
    let text = "";
    c.once("connect", () => c.write(`${command}\n`));
    c.on("data", (d: Buffer) => (text += d.toString()));
    c.once("end", () => resolve(text));
    c.once("error", reject);
  });
}

const PORT_ATTEMPTS = 5;

export async function startHaproxy(opts: HaproxyOptions): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-rig-haproxy-"));
  const cfg = join(dir, "haproxy.cfg");
  let port = 0;
  let child: Child | undefined;
  for (let attempt = 1; child === undefined; attempt++) {
    port = await freePort();
    writeFileSync(cfg, haproxyConfig(port, dir, opts));
    const c = spawnChild("haproxy", ["-f", cfg, "-db"], { cwd: dir, name: `haproxy on ${port}` });
    try {
      await waitForPort(port, c.exited, "haproxy");
      child = c;
    } catch (e) {
      // Another process took the port between freePort() and the bind: try another one.
      if (attempt >= PORT_ATTEMPTS || !/Address already in use|cannot bind/i.test(c.output())) throw new Error(`${(e as Error).message}:\n${c.output()}`);
    }
  }
  const h: Child = child;
  const socket = join(dir, "admin.sock");
  const states = async () => Object.fromEntries((await serverRows(socket)).map((f) => [f[STAT.name], f[STAT.status].split(" ")[0]]));
  const haproxy: Haproxy = {
    port,
    base: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/mcp`,
    pid: h.pid,
    dir,
    output: () => h.output(),
    served: () =>
      [...h.output().matchAll(/^rig-request (\S*) (\S+) (-?\d+)$/gm)].map((m) => ({ request: m[1] === "-" ? "" : m[1], server: m[2], status: Number(m[3]) })),
    states,
    async waitForServer(i, state) {
      await h.waitForOutput(new RegExp(`Server atrium/${serverName(i)} is ${state}\\b`), h.output().length);
    },
    stop: async () => {
      await h.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Every replica UP by a passed health check (L7OK) before the first request: haproxy starts servers as UP before their first check.
  const checkedUp = async () => {
    const rows = await serverRows(socket);
    return rows.length === opts.backends.length && rows.every((f) => f[STAT.status] === "UP" && f[STAT.check] === "L7OK");
  };
  try {
    await waitFor(async () => {
      if (!h.alive()) throw new Error(`haproxy exited:\n${h.output()}`);
      return checkedUp();
    }, "every replica UP by a passed health check");
  } catch (e) {
    await haproxy.stop();
    throw e;
  }
  return haproxy;
}

/** Columns of `show stat` CSV: the server's name, its status ("UP", "DOWN", "UP 1/2" while going down…), its last check ("L7OK"…). */
const STAT = { name: 1, status: 17, check: 36 } as const;

/** The backend's server rows of `show stat`, split into fields. */
async function serverRows(socket: string): Promise<string[][]> {
  const text = await adminCommand(socket, "show stat");
  return text.split("\n").filter((l) => l.startsWith("atrium,") && !l.startsWith("atrium,BACKEND")).map((l) => l.split(","));
}

