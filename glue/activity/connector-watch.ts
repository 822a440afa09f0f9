// Turns connector state changes into activity events: one listener on the registry's change
// signal compares each connector's state with the one it saw last. Reads connectors through a
// plain shape (id, state, attempts, restarts) so the activity log never imports the connector layer.
import type { ActivitySink, ConnectorChange } from "./events.js";

interface Watched { readonly id: string; readonly state: string; readonly attempts: number; readonly restarts: number }

/** What a change from `from` to `to` is, if it is one the log records. */
function changeOf(from: string, to: string): ConnectorChange | undefined {
  if (to === "ready") return from === "restarting" ? "restart" : "start";
  if (to === "restarting") return from === "ready" ? "crash" : undefined;
  if (to === "needs_auth" || to === "failed" || to === "stopped") return to;
  return undefined;
}

/** Subscribes to `onChange` and records every transition of the connectors `connectors()` lists at each change (a live reload may add some). */
export function watchConnectors(connectors: () => readonly Watched[], onChange: (listener: () => void) => void, activity: ActivitySink): void {
  // Weak: a connector a reload retired is forgotten with it.
  const seen = new WeakMap<Watched, string>(connectors().map((c) => [c, c.state]));
  onChange(() => {
    for (const c of connectors()) {
      // A connector first seen now (a live reload added it) began as every connector does: starting.
      const from = seen.get(c) ?? "starting";
      if (from === c.state) continue;
      seen.set(c, c.state);
      const change = changeOf(from, c.state);
      if (change) activity.connector(change, c.id, c.state, change === "crash" || change === "restart" ? c.restarts : c.attempts);
    }
  });
}
