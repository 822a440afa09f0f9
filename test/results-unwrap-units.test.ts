// Value mode (glue/results/unwrap.ts), in process: only isError === true is an error, its message
// the trimmed text of its text blocks (others skipped) or a stock one, clamped; a null
// structuredContent is no structured content; a lone object block is a one-block list; and the
// typed error reportedError and downstreamValue make of a reported error (its code, words and
// address), the value otherwise.
import { describe, expect, it } from "vitest";
import { downstreamValue, reportedError, unwrapToolResult } from "../glue/results/unwrap.js";
import { AtriumError } from "../glue/support/errors.js";

const text = (t: unknown) => ({ type: "text", text: t });

describe("an error the downstream reported", () => {
  it("only isError === true is an error", () => {
    for (const isError of ["true", 1, {}]) expect(unwrapToolResult({ isError, content: [text("fine")] })).toEqual({ ok: true, data: "fine" });
  });

  it("its message is the text of its text blocks, others skipped, trimmed", () => {
    expect(unwrapToolResult({ isError: true, content: [text("  bad"), { type: "image", data: "AA" }, text(2), text("input \n")] })).toEqual({ ok: false, error: { message: "bad\n2\ninput" } });
    expect(unwrapToolResult({ isError: true, content: 5 })).toEqual({ ok: false, error: { message: "the tool reported an error without a message" } });
    expect(unwrapToolResult({ isError: true, content: [text("  ")] })).toEqual({ ok: false, error: { message: "the tool reported an error without a message" } });
    expect(unwrapToolResult({ isError: true, content: { type: "text", text: "lone" } })).toEqual({ ok: false, error: { message: "lone" } });
  });

  it("reportedError: the typed error with the downstream's words and the address; none for a result that is not an error", () => {
    const e = reportedError("dict.lookup", { isError: true, content: [text("no such word")] });
    expect(e).toBeInstanceOf(AtriumError);
    expect(e?.code).toBe("connector_call_failed");
    expect(e?.message).toBe("dict.lookup reported an error: no such word");
    expect(e?.details).toEqual({ address: "dict.lookup" });
    expect(reportedError("dict.lookup", { content: [text("ok")] })).toBeUndefined();
  });

  it("downstreamValue: the value, or the same typed error thrown", () => {
    expect(downstreamValue("dict.lookup", { content: [text('{"a":1}')] })).toEqual({ a: 1 });
    let thrown: unknown;
    try { downstreamValue("dict.lookup", { isError: true, content: [text("no such word")] }); } catch (e) { thrown = e; }
    expect(thrown).toBeInstanceOf(AtriumError);
    expect((thrown as AtriumError).code).toBe("connector_call_failed");
    expect((thrown as AtriumError).message).toBe("dict.lookup reported an error: no such word");
    expect((thrown as AtriumError).details).toEqual({ address: "dict.lookup" });
  });
});

describe("the value of a result", () => {
  it("a null structuredContent is none: the text is read", () => {
    expect(unwrapToolResult({ structuredContent: null, content: [text('{"n":2}')] })).toEqual({ ok: true, data: { n: 2 } });
    expect(unwrapToolResult({ structuredContent: 0, content: [text("x")] })).toEqual({ ok: true, data: 0 });
  });

  it("a lone block where a list belongs is read as a one-block list; null content is given as it is", () => {
    expect(unwrapToolResult({ content: { type: "text", text: "[1,2]" } })).toEqual({ ok: true, data: [1, 2] });
    expect(unwrapToolResult({ content: { type: "image", data: "AA" } })).toEqual({ ok: true, data: { type: "image", data: "AA" } });
    expect(unwrapToolResult({ content: null })).toEqual({ ok: true, data: null });
  });

  it("strings in a list are text blocks; a lone string is a one-block list, parsed when it is JSON", () => {
    expect(unwrapToolResult({ content: ["a", "b"] })).toEqual({ ok: true, data: "a\nb" });
    expect(unwrapToolResult({ content: '{"a":1}' })).toEqual({ ok: true, data: { a: 1 } });
    expect(unwrapToolResult({ isError: true, content: "oops" })).toEqual({ ok: false, error: { message: "oops" } });
    expect(unwrapToolResult({ isError: true, content: ["bad", "input"] })).toEqual({ ok: false, error: { message: "bad\ninput" } });
  });

  it("a block of another type, or a typeless block without text, is not text", () => {
    expect(unwrapToolResult({ content: [{ type: "resource", text: "x" }] })).toEqual({ ok: true, data: [{ type: "resource", text: "x" }] });
    expect(unwrapToolResult({ content: [{}] })).toEqual({ ok: true, data: [{}] });
    expect(unwrapToolResult({ content: [text(false)] })).toEqual({ ok: true, data: false });
  });

  it("an undefined result reads as no content", () => {
    expect(unwrapToolResult(undefined as unknown as object)).toEqual({ ok: true, data: "" });
  });
});
