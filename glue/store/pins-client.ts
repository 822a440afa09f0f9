// The shared pins for a command that runs once (`atrium pins`, `atrium doctor` with atrium.store):
// connected and read within STORE_OP_MS, and closed after, so an operator's accept or reject
// reaches every replica. A store that does not answer leaves the pins unread (every tool without an
// accepted pin then judged quarantined) and says why in `problem`.
import { STORE_OP_MS } from "../decisions/generated/spec.js";
import { connectRedis } from "./redis-connection.js";
import { redisBus } from "./redis-bus.js";
import { SharedPins } from "./shared-pins.js";
import { StoreUnavailable } from "./state-store.js";

export interface OpenedPins { pins: SharedPins; problem?: string; close(): Promise<void> }

export async function openSharedPins(config: { url: string; keyPrefix: string }): Promise<OpenedPins> {
  const redis = connectRedis(config.url, { log: () => {} });
  const bus = redisBus(redis, config.keyPrefix);
  const pins = new SharedPins(redis, bus, `${config.keyPrefix}pins`, (line) => void process.stderr.write(`${line}\n`));
  const close = async () => {
    await bus.close();
    await redis.close();
  };
  try {
    if (!redis.client.isReady) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => redis.client.once("ready", () => resolve())),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreUnavailable(`not reached within STORE_OP_MS, ${STORE_OP_MS} ms`)), STORE_OP_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    }
    await pins.start();
    return { pins, close };
  } catch (e) {
    return { pins, close, problem: (e as Error).message };
  }
}
