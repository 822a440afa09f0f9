// The answer atrium puts in place of a connector's message it dropped unread (over
// downstream_line_bytes or downstream_depth), on every transport: the stdio line reader
// (stdio-client.ts) and the bounded HTTP body and SSE event reader (bounded-answer-fetch.ts).
// Its code and data make Connector.callError answer result_too_large, naming the bound.
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import type { Line, LineLimits } from "../support/line-reader.js";
import { DROPPED_ANSWER_CODE } from "../support/wire.js";

/** Why `line` was dropped, naming the bound it passed; `cut`: reading stopped at the byte bound. */
export function droppedWhy(line: Pick<Line, "bytes" | "depth">, limits: LineLimits, cut = false): string {
  if (cut) return `went past downstream_line_bytes (${limits.maxBytes} bytes) and was cut off`;
  return line.bytes > limits.maxBytes ? `was ${line.bytes} bytes, over downstream_line_bytes (${limits.maxBytes})` : `nested ${line.depth} deep, over downstream_depth (${limits.maxDepth})`;
}

/** The error answer to request `id` whose own answer was dropped for `why`. */
export function droppedAnswer(id: string | number, why: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: DROPPED_ANSWER_CODE, message: `the server's answer ${why}; it was dropped unread`, data: { atrium: "result_too_large" } } };
}
