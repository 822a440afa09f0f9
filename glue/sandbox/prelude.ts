// The guest-side prelude, evaluated in every fresh QuickJS context before the program. It
// captures the raw host functions in a closure and deletes them from the global object, so
// a program reaches the host only through the frozen `atrium` API and connector globals.
// Errors raised by the host are marked in a private WeakSet: a program cannot forge one.
export const PRELUDE = String.raw`
(() => {
  "use strict";
  const g = globalThis;
  const hostCall = g.__host, hostEmit = g.__emit, hostLog = g.__log, cfg = g.__cfg;
  delete g.__host; delete g.__emit; delete g.__log; delete g.__cfg;
  const parse = JSON.parse, stringify = JSON.stringify, freeze = Object.freeze, defineProperty = Object.defineProperty;
  const ErrorCtor = Error, StringCtor = String, isArray = Array.isArray;
  const marked = new WeakSet();
  const mark = WeakSet.prototype.add.bind(marked), isMarked = WeakSet.prototype.has.bind(marked);

  function hostError(body) {
    const e = new ErrorCtor(body.message);
    defineProperty(e, "name", { value: "AtriumError" });
    for (const k of ["code", "retryable", "nextAction", "details"]) if (body[k] !== undefined) defineProperty(e, k, { value: body[k], enumerable: true });
    mark(e);
    return e;
  }
  const call = (op, payload) => hostCall(op, stringify(payload === undefined ? null : payload)).then((s) => parse(s), (s) => { throw hostError(parse(s)); });

  const atrium = freeze({
    search: (query, options) => call("search", { query: query === undefined ? "" : query, options: options === undefined ? {} : options }),
    describe: (addresses) => call("describe", { addresses }),
    call: (address, args) => call("call", { address, args }),
    batch: (items) => call("batch", { items }),
    emit: (block) => { let s; try { s = stringify(block); } catch (e) { s = undefined; } const r = hostEmit(s === undefined ? "" : s); if (r !== "") throw hostError(parse(r)); },
  });
  defineProperty(g, "atrium", { value: atrium, enumerable: false, writable: false, configurable: false });

  for (const c of parse(cfg)) {
    const tools = {};
    for (const t of c.tools) {
      tools[t.ident] = t.address !== null && c.ambiguousWith.length === 0
        ? (args) => atrium.call(t.address, args)
        : () => Promise.reject(hostError({ code: "ambiguous_tool_alias", retryable: false,
            message: c.connectorId + "." + t.ident + " is ambiguous (" + (c.ambiguousWith.length ? "connector ids " + [c.connectorId, ...c.ambiguousWith].join(", ") : "tools " + t.candidates.join(", ")) + " share one identifier); use atrium.call with the exact address" }));
    }
    defineProperty(g, c.ident, { value: freeze(tools), enumerable: false, writable: false, configurable: false });
  }

  const show = (v) => { if (typeof v === "string") return v; try { const s = stringify(v); return s === undefined ? StringCtor(v) : s; } catch (e) { return StringCtor(v); } };
  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) console[level] = (...args) => { hostLog(level, args.map(show).join(" ")); };
  defineProperty(g, "console", { value: freeze(console), enumerable: false, writable: false, configurable: false });

  function describeError(e) {
    if (e !== null && typeof e === "object" && isMarked(e)) {
      return { host: true, name: "AtriumError", message: StringCtor(e.message), body: { code: e.code, message: StringCtor(e.message), retryable: e.retryable === true, nextAction: e.nextAction, details: e.details } };
    }
    if (e !== null && typeof e === "object") {
      let name = "Error", message = "", stack;
      try { name = StringCtor(e.name); message = StringCtor(e.message); stack = typeof e.stack === "string" ? e.stack.split("\n").slice(0, 12).join("\n").slice(0, 2000) : undefined; } catch (x) { message = "an error that could not be read"; }
      return { host: false, name, message, stack };
    }
    return { host: false, name: "Error", message: "non-Error thrown: " + show(e) };
  }

  defineProperty(g, "__atriumRun", { configurable: true, value: async (thunk) => {
    delete g.__atriumRun;
    try {
      let v = thunk();
      if (typeof v === "function") v = v();
      v = await v;
      const json = stringify(v === undefined ? null : v);
      return stringify({ ok: true, json: json === undefined ? "null" : json });
    } catch (e) {
      return stringify({ ok: false, error: describeError(e) });
    }
  } });
})();
`;
