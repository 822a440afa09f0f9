// Judges one stdin line before the SDK sees it: forward a well-formed JSON-RPC message, answer
// a malformed request with exactly one error, or drop what must never be answered. The SDK's
// own stdio transport drops every line its JSONRPCMessageSchema refuses (no answer at all, so
// `params: []`, `params: null` or `_meta: []` left the host waiting forever); this guard gives
// each request that carries an id one answer with the JSON-RPC code for what is wrong with it:
//
//   -32700 parse error      the line is not UTF-8 or not JSON
//   -32600 invalid request  too long (request_line_bytes), too deep (request_depth), a batch, not
//                           an object, a bad id, a wrong `jsonrpc`, a non-string method, params
//                           that are not structured (null, a string…), or an unknown member
//   -32601 method not found a method the server does not serve (its params are not looked at)
//   -32602 invalid params   params the SDK's request schema refuses (an array, a bad `_meta`…);
//                           per-method params are checked by the server itself (glue/mcp/server.ts)
//
// The answer carries the request's id when it is readable: from the parsed message, or, for a
// line that is never parsed (too long, too deep, not UTF-8, not JSON), the top-level id read by
// the line scan, used only when the line also has a top-level "method" (so a truncated response
// to one of our own requests is never mistaken for a request). Otherwise the id is null, as
// JSON-RPC 2.0 prescribes. Never answered: notifications (a string method and no id, even
// malformed ones), responses (result or error without a method: forwarded if well-formed,
// else dropped) and blank lines.
import { isUtf8 } from "node:buffer";
import { z } from "zod";
import {
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  JSONRPCErrorResponseSchema,
} from "@modelcontextprotocol/core";
import { ProtocolErrorCode as ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { ASCII } from "../support/encoding.js";
import { clampEcho } from "../support/errors.js";
import { isJsonObject } from "../support/json-object.js";
import type { Line, LineLimits } from "../support/line-reader.js";

type RequestId = string | number;

export interface ErrorAnswer {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: { code: number; message: string };
}

export type Verdict =
  | { kind: "forward"; message: JSONRPCMessage }
  | { kind: "answer"; answer: ErrorAnswer; log?: string }
  | { kind: "drop"; log?: string };

export interface GuardOptions {
  limits: LineLimits;
  /** Whether the server has a handler for this request method; without it every method is forwarded. */
  serves?: (method: string) => boolean;
  /**
   * Whether the server declares the tasks capability (atrium does not). A receiver that does not
   * MUST process a task-augmented request normally, ignoring the augmentation (MCP 2025-11-25,
   * tasks), so `params.task` is then removed; the SDK would refuse the request with -32603.
   */
  tasks?: boolean;
}

const REQUEST_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);

const isRequestId = (v: unknown): v is RequestId => typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));

function answer(id: RequestId | null, code: number, message: string, log?: string): Verdict {
  return { kind: "answer", answer: { jsonrpc: "2.0", id, error: { code, message } }, ...(log && { log }) };
}

function zodMessage(error: z.core.$ZodError): string {
  return clampEcho(z.prettifyError(error).replace(/\s*\n\s*/g, "; "));
}

/** One line in, one verdict out. Pure apart from reading the options. */
export function judgeLine(line: Line, opts: GuardOptions): Verdict {
  const { limits } = opts;
  if (line.text === undefined) {
    if (line.bytes > limits.maxBytes) {
      const log = `atrium: dropped a stdin line of ${line.bytes} bytes unread (over request_line_bytes, ${limits.maxBytes})`;
      return unparsed(line, ErrorCode.InvalidRequest, `Invalid Request: the line is longer than request_line_bytes (${limits.maxBytes} bytes) and was dropped unread`, log);
    }
    return unparsed(line, ErrorCode.InvalidRequest, `Invalid Request: nested deeper than request_depth (${limits.maxDepth} levels)`);
  }
  let text = line.text;
  if (text.length > 0 && text[text.length - 1] === ASCII.carriageReturn) text = text.subarray(0, -1);
  if (text.every((b) => b === ASCII.space || b === ASCII.tab || b === ASCII.carriageReturn)) return { kind: "drop" };
  if (!isUtf8(text)) return unparsed(line, ErrorCode.ParseError, "Parse error: the line is not valid UTF-8");
  let value: unknown;
  try {
    value = JSON.parse(text.toString("utf8"));
  } catch (e) {
    return unparsed(line, ErrorCode.ParseError, `Parse error: ${clampEcho((e as Error).message)}`);
  }
  return judgeValue(value, opts);
}

/** A line that was not parsed: answered with the id its scan read, unless it is evidently not a request. */
function unparsed(line: Line, code: number, message: string, log?: string): Verdict {
  const { top } = line;
  if (top.method && !top.idKey) return { kind: "drop", log }; // a notification
  if (top.resultOrError && !top.method) return { kind: "drop", log }; // a response
  return answer(top.method && top.id !== undefined ? top.id : null, code, message, log);
}

function judgeValue(value: unknown, opts: GuardOptions): Verdict {
  if (Array.isArray(value)) return answer(null, ErrorCode.InvalidRequest, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-11-25); send one message per line");
  if (!isJsonObject(value)) return answer(null, ErrorCode.InvalidRequest, "Invalid Request: a message is a JSON object");
  const hasId = Object.hasOwn(value, "id");
  const hasMethod = Object.hasOwn(value, "method");

  if (!hasId && typeof value.method === "string") {
    // A notification is never answered, even a malformed one.
    const n = JSONRPCNotificationSchema.safeParse(value);
    return n.success ? { kind: "forward", message: n.data } : { kind: "drop" };
  }
  if (!hasMethod && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))) {
    const r = Object.hasOwn(value, "result") ? JSONRPCResultResponseSchema.safeParse(value) : JSONRPCErrorResponseSchema.safeParse(value);
    return r.success ? { kind: "forward", message: r.data } : { kind: "drop" };
  }

  if (!isRequestId(value.id)) {
    const why = hasId ? "the id must be a string or a safe integer" : "a request needs an id and a method";
    return answer(null, ErrorCode.InvalidRequest, `Invalid Request: ${why}`);
  }
  const id = value.id;
  if (value.jsonrpc !== "2.0") return answer(id, ErrorCode.InvalidRequest, 'Invalid Request: jsonrpc must be "2.0"');
  if (!hasMethod) return answer(id, ErrorCode.InvalidRequest, "Invalid Request: a request needs a method");
  if (typeof value.method !== "string") return answer(id, ErrorCode.InvalidRequest, "Invalid Request: the method must be a string");
  const unknown = Object.keys(value).filter((k) => !REQUEST_MEMBERS.has(k));
  if (unknown.length > 0) return answer(id, ErrorCode.InvalidRequest, `Invalid Request: unknown member ${clampEcho(unknown.join(", "))}`);
  const params = value.params;
  if (Object.hasOwn(value, "params") && (typeof params !== "object" || params === null)) {
    return answer(id, ErrorCode.InvalidRequest, "Invalid Request: params must be an object");
  }
  if (opts.serves && !opts.serves(value.method)) return answer(id, ErrorCode.MethodNotFound, "Method not found");
  if (Array.isArray(params)) return answer(id, ErrorCode.InvalidParams, "Invalid params: MCP requests take named params (an object), not an array");
  if (!opts.tasks && isJsonObject(params) && Object.hasOwn(params, "task")) delete params.task;
  const r = JSONRPCRequestSchema.safeParse(value);
  if (!r.success) return answer(id, ErrorCode.InvalidParams, `Invalid params: ${zodMessage(r.error)}`);
  return { kind: "forward", message: r.data };
}
