// One connection to Redis or Valkey (node-redis, the client Redis maintains: typed commands,
// scripts by SHA, and a reconnect strategy of our own). Every operation runs under STORE_OP_MS:
// a store that does not answer makes that request `unavailable` (retryable), never a hang; while
// it is gone, commands fail at once (no offline queue) and the client reconnects by itself with
// backoff up to STORE_CONNECT_BACKOFF_MAX_MS. The URL's password is never logged.
import { createClient } from "redis";
import { CONNECTOR_BACKOFF_FACTOR, STORE_CONNECT_BACKOFF_FIRST_MS, STORE_CONNECT_BACKOFF_MAX_MS, STORE_OP_MS } from "../decisions/generated/spec.js";
import { StoreUnavailable } from "./state-store.js";

const newClient = (url: string) => createClient({
  url,
  disableOfflineQueue: true,
  socket: {
    connectTimeout: STORE_OP_MS,
    reconnectStrategy: (retries: number) => Math.min(STORE_CONNECT_BACKOFF_MAX_MS, STORE_CONNECT_BACKOFF_FIRST_MS * CONNECTOR_BACKOFF_FACTOR ** retries),
  },
});
type RedisClient = ReturnType<typeof newClient>;

export interface RedisConnection {
  readonly client: RedisClient;
  /** Runs one operation under STORE_OP_MS; any failure of the store is StoreUnavailable. */
  op<T>(what: string, run: (client: RedisClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Where the store is, for messages: scheme, host and port only. */
function storeWhere(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/** Where the connection says what happened: lines for the operator, and each operation that failed (metrics). */
export interface StoreHooks { log: (line: string) => void; failed?: (op: string) => void }

export function connectRedis(url: string, { log, failed }: StoreHooks): RedisConnection {
  let lastLogged = "";
  const client = newClient(url);
  // Without a listener node-redis would throw the error at the process; said once per kind.
  client.on("error", (e: Error) => {
    const line = `atrium: the shared store at ${storeWhere(url)} failed: ${e.message}`;
    if (line !== lastLogged) log(line);
    lastLogged = line;
  });
  client.on("ready", () => {
    if (lastLogged !== "") log(`atrium: the shared store at ${storeWhere(url)} answers again`);
    lastLogged = "";
  });
  // The first connection is made in the background: /readyz says 503 until it is up.
  client.connect().catch(() => {});
  return {
    client,
    async op(what, run) {
      if (!client.isReady) {
        failed?.(what);
        throw new StoreUnavailable(`${what}: not connected`);
      }
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreUnavailable(`${what}: no answer within STORE_OP_MS, ${STORE_OP_MS} ms`)), STORE_OP_MS);
      });
      try {
        return await Promise.race([run(client), deadline]);
      } catch (e) {
        failed?.(what);
        if (e instanceof StoreUnavailable) throw e;
        throw new StoreUnavailable(`${what}: ${(e as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      client.destroy();
    },
  };
}
