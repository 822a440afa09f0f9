// Loopback ports for the rig's children: one the system reports free now (a child that must be
// told its port up front: redis-server, haproxy; the caller retries when it lost the race), and
// a wait until a port accepts a connection, given up only when the child that should open it exits.
import { createConnection, createServer } from "node:net";
import { waitFor } from "./until.js";

/** A port nothing listens on at this moment (the system's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether a TCP connection to 127.0.0.1:port is accepted now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ host: "127.0.0.1", port });
    c.once("connect", () => {
      c.destroy();
      resolve(true);
    });
    c.once("error", () => resolve(false));
  });
}

/** Resolves once 127.0.0.1:port accepts; rejects when `gone` settles first (the child that should listen exited). */
export async function waitForPort(port: number, gone: Promise<unknown>, what: string): Promise<void> {
  let over = false;
  void gone.then(() => (over = true));
  await waitFor(async () => {
    if (over) throw new Error(`${what} exited before 127.0.0.1:${port} accepted a connection`);
    return accepts(port);
  }, `${what} accepting on 127.0.0.1:${port}`);
}
