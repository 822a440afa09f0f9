// Messages between replicas (team mode with a shared store): a channel per replica or per session.
// The shape only; the shared store implements it (store/redis-bus.ts). One process has none.

export interface Bus {
  /** Sends `message` on `channel`; how many replicas were listening (0: nobody holds that work). */
  publish(channel: string, message: string): Promise<number>;
  /** Hears `channel` until the returned stop is called. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** This replica's own id (random per process), which names its channel. */
  readonly replica: string;
}
