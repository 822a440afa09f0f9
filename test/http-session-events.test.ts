// The SSE events a 2025-11-25 HTTP session keeps for a client that reconnects with Last-Event-ID
// (glue/http/session-events.ts): replay is of the same stream only, after the named event, and
// what is kept stays within SESSION_EVENTS_KEPT (oldest dropped first).
import { describe, expect, it } from "vitest";
import { SessionEvents } from "../glue/http/session-events.js";
import { SESSION_EVENTS_KEPT } from "../glue/decisions/generated/spec.js";

const note = (n: number) => ({ jsonrpc: "2.0" as const, method: "notifications/progress", params: { progressToken: 1, progress: n } });

describe("session events for resumption", () => {
  it("replays the events of the same stream after the last one the client saw, in order", async () => {
    const store = new SessionEvents();
    const a1 = await store.storeEvent("a", note(1));
    await store.storeEvent("b", note(2));
    await store.storeEvent("a", note(3));
    await store.storeEvent("a", note(4));
    const sent: unknown[] = [];
    expect(await store.replayEventsAfter(a1, { send: async (_id, m) => void sent.push(m) })).toBe("a");
    expect(sent).toEqual([note(3), note(4)]);
    expect(await store.getStreamIdForEventId(a1)).toBe("a");
  });
  it("keeps at most SESSION_EVENTS_KEPT events: the oldest is gone, replay from it is refused", async () => {
    const store = new SessionEvents();
    const first = await store.storeEvent("a", note(0));
    for (let i = 1; i <= SESSION_EVENTS_KEPT; i++) await store.storeEvent("a", note(i));
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    await expect(store.replayEventsAfter(first, { send: async () => {} })).rejects.toThrow(/no longer kept/);
  });
});
