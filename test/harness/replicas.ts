// N real `atrium serve --http` replicas from one config file (the embedded demo connector unless
// told otherwise), each on its own loopback port and, unless shared state is asked for, its own
// ATRIUM_STATE_DIR. Ready when each answers GET /readyz 200 and (by default) its connectors have
// made their first start attempt. kill(i, signal) is the fault; restart(i) brings replica i back
// on the same port. Every process ends with the test (children.ts).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atriumBin, connectorsSettled, demoServer, nodeServer } from "./atrium-client.js";
import { connectHttp } from "./atrium-http.js";
import { spawnChild, type Child } from "./children.js";
import { waitFor } from "./until.js";

/**
 * Headers for a rig client that talks to one replica directly: a fresh connection per request.
 * A replica closes an idle keep-alive connection after node's 5 s; a loaded test process can
 * reuse one just as it closes (undici: "other side closed"), a race of the test's own making.
 */
export const FRESH_CONNECTIONS = { connection: "close" };

/** The demo connector as `desk`, search lexical only (no model load per replica). */
export const demoConfig = { mcpServers: { desk: nodeServer(demoServer) }, atrium: { search: { semantic: false } } };

export interface ReplicaOptions {
  n: number;
  /** The one config every replica reads (default demoConfig). */
  config?: unknown;
  /** true: every replica uses one ATRIUM_STATE_DIR; false (default): each its own. */
  sharedState?: boolean;
  /** More environment for every replica (atrium.store's secrets, …). */
  env?: Record<string, string>;
  /** Wait until each replica's connectors have made their first start attempt (default true). */
  waitForConnectors?: boolean;
  /** Headers of the client that waits for the connectors (a bearer token when the config has atrium.http.auth). */
  clientHeaders?: Record<string, string>;
}

interface Replica {
  readonly index: number;
  readonly port: number;
  /** http://127.0.0.1:port/mcp */
  readonly url: string;
  readonly base: string;
  readonly stateDir: string;
  /** The pid of the process running now (restart changes it). */
  readonly pid: number;
  alive(): boolean;
  /** Its stderr and stdout so far (this process's). */
  output(): string;
}

export interface Replicas {
  readonly replicas: Replica[];
  readonly dir: string;
  readonly configFile: string;
  /** Sends `signal` to replica i (default SIGTERM: drain and exit); resolves with how it ended. */
  kill(i: number, signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Starts replica i again on its port (after kill), and waits until it is ready. */
  restart(i: number): Promise<void>;
  /** Stops every replica still running (SIGTERM, then SIGKILL) and removes the rig's directory. */
  stop(): Promise<void>;
}

/** Whether GET base/readyz answers 200 now. */
async function readyz(base: string): Promise<boolean> {
  try {
    const r = await fetch(`${base}/readyz`, { headers: FRESH_CONNECTIONS });
    await r.arrayBuffer();
    return r.status === 200;
  } catch {
    return false;
  }
}

async function launch(listen: string, configFile: string, env: NodeJS.ProcessEnv, waitForConnectors: boolean | Record<string, string>, name: string): Promise<{ child: Child; url: string }> {
  const child = spawnChild(process.execPath, [atriumBin, "serve", "--http", "--listen", listen, "--config", configFile], { env, name });
  const url = (await child.waitForOutput(/serving MCP at (http:\/\/\S+\/mcp)/))[1];
  const base = new URL(url).origin;
  await waitFor(async () => {
    if (!child.alive()) throw new Error(`${name} exited before /readyz answered 200:\n${child.output()}`);
    return readyz(base);
  }, `${name}'s /readyz answering 200`);
  if (waitForConnectors) {
    const c = await connectHttp(url, { revision: "2026-07-28", headers: { ...FRESH_CONNECTIONS, ...(waitForConnectors === true ? {} : waitForConnectors) } });
    try {
      await connectorsSettled((tool, args) => c.call(tool, args));
    } finally {
      await c.close();
    }
  }
  return { child, url };
}

export async function startReplicas(opts: ReplicaOptions): Promise<Replicas> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-rig-replicas-"));
  const configFile = join(dir, "atrium.json");
  writeFileSync(configFile, JSON.stringify(opts.config ?? demoConfig));
  const stateDirOf = (i: number) => join(dir, opts.sharedState ? "state" : `state-${i}`);
  const envOf = (i: number) => ({ ...process.env, ATRIUM_STATE_DIR: stateDirOf(i), ...opts.env });
  const wait = opts.waitForConnectors === false ? false : (opts.clientHeaders ?? true);
  const children: Child[] = [];
  const urls: string[] = [];
  try {
    const started = await Promise.all(
      Array.from({ length: opts.n }, (_, i) => {
        mkdirSync(stateDirOf(i), { recursive: true });
        return launch("127.0.0.1:0", configFile, envOf(i), wait, `replica ${i}`).then((s) => {
          children[i] = s.child;
          return s;
        });
      }),
    );
    started.forEach((s, i) => (urls[i] = s.url));
  } catch (e) {
    await Promise.all(children.filter(Boolean).map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const replicas: Replica[] = urls.map((url, i) => ({
    index: i,
    port: Number(new URL(url).port),
    url,
    base: new URL(url).origin,
    stateDir: stateDirOf(i),
    get pid() {
      return children[i].pid;
    },
    alive: () => children[i].alive(),
    output: () => children[i].output(),
  }));
  return {
    replicas,
    dir,
    configFile,
    async kill(i, signal = "SIGTERM") {
      children[i].proc.kill(signal);
      return children[i].exited;
    },
    async restart(i) {
      if (children[i].alive()) throw new Error(`replica ${i} is still running (pid ${children[i].pid}): kill it first`);
      children[i] = (await launch(`127.0.0.1:${replicas[i].port}`, configFile, envOf(i), wait, `replica ${i}`)).child;
    },
    async stop() {
      await Promise.all(children.map((c) => c.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
