// The SSE events of one 2025-11-25 HTTP session, kept so a client that lost its stream and
// reconnects with Last-Event-ID gets what it missed (the SDK transport's EventStore seam). Bounded
// by SESSION_EVENTS_KEPT and SESSION_EVENT_BYTES_KEPT, oldest dropped first: a client away longer
// than that misses events, as it would behind any bounded buffer. Event ids are opaque counters.
import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";
import { SESSION_EVENTS_KEPT, SESSION_EVENT_BYTES_KEPT } from "../decisions/generated/spec.js";

interface Kept { id: string; stream: string; message: JSONRPCMessage; bytes: number }

export class SessionEvents implements EventStore {
  private readonly events: Kept[] = [];
  private bytes = 0;
  private next = 0;

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const id = String(++this.next);
    const bytes = Buffer.byteLength(JSON.stringify(message));
    this.events.push({ id, stream, message, bytes });
    this.bytes += bytes;
    while (this.events.length > SESSION_EVENTS_KEPT || (this.bytes > SESSION_EVENT_BYTES_KEPT && this.events.length > 0)) this.bytes -= this.events.shift()!.bytes;
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.stream;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at === -1) throw new Error("that event is no longer kept (or was never sent)");
    const stream = this.events[at].stream;
    for (const e of this.events.slice(at + 1)) if (e.stream === stream) await send(e.id, e.message);
    return stream;
  }
}
