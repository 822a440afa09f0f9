// The host-call table (glue/sandbox/host-ops.ts), row by row, with the real core: `spend` asks the
// core and throws the typed budget error naming the budget, its numbers and the hint; each row's
// answer mode and the host calls it spends; the worker's bounds before a payload leaves the guest
// (a search's query at search_query_chars and its whole request at its fixed size, a describe
// request at its fixed size, a call or batch at call_payload_bytes, each at the boundary and one
// past it) and once read (UTF-8 bytes, and nesting below the prelude's own envelope at
// request_depth); a ui or emit payload over all of emit_bytes withheld, not refused; the refusal
// of a payload that is not JSON; and which names are operations.
import { describe, expect, it } from "vitest";
import { HOST_OPS, isHostOp, MAX_DESCRIBE, spend, WITHHELD, type HostOp } from "../glue/sandbox/host-ops.js";
import { core } from "../glue/decisions/core.js";
import { HOST_ADDRESS_CHARS_MAX, HOST_DESCRIBE_ADDRESSES_MAX, HOST_SEARCH_OPTIONS_CHARS_MAX, SEARCH_PHRASINGS_MAX } from "../glue/decisions/generated/spec.js";
import { JSON_ESCAPE_CHARS_MAX } from "../glue/support/encoding.js";
import { AtriumError } from "../glue/support/errors.js";

/** The run's limits the worker bounds a request by (each within its budget's range). */
const LIMITS = { callPayloadBytes: 1024, searchQueryChars: 16, requestDepth: 16, emitBytes: 100 };

/** What `f` threw, as the typed error it must be (undefined when it did not throw). */
function thrown(f: () => unknown): AtriumError | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AtriumError);
    return e as AtriumError;
  }
  return undefined;
}
const before = (op: HostOp, chars: number, measure = 0) => HOST_OPS[op].before(core(), { chars, measure }, LIMITS);
const after = (op: HostOp, json: string) => HOST_OPS[op].after!(core(), json, LIMITS);
/** A JSON text that nests `n` levels deep. */
const nested = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("spend: the one question every budget is asked through", () => {
  it("an amount that fits passes, at the limit exactly, with or without what was used", () => {
    expect(thrown(() => spend(core(), "host_calls", 20, 20))).toBeUndefined();
    expect(thrown(() => spend(core(), "host_calls", 20, 5, 15))).toBeUndefined();
  });

  it("one over throws budget_exceeded naming the budget, limit, used, requested and room, with the hint", () => {
    const e = thrown(() => spend(core(), "host_calls", 20, 6, 15, "do fewer"))!;
    expect(e.code).toBe("budget_exceeded");
    expect(e.details).toEqual({ budget: "host_calls", limit: 20, used: 15, requested: 6, room: 5 });
    expect(e.message).toBe("host_calls budget exceeded: 6 requested, 5 of 20 left; do fewer");
  });

  it("used defaults to nothing: the amount alone is judged", () => {
    expect(thrown(() => spend(core(), "host_calls", 20, 21))!.details).toEqual({ budget: "host_calls", limit: 20, used: 0, requested: 21, room: 20 });
  });
});

