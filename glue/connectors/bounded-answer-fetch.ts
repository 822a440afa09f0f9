// The fetch a remote connector's transport reads its MCP endpoint through, so that an HTTP
// connector's messages are bounded as a stdio connector's lines are (downstream_line_bytes,
// downstream_depth), before the SDK parses anything:
//   - a JSON (or any non-SSE) answer body is counted while it arrives and cancelled past
//     downstream_line_bytes, and scanned for its nesting depth while it is read (line-reader.ts);
//   - an SSE stream is cut into events here, each event's data held to the same two bounds and
//     handed on as one `data:` line; comment lines (keep-alives) are not handed on.
// A dropped answer becomes the same error answer the stdio reader gives (dropped-answer.ts), so the
// call it answered fails at once with result_too_large naming the bound, and the connection stays.
// The id it answers is the dropped message's own top-level id when the scan read one, else the id of
// the one request the POST carried. A dropped error body keeps its HTTP status with a short text.
import type { FetchLike, JSONRPCMessage } from "@modelcontextprotocol/client";
import { LineReader, type Line, type LineLimits } from "../support/line-reader.js";
import { ASCII } from "../support/encoding.js";
import { HTTP_STATUS } from "../support/wire.js";
import { droppedAnswer, droppedWhy } from "./dropped-answer.js";

const { newline: NL, carriageReturn: CR, space: SPACE, colon: COLON } = ASCII;
const NEWLINE = Buffer.from([NL]);
const BLANK = Buffer.from([SPACE]);
const utf8 = new TextEncoder();

/** The ids of the requests (not notifications) in the JSON-RPC message or batch a POST sends. */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try { parsed = JSON.parse(body); } catch { return []; }
  return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m: { id?: unknown; method?: unknown } | null) =>
    m && typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number") ? [m.id] : []);
}

