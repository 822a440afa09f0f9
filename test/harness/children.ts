// The child processes a rig starts (redis-server, haproxy, atrium replicas): their output kept,
// a wait for a line of it (an event, never a sleep), stop = SIGTERM then SIGKILL. No rig child
// outlives its test run: a process 'exit' guard SIGKILLs any still running when the test process
// exits, and since vitest may end a test process by a signal (no 'exit' event), each child is
// also started under `setpriv --pdeathsig` (util-linux) where it exists: the kernel signals it
// when the process that started it dies, however it dies.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";

export interface Child {
  readonly proc: ChildProcess;
  readonly pid: number;
  /** What it wrote to stdout and stderr so far, interleaved as it arrived. */
  output(): string;
  /** Resolves when it has exited (code, or the signal that ended it). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** The first match of `re` in its output from offset `from` (default the start), once it appears; rejects if it exits first. */
  waitForOutput(re: RegExp, from?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after `graceMs` if it is still running; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();
let guarded = false;

function guard(): void {
  if (guarded) return;
  guarded = true;
  process.on("exit", () => {
    for (const p of running) p.kill("SIGKILL");
  });
}

const STOP_GRACE_MS = 5_000;

let setpriv: boolean | undefined;
/** Whether setpriv (util-linux) can set a parent-death signal here. */
function hasSetpriv(): boolean {
  if (setpriv === undefined) {
    try {
      execFileSync("setpriv", ["--pdeathsig", "KILL", "true"], { stdio: "ignore" });
      setpriv = true;
    } catch {
      setpriv = false;
    }
  }
  return setpriv;
}

/** `deathSignal`: what the child gets when this process dies (default KILL; an atrium may take TERM and stop its connectors). setpriv execs the command: the pid is the command's. */
export function spawnChild(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; name: string; deathSignal?: "KILL" | "TERM" }): Child {
  guard();
  const [file, argv] = hasSetpriv() ? ["setpriv", ["--pdeathsig", opts.deathSignal ?? "KILL", command, ...args]] : [command, args];
  const proc = spawn(file, argv, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
  if (proc.pid === undefined) throw new Error(`${opts.name}: could not start ${command}`);
  running.add(proc);
  let out = "";
  const listeners = new Set<() => void>();
  const take = (c: Buffer) => {
    out += c.toString();
    for (const l of listeners) l();
  };
  proc.stdout!.on("data", take);
  proc.stderr!.on("data", take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once("exit", (code, signal) => {
      running.delete(proc);
      resolve({ code, signal });
    }),
  );
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  return {
    proc,
    pid: proc.pid,
    output: () => out,
    exited,
    alive,
    waitForOutput(re, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out.slice(from));
          if (!m) return false;
          listeners.delete(check);
          resolve(m);
          return true;
        };
        if (check()) return;
        listeners.add(check);
        void exited.then(({ code, signal }) => {
          if (check()) return;
          listeners.delete(check);
          reject(new Error(`${opts.name} exited (${signal ?? code}) before printing ${re}:\n${out.slice(-4000)}`));
        });
      });
    },
    async stop(graceMs = STOP_GRACE_MS) {
      if (!alive()) return void (await exited);
      proc.kill("SIGTERM");
      proc.kill("SIGCONT"); // a paused (SIGSTOP) child handles its SIGTERM only once it runs again
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
