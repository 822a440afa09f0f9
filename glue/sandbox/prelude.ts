// The guest-side prelude, evaluated in every fresh QuickJS context before the program. It
// captures the raw host functions in a closure and deletes them from the global object, so
// a program reaches the host only through the frozen `atrium` API and connector globals.
// Errors raised by the host are kept in a private WeakMap with the exact JSON the host sent:
// a program cannot forge one. The script's value is the run function; the worker calls it and
// reads its promise natively, and it reports with strings it builds itself, so no prototype
// or global a program replaces (toJSON, Promise.resolve/then, Array methods) changes a report.
export const PRELUDE = String.raw`
(() => {
  "use strict";
  const g = globalThis;
  const hostCall = g.__host, hostEmit = g.__emit, hostUi = g.__ui, hostLog = g.__log, cfg = g.__cfg;
  delete g.__host; delete g.__emit; delete g.__ui; delete g.__log; delete g.__cfg;
  const parse = JSON.parse, stringify = JSON.stringify, freeze = Object.freeze, defineProperty = Object.defineProperty;
  const ErrorCtor = Error, StringCtor = String, apply = Reflect.apply, then = Promise.prototype.then;
  const reports = new WeakMap();
  const setReport = WeakMap.prototype.set.bind(reports), getReport = WeakMap.prototype.get.bind(reports);
  const ERROR_KEYS = ["code", "retryable", "nextAction", "details"];
  /** A JSON string literal of any value's string form. */
  const q = (v) => stringify(StringCtor(v));

  /** raw: the host's JSON error body, reported verbatim whatever the program does to the Error. */
  function hostError(raw) {
    const body = parse(raw);
    const e = new ErrorCtor(body.message);
    defineProperty(e, "name", { value: "AtriumError" });
    for (let i = 0; i < ERROR_KEYS.length; i++) { const k = ERROR_KEYS[i]; if (body[k] !== undefined) defineProperty(e, k, { value: body[k], enumerable: true }); }
    setReport(e, '{"host":true,"name":"AtriumError","message":' + q(body.message) + ',"body":' + raw + '}');
    return e;
  }
  const call = (op, payload) => apply(then, hostCall(op, stringify(payload)), [(s) => parse(s), (s) => { throw hostError(s); }]);

  const atrium = freeze({
    search: (query, options) => call("search", { __proto__: null, query: query === undefined ? "" : query, options: options === undefined ? {} : options }),
    describe: (addresses) => call("describe", { __proto__: null, addresses }),
    call: (address, args) => call("call", { __proto__: null, address, args }),
    batch: (items) => call("batch", { __proto__: null, items }),
    ui: (html, options) => { let s; try { s = stringify({ html, options }); } catch (e) { s = undefined; } const r = hostUi(s === undefined ? "" : s); if (r !== "") throw hostError(r); },
    emit: (block) => { let s; try { s = stringify(block); } catch (e) { s = undefined; } const r = hostEmit(s === undefined ? "" : s); if (r !== "") throw hostError(r); },
  });
  // Globals are non-configurable getters: QuickJS lets Object.defineProperty replace the value of a
  // non-writable, non-configurable data property of the global object, but never an accessor.
  const pin = (name, value) => defineProperty(g, name, { get: () => value, enumerable: false, configurable: false });
  pin("atrium", atrium);

  for (const c of parse(cfg)) {
    const tools = {};
    for (const t of c.tools) {
      const ambiguous = stringify({ code: "ambiguous_tool_alias", retryable: false,
        message: c.connectorId + "." + t.ident + " is ambiguous (" + (c.ambiguousWith.length ? "connector ids " + [c.connectorId, ...c.ambiguousWith].join(", ") : "tools " + t.candidates.join(", ")) + " share one identifier); use atrium.call with the exact address" });
      tools[t.ident] = t.address !== null && c.ambiguousWith.length === 0
        ? (args) => atrium.call(t.address, args)
        : async () => { throw hostError(ambiguous); };
    }
    pin(c.ident, freeze(tools));
  }

  const show = (v) => { if (typeof v === "string") return v; try { const s = stringify(v); return s === undefined ? StringCtor(v) : s; } catch (e) { return StringCtor(v); } };
  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) console[level] = (...args) => { let s = ""; for (let i = 0; i < args.length; i++) s += (i === 0 ? "" : " ") + show(args[i]); hostLog(level, s); };
  pin("console", freeze(console));

  /** The JSON of a GuestError, built from strings only. */
  function describeError(e) {
    if (e !== null && (typeof e === "object" || typeof e === "function")) {
      const report = getReport(e);
      if (report !== undefined) return report;
      let name = "Error", message = "", stack;
      try { name = StringCtor(e.name); message = StringCtor(e.message); stack = typeof e.stack === "string" ? StringCtor(e.stack.split("\n").slice(0, 12).join("\n").slice(0, 2000)) : undefined; } catch (x) { name = "Error"; message = "an error that could not be read"; stack = undefined; }
      return '{"host":false,"name":' + q(name) + ',"message":' + q(message) + (stack === undefined ? "" : ',"stack":' + q(stack)) + '}';
    }
    return '{"host":false,"name":"Error","message":' + q("non-Error thrown: " + show(e)) + '}';
  }
  const UNREPORTABLE = '{"ok":false,"error":{"host":false,"name":"InternalError","message":"out of memory while reporting the outcome of the program"}}';

  // The run function: the worker calls it once with the program's thunk.
  return async (thunk) => {
    let out;
    try {
      let v = thunk();
      if (typeof v === "function") v = v();
      v = await v;
      const json = stringify(v === undefined ? null : v);
      out = '{"ok":true,"json":' + q(json === undefined ? "null" : json) + '}';
    } catch (e) {
      try { out = '{"ok":false,"error":' + describeError(e) + '}'; } catch (x) { out = UNREPORTABLE; }
    }
    return out;
  };
})();
`;
