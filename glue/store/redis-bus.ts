// The bus between replicas on Redis pub/sub: publishes on the main connection, hears on a second
// one (Redis gives a subscribed connection to nothing else), which node-redis subscribes again
// after a reconnect. Channels live under the key prefix. A message longer than
// STORE_MESSAGE_BYTES_MAX is neither sent nor heard (a replica's answer is bounded before it
// crosses to another).
import { randomUUID } from "node:crypto";
import { STORE_MESSAGE_BYTES_MAX } from "../decisions/generated/spec.js";
import type { Bus } from "../support/bus.js";
import type { RedisConnection } from "./redis-connection.js";
import { StoreUnavailable } from "./state-store.js";


export function redisBus(redis: RedisConnection, prefix: string): Bus & { close(): Promise<void> } {
  // Subscriptions wait for the connection (an offline queue here), and node-redis makes them again after a reconnect.
  const subscriber = redis.client.duplicate({ disableOfflineQueue: false });
  subscriber.on("error", () => {}); // the main connection says what failed
  subscriber.connect().catch(() => {});
  return {
    replica: randomUUID(),
    async publish(channel, message) {
      if (Buffer.byteLength(message) > STORE_MESSAGE_BYTES_MAX) throw new StoreUnavailable(`a message of more than STORE_MESSAGE_BYTES_MAX (${STORE_MESSAGE_BYTES_MAX} bytes) between replicas`);
      return redis.op("publish", (c) => c.publish(prefix + channel, message));
    },
    async subscribe(channel, listener) {
      const heard = (message: string) => {
        if (Buffer.byteLength(message) <= STORE_MESSAGE_BYTES_MAX) listener(message);
      };
      await subscriber.subscribe(prefix + channel, heard);
      return async () => {
        await subscriber.unsubscribe(prefix + channel, heard).catch(() => {});
      };
    },
    async close() {
      subscriber.destroy();
    },
  };
}