describe("the table's rows", () => {
  it("search, describe, call and batch answer by a promise; ui and emit at once", () => {
    expect(Object.fromEntries(Object.entries(HOST_OPS).map(([op, r]) => [op, r.answer]))).toEqual({ search: "promise", describe: "promise", call: "promise", batch: "promise", ui: "at once", emit: "at once" });
  });

  it("search, describe and call spend one host call; a batch its items; ui and emit none", () => {
    const spent = (op: HostOp) => [0, 1, 7].map((m) => HOST_OPS[op].calls(m));
    expect([spent("search"), spent("describe"), spent("call"), spent("batch"), spent("ui"), spent("emit")]).toEqual([[1, 1, 1], [1, 1, 1], [1, 1, 1], [0, 1, 7], [0, 0, 0], [0, 0, 0]]);
  });

  it("the operations are the table's own rows, not what every object inherits", () => {
    for (const op of ["search", "describe", "call", "batch", "ui", "emit"]) expect(isHostOp(op)).toBe(true);
    for (const op of ["toString", "constructor", "__proto__", "hasOwnProperty", "log", ""]) expect(isHostOp(op)).toBe(false);
  });

  it("ui and emit name what could not be serialized; the others fall back to the bridge's words", () => {
    expect(HOST_OPS.ui.unreadable).toBe("atrium.ui(html, options?): the arguments are not serializable");
    expect(HOST_OPS.emit.unreadable).toBe("emit takes one content block object; this value is not serializable");
    expect([HOST_OPS.search.unreadable, HOST_OPS.describe.unreadable, HOST_OPS.call.unreadable, HOST_OPS.batch.unreadable]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("MAX_DESCRIBE is the spec's addresses per describe, and a withheld payload is marked true", () => {
    expect(MAX_DESCRIBE).toBe(HOST_DESCRIBE_ADDRESSES_MAX);
    expect(WITHHELD).toBe(true);
  });
});

describe("search: the query at search_query_chars, the request at its fixed size, nesting at request_depth", () => {
  const whole = LIMITS.searchQueryChars * JSON_ESCAPE_CHARS_MAX * SEARCH_PHRASINGS_MAX + HOST_SEARCH_OPTIONS_CHARS_MAX;

  it("a query of exactly search_query_chars passes; one more is refused, typed, with the hint", () => {
    expect(thrown(() => before("search", 30, LIMITS.searchQueryChars))).toBeUndefined();
    const e = thrown(() => before("search", 30, LIMITS.searchQueryChars + 1))!;
    expect(e.code).toBe("budget_exceeded");
    expect(e.details).toMatchObject({ budget: "search_query_chars", limit: LIMITS.searchQueryChars, used: 0, requested: LIMITS.searchQueryChars + 1 });
    expect(e.message).toMatch(/; search with a few words$/);
  });

  it("an empty query is judged too: a search_query_chars out of its range refuses even it (the core judges the limit)", () => {
    const e = thrown(() => HOST_OPS.search.before(core(), { chars: 12, measure: 0 }, { ...LIMITS, searchQueryChars: 0 }))!;
    expect(e.details).toMatchObject({ budget: "search_query_chars", limit: 0, requested: 0 });
  });

  it("phrasings (measure -1) are not measured as one query: only the request's size bounds them", () => {
    expect(thrown(() => before("search", 30, -1))).toBeUndefined();
    expect(thrown(() => before("search", whole, -1))).toBeUndefined();
    expect(thrown(() => before("search", whole + 1, -1))!.code).toBe("invalid_args");
  });

  it(`the request may be ${SEARCH_PHRASINGS_MAX} phrasings of the query's length, each character escaped, and the options: exactly that passes, one more is refused`, () => {
    expect(whole).toBe(16 * 6 * 5 + 2048);
    expect(thrown(() => before("search", whole, 0))).toBeUndefined();
    const e = thrown(() => before("search", whole + 1, 0))!;
    expect(e.code).toBe("invalid_args");
    expect(e.message).toBe(`atrium.search(query, options): the request is ${whole + 1} characters serialized; a query (or each of at most ${SEARCH_PHRASINGS_MAX} phrasings) has at most ${LIMITS.searchQueryChars} characters and options are only connector, safety, limit and offset`);
  });

  it("what the program passed may nest request_depth levels below the request's own object; one more is refused, typed, with the depth", () => {
    expect(thrown(() => after("search", `{"query":${nested(LIMITS.requestDepth)}}`))).toBeUndefined();
    const e = thrown(() => after("search", `{"query":${nested(LIMITS.requestDepth + 1)}}`))!;
    expect(e.details).toMatchObject({ budget: "request_depth", limit: LIMITS.requestDepth, requested: LIMITS.requestDepth + 1 });
    expect(e.message).toMatch(new RegExp(`; what the program passed nests ${LIMITS.requestDepth + 1} levels deep; flatten it$`));
  });
});

describe("describe: the request at its fixed size, nesting at request_depth", () => {
  const most = MAX_DESCRIBE * HOST_ADDRESS_CHARS_MAX;

  it(`${MAX_DESCRIBE} addresses of ${HOST_ADDRESS_CHARS_MAX} characters pass; one character more is refused, typed`, () => {
    expect(thrown(() => before("describe", most))).toBeUndefined();
    const e = thrown(() => before("describe", most + 1))!;
    expect(e.code).toBe("invalid_args");
    expect(e.message).toBe(`atrium.describe takes an address or an array of 1 to ${MAX_DESCRIBE} addresses; this request is ${most + 1} characters serialized`);
  });

  it("nesting is counted below the request's own object", () => {
    expect(thrown(() => after("describe", `{"addresses":${nested(LIMITS.requestDepth)}}`))).toBeUndefined();
    expect(thrown(() => after("describe", `{"addresses":${nested(LIMITS.requestDepth + 1)}}`))!.details).toMatchObject({ budget: "request_depth", requested: LIMITS.requestDepth + 1 });
  });
});

describe("call and batch: call_payload_bytes on the length, then the bytes; nesting below the envelope", () => {
  it("a length of exactly call_payload_bytes passes; one more is refused, typed, with the hint", () => {
    for (const op of ["call", "batch"] as const) {
      expect(thrown(() => before(op, LIMITS.callPayloadBytes, 1))).toBeUndefined();
      const e = thrown(() => before(op, LIMITS.callPayloadBytes + 1, 1))!;
      expect(e.details).toMatchObject({ budget: "call_payload_bytes", limit: LIMITS.callPayloadBytes, used: 0, requested: LIMITS.callPayloadBytes + 1 });
      expect(e.message).toMatch(/; pass less \(ids, filters, paging\) and let the tool fetch the rest$/);
    }
  });

  it("once read, the payload is measured in UTF-8 bytes: three-byte characters count three", () => {
    const text = (chars: number) => `{"args":{"s":"${"€".repeat(chars)}"}}`;
    const fits = Math.floor((LIMITS.callPayloadBytes - text(0).length) / 3);
    expect(thrown(() => after("call", text(fits)))).toBeUndefined();
    expect(text(fits + 1).length).toBeLessThan(LIMITS.callPayloadBytes);
    expect(thrown(() => after("call", text(fits + 1)))!.details).toMatchObject({ budget: "call_payload_bytes", requested: Buffer.byteLength(text(fits + 1)) });
  });

  it("a call's args may nest request_depth levels below the call's own object; one more is refused", () => {
    expect(thrown(() => after("call", `{"address":"x.y","args":${nested(LIMITS.requestDepth)}}`))).toBeUndefined();
    expect(thrown(() => after("call", `{"address":"x.y","args":${nested(LIMITS.requestDepth + 1)}}`))!.details).toMatchObject({ budget: "request_depth", requested: LIMITS.requestDepth + 1 });
  });

  it("a batch item's args may nest request_depth levels below the batch's envelope ({items:[{args}]}); one more is refused", () => {
    const batch = (n: number) => `{"items":[{"address":"x.y","args":${nested(n)}}]}`;
    expect(thrown(() => after("batch", batch(LIMITS.requestDepth)))).toBeUndefined();
    const e = thrown(() => after("batch", batch(LIMITS.requestDepth + 1)))!;
    expect(e.details).toMatchObject({ budget: "request_depth", requested: LIMITS.requestDepth + 1 });
    expect(e.message).toMatch(/nests 17 levels deep/);
  });

  it("a payload shallower than the envelope nests nothing (never a negative depth)", () => {
    expect(thrown(() => after("batch", `{"items":[]}`))).toBeUndefined();
    expect(thrown(() => after("batch", `{}`))).toBeUndefined();
    expect(thrown(() => after("call", `"x"`))).toBeUndefined();
  });

  it("ui and emit have no bound once read (only the main thread counts emit_bytes)", () => {
    expect([HOST_OPS.ui.after, HOST_OPS.emit.after]).toEqual([undefined, undefined]);
  });
});

describe("ui and emit: a payload over all of emit_bytes is withheld, not refused", () => {
  it("exactly emit_bytes is sent; one more is withheld; neither throws", () => {
    for (const op of ["ui", "emit"] as const) {
      expect(before(op, LIMITS.emitBytes)).toBeUndefined();
      expect(before(op, LIMITS.emitBytes - 1)).toBeUndefined();
      expect(before(op, LIMITS.emitBytes + 1)).toBe(WITHHELD);
    }
  });
});