const mediaType = (res: Response) => (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();

/** `inner` for the requests to `mcpUrl`, with every answer body bounded by `limits` before it is handed on. */
export function boundedAnswerFetch(mcpUrl: string, limits: LineLimits, inner: FetchLike = fetch): FetchLike {
  const mcp = new URL(mcpUrl).href;
  return async (input, init) => {
    const res = await inner(input, init);
    if (new URL(input instanceof Request ? input.url : String(input)).href !== mcp || !res.body) return res;
    if (res.status === HTTP_STATUS.noContent || res.status === HTTP_STATUS.notModified) return res; // no body to read
    const ids = requestIds(init?.body);
    if (mediaType(res) === "text/event-stream") {
      return new Response(res.body.pipeThrough(new SseBound(limits, ids.length === 1 ? ids[0] : undefined)), { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    return boundedBody(res, limits, ids);
  };
}

/** A whole (JSON) body read under the bounds: handed on as it came, or replaced by the dropped answer. */
async function boundedBody(res: Response, limits: LineLimits, ids: (string | number)[]): Promise<Response> {
  let line: Line | undefined;
  // A JSON text's newlines are whitespace outside strings (inside them they are escaped), so the
  // body is scanned as one line with each newline read as a space.
  const reader = new LineReader(limits, (l) => { line = l; });
  const body = res.body!.getReader();
  let total = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await body.read();
    if (done) break;
    total += value.byteLength;
    if (total > limits.maxBytes) {
      cut = true;
      await body.cancel().catch(() => {});
      break;
    }
    const chunk = Buffer.from(value);
    for (let i = chunk.indexOf(NL); i !== -1; i = chunk.indexOf(NL, i + 1)) chunk[i] = SPACE;
    reader.push(chunk);
  }
  if (!cut) reader.push(NEWLINE);
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  if (line?.text) return new Response(new Uint8Array(line.text), { status: res.status, statusText: res.statusText, headers });
  const why = droppedWhy(line ?? { bytes: total, depth: 0 }, limits, cut);
  if (!res.ok || ids.length === 0) {
    headers.set("content-type", "text/plain; charset=utf-8");
    return new Response(`the server's answer ${why}; it was dropped unread`, { status: res.status, statusText: res.statusText, headers });
  }
  const answers = ids.map((id) => droppedAnswer(id, why));
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(answers.length === 1 ? answers[0] : answers), { status: res.status, statusText: res.statusText, headers });
}

const enum Field { name, data, kept, ignored }
/** SSE fields handed on besides data (the SDK reads `id` for resumption and `retry` for its backoff). */
const KEPT_FIELDS = new Set(["event", "id", "retry"]);
const DATA_FIELD = "data";
/** The longest field name worth reading; a longer one is no field of SSE. */
const FIELD_NAME_MAX = Math.max(DATA_FIELD.length, ...[...KEPT_FIELDS].map((f) => f.length));

/**
 * Cuts an SSE stream into events with each event's data read by a LineReader (its `data:` lines
 * joined by a space, which JSON reads as it would the newline SSE joins them with), so no event
 * holds more than downstream_line_bytes and none deeper than downstream_depth is handed on.
 */
class SseBound extends TransformStream<Uint8Array, Uint8Array> {
  constructor(limits: LineLimits, onlyRequestId: string | number | undefined) {
    let field = Field.name;
    let name: number[] = [];
    let lineBytes = 0;
    let afterColon = false;
    let afterCR = false;
    let dataLines = 0;
    let kept: string[] = [];
    let keptBytes = 0;
    let value: Buffer[] = [];
    let line: Line | undefined;
    let answered = false;
    let dataBytes = 0;
    let cut = false;
    const reader = new LineReader(limits, (l) => { line = l; });

    const startField = (ctl: TransformStreamDefaultController<Uint8Array>) => {
      const n = String.fromCharCode(...name);
      field = n === DATA_FIELD ? Field.data : KEPT_FIELDS.has(n) ? Field.kept : Field.ignored;
      if (field === Field.data && dataLines++ > 0 && !cut) data(BLANK, ctl);
    };
    /** Data of the current event: read until it passes downstream_line_bytes, then answered at once and skipped. */
    const data = (bytes: Buffer, ctl: TransformStreamDefaultController<Uint8Array>) => {
      if (cut) return;
      dataBytes += bytes.length;
      reader.push(bytes);
      if (dataBytes <= limits.maxBytes) return;
      cut = true;
      line = undefined;
      reader.push(NEWLINE);
      answer(line as Line | undefined, ctl);
    };
    /** Hands on the event, or for a dropped one the error answer to the request it answered. */
    const answer = (l: Line | undefined, ctl: TransformStreamDefaultController<Uint8Array>) => {
      let text = l?.text;
      if (!text && l) {
        const id = l.top.resultOrError && l.top.id !== undefined ? l.top.id : !l.top.method && !answered ? onlyRequestId : undefined;
        if (id !== undefined) {
          if (id === onlyRequestId) answered = true;
          text = Buffer.from(JSON.stringify(droppedAnswer(id, droppedWhy(l, limits, cut)) satisfies JSONRPCMessage));
        }
      }
      if (text) ctl.enqueue(Buffer.concat([utf8.encode(`${kept.join("")}data: `), text, Buffer.from("\n\n")]));
    };
    const take = (chunk: Buffer, start: number, end: number, ctl: TransformStreamDefaultController<Uint8Array>) => {
      for (let i = start; i < end; i++) {
        lineBytes++;
        if (field === Field.name) {
          if (chunk[i] === COLON) { startField(ctl); afterColon = true; continue; }
          name.push(chunk[i]);
          if (name.length > FIELD_NAME_MAX) field = Field.ignored; // no field of SSE: the rest of the line is skipped
          continue;
        }
        if (afterColon) {
          afterColon = false;
          if (chunk[i] === SPACE) continue;
        }
        // The rest of this stretch belongs to the value: handed on in one piece.
        if (field === Field.data) data(chunk.subarray(i, end), ctl);
        else if (field === Field.kept) {
          keptBytes += end - i;
          if (keptBytes <= limits.maxBytes) value.push(chunk.subarray(i, end));
        }
        lineBytes += end - i - 1;
        return;
      }
    };
    const emit = (ctl: TransformStreamDefaultController<Uint8Array>) => {
      if (dataLines === 0) {
        if (kept.length > 0) ctl.enqueue(utf8.encode(`${kept.join("")}\n`));
      } else if (!cut) {
        line = undefined;
        reader.push(NEWLINE);
        answer(line as Line | undefined, ctl);
      }
      kept = [];
      keptBytes = 0;
      dataLines = 0;
      dataBytes = 0;
      cut = false;
    };
    const endLine = (ctl: TransformStreamDefaultController<Uint8Array>) => {
      if (lineBytes === 0) emit(ctl);
      else {
        if (field === Field.name) startField(ctl); // a field with no colon has an empty value
        if (field === Field.kept && keptBytes <= limits.maxBytes) kept.push(`${String.fromCharCode(...name)}: ${Buffer.concat(value).toString("utf8")}\n`);
      }
      field = Field.name;
      name = [];
      value = [];
      lineBytes = 0;
      afterColon = false;
    };
    super({
      transform(bytes, ctl) {
        const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        let pos = 0;
        // A CRLF pair ends one line: the LF right after a CR is skipped.
        if (afterCR && chunk.length > 0 && chunk[0] === NL) pos = 1;
        afterCR = false;
        while (pos < chunk.length) {
          const nl = chunk.indexOf(NL, pos);
          const cr = chunk.indexOf(CR, pos);
          const end = nl === -1 ? cr : cr === -1 ? nl : Math.min(nl, cr);
          if (end === -1) { take(chunk, pos, chunk.length, ctl); return; }
          take(chunk, pos, end, ctl);
          endLine(ctl);
          pos = end + 1;
          if (chunk[end] === CR) {
            if (pos === chunk.length) afterCR = true;
            else if (chunk[pos] === NL) pos++;
          }
        }
      },
    });
  }
}
