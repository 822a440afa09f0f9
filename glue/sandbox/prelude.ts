// The guest-side prelude, evaluated in every fresh QuickJS context before the program. It
// captures the raw host functions in a closure and deletes them from the global object, so
// a program reaches the host only through the frozen `atrium` API and connector globals.
// Errors raised by the host are kept in a private WeakMap with the exact JSON the host sent:
// a program cannot forge one. The script's value is { configure, run, describeThrown }: the
// worker may evaluate the prelude before its run's job arrives, then calls configure once with
// the job's settings (the limits below, the typed error past HOST_CALL_REFUSALS_MAX, the
// connector globals) before the program is evaluated; it calls run once with the program's thunk
// and reads its promise natively, and calls describeThrown (under the CPU budget) on anything
// thrown outside run. Both report with strings the prelude builds itself, so no prototype or global a
// program replaces (toJSON, Promise.resolve/then, Array or String methods) changes a report.
// Every text a report carries is cut here, in the guest, before it is serialized: error texts at
// limits.errorText, the value's JSON at limits.value, each log line at limits.log, so nothing
// large leaves the sandbox.
import { HOST_CALL_REFUSALS_MAX, SEARCH_PHRASINGS_MAX } from "../decisions/generated/spec.js";

/** The name the prelude is evaluated under (its frames are dropped from a program's stack). */
export const PRELUDE_FILE = "atrium-prelude.js";

export const PRELUDE = String.raw`
(() => {
  "use strict";
  const g = globalThis;
  const hostCall = g.__host, hostLog = g.__log;
  delete g.__host; delete g.__log;
  const parse = JSON.parse, stringify = JSON.stringify, freeze = Object.freeze, defineProperty = Object.defineProperty;
  const ErrorCtor = Error, StringCtor = String, apply = Reflect.apply, then = Promise.prototype.then;
  const strSlice = String.prototype.slice, strIndexOf = String.prototype.indexOf;
  // The job's settings, given by configure before the program runs.
  let LIMITS, tooManyRefused;
  const reports = new WeakMap();
  const setReport = WeakMap.prototype.set.bind(reports), getReport = WeakMap.prototype.get.bind(reports);
  const ERROR_KEYS = ["code", "retryable", "nextAction", "details"];
  /** A JSON string literal of any value's string form. */
  const q = (v) => stringify(StringCtor(v));
  /** A primitive string cut at max characters, with a marker giving its true length. */
  const cut = (s, max) => (s.length <= max ? s : apply(strSlice, s, [0, max]) + "… [cut: " + s.length + " characters]");
  /** The first n lines of a primitive string. */
  const lines = (s, n) => { let end = -1; for (let i = 0; i < n; i++) { end = apply(strIndexOf, s, ["\n", end + 1]); if (end < 0) return s; } return apply(strSlice, s, [0, end]); };

  /** raw: the host's JSON error body, reported verbatim whatever the program does to the Error. */
  function hostError(raw) {
    const body = parse(raw);
    const e = new ErrorCtor(body.message);
    defineProperty(e, "name", { value: "AtriumError" });
    for (let i = 0; i < ERROR_KEYS.length; i++) { const k = ERROR_KEYS[i]; if (body[k] !== undefined) defineProperty(e, k, { value: body[k], enumerable: true }); }
    setReport(e, '{"host":true,"name":"AtriumError","message":' + q(body.message) + ',"body":' + raw + '}');
    return e;
  }
  const fail = async (e) => { throw e; };
  const isArray = Array.isArray, none = async () => [];
  // A call refused at the call is a rejected promise the program may hold, unawaited, as long as
  // it likes: a run may have ${HOST_CALL_REFUSALS_MAX} of them (HOST_CALL_REFUSALS_MAX). Past that, every call throws
  // where it is made, the one typed Error built here before the program ran, so a flood of
  // unawaited calls ends in a typed refusal long before the heap fills (where QuickJS, unable to
  // build its own out-of-memory error, would throw null).
  let refusals = 0;
  const admit = () => { if (refusals >= ${HOST_CALL_REFUSALS_MAX}) throw tooManyRefused; };
  const refusal = (e) => { refusals++; return fail(e); };
  // A run past its host calls is refused the same way many times over: one Error serves a repeat,
  // and once no host call is left (room 0) every further single call gets that refusal here, so a
  // flood of refused calls costs a promise each, not a trip to the host and an Error each.
  let lastRefusal = "", lastRefused, exhausted;
  const noteExhausted = (raw, e) => { const d = parse(raw).details; if (d && d.budget === "host_calls" && d.room === 0 && d.requested === 1) exhausted = e; return e; };
  const refused = (raw) => { if (raw !== lastRefusal) { lastRefused = noteExhausted(raw, hostError(raw)); lastRefusal = raw; } return lastRefused; };
  // hostCall(op, json, measure) answers a promise of the reply, or a string: the typed error of a
  // call refused before it ran (in the sandbox, or by the host at once). measure is what the
  // prelude measured of the call (a search's query length, a batch's items; -1 for nothing).
  const send = (op, json, measure) => {
    const r = hostCall(op, json, measure);
    return typeof r === "string" ? refusal(refused(r)) : apply(then, r, [(s) => parse(s), (s) => { throw noteExhausted(s, hostError(s)); }]);
  };
  const single = (op, payload, measure) => { admit(); return exhausted !== undefined ? refusal(exhausted) : send(op, stringify(payload), measure === undefined ? -1 : measure); };
  // A batch's JSON is built here item by item, and the items it holds are counted as they are
  // added: the host is told it spends exactly what the JSON holds, whatever the array's getters
  // (or a proxy's length) do.
  const batch = (items) => {
    admit();
    if (!isArray(items)) return send("batch", stringify({ __proto__: null, items }), -1);
    const n = items.length;
    let json = '{"items":[', count = 0;
    for (let i = 0; i < n; i++) { const s = stringify(items[i]); json += (count === 0 ? "" : ",") + (s === undefined ? "null" : s); count++; }
    return count === 0 ? none() : send("batch", json + "]}", count);
  };
  // Several phrasings: copied once (at most one past the bound, which the host then refuses) into
  // an array the program cannot reach, so what is measured is what is sent; measured by the longest.
  const phrasings = (q, options) => {
    const list = [], n = q.length; let longest = 0;
    for (let i = 0; i < n && i <= ${SEARCH_PHRASINGS_MAX}; i++) { const p = q[i]; defineProperty(list, i, { value: p, enumerable: true, writable: true, configurable: true }); if (typeof p === "string" && p.length > longest) longest = p.length; }
    return single("search", { __proto__: null, query: list, options }, longest);
  };
  // ui and emit answer at once: "" when accepted, else the typed error, thrown here.
  const atOnce = (op, value) => { let s; try { s = stringify(value); } catch (e) { s = undefined; } const r = hostCall(op, s === undefined ? "" : s, -1); if (r !== "") throw hostError(r); };

  const atrium = freeze({
    search: (query, options) => { const q = query === undefined ? "" : query; const o = options === undefined ? {} : options; return isArray(q) ? phrasings(q, o) : single("search", { __proto__: null, query: q, options: o }, typeof q === "string" ? q.length : -1); },
    describe: (addresses) => single("describe", { __proto__: null, addresses }),
    call: (address, args, options) => single("call", { __proto__: null, address, args, options }),
    batch,
    ui: (html, options) => atOnce("ui", { __proto__: null, html, options }),
    emit: (block) => atOnce("emit", block),
  });
  // Globals are non-configurable getters: QuickJS lets Object.defineProperty replace the value of a
  // non-writable, non-configurable data property of the global object, but never an accessor. A
  // name the sandbox already owns cannot be pinned: that connector is left to atrium.call.
  const pin = (name, value) => defineProperty(g, name, { get: () => value, enumerable: false, configurable: false });
  pin("atrium", atrium);

  // <connector>.<name>(args) is atrium.call("<connector>.<name>", args) for ANY name, so a typo or a
  // connector that is down gets the host's typed answer. The global is a Proxy over a frozen,
  // prototype-less object holding the known tools (its keys; identity kept); its handler is a
  // frozen closure over the functions captured above. then, toJSON and symbols are undefined, so
  // await, JSON.stringify and the engine's own lookups leave it alone.
  const create = Object.create, hasOwn = Object.prototype.hasOwnProperty, ProxyCtor = Proxy;
  const MapCtor = Map, mapGet = Map.prototype.get, mapSet = Map.prototype.set;
  const viaCall = (address) => (args, options) => single("call", { __proto__: null, address, args, options });
  // An ambiguous name is refused like any call, with one Error per name, built at its first call.
  const refuse = (raw) => { let e; return () => { admit(); if (e === undefined) e = hostError(raw); return refusal(e); }; };
  function connectorGlobal(c) {
    const known = create(null);
    for (const t of c.tools) known[t.ident] = c.ambiguous !== undefined ? refuse(c.ambiguous) : t.ambiguous !== undefined ? refuse(t.ambiguous) : viaCall(t.address);
    freeze(known);
    const made = new MapCtor();
    const handler = freeze({ __proto__: null, get: (target, name) => {
      if (typeof name !== "string" || name === "then" || name === "toJSON") return undefined;
      if (apply(hasOwn, target, [name])) return target[name];
      let f = apply(mapGet, made, [name]);
      if (f === undefined) { f = c.ambiguous !== undefined ? refuse(c.ambiguous) : viaCall(c.connectorId + "." + name); apply(mapSet, made, [name, f]); }
      return f;
    } });
    return new ProxyCtor(known, handler);
  }

  const show = (v) => { if (typeof v === "string") return v; try { const s = stringify(v); return s === undefined ? StringCtor(v) : s; } catch (e) { return StringCtor(v); } };
  const console = {};
  // One character over the cap is kept so the worker still sees the line was too long.
  for (const level of ["log", "info", "warn", "error", "debug"]) console[level] = (...args) => { let s = ""; for (let i = 0; i < args.length && s.length <= LIMITS.log; i++) s += (i === 0 ? "" : " ") + show(args[i]); hostLog(level, s.length > LIMITS.log ? apply(strSlice, s, [0, LIMITS.log + 1]) : s); };
  pin("console", freeze(console));

  /** The JSON of a GuestError, built from strings only, each text cut at LIMITS.errorText. */
  const text = (s) => q(cut(s, LIMITS.errorText));
  function describeError(e) {
    if (e !== null && (typeof e === "object" || typeof e === "function")) {
      const report = getReport(e);
      if (report !== undefined) return report;
      let name, message, stack;
      try {
        const n = e.name, m = e.message, st = e.stack;
        name = n === undefined ? "Error" : StringCtor(n);
        message = m === undefined ? "non-Error thrown: " + show(e) : StringCtor(m);
        stack = typeof st === "string" ? lines(st, 12) : undefined;
      } catch (x) { name = "Error"; message = "an error that could not be read"; stack = undefined; }
      return '{"host":false,"name":' + text(name) + ',"message":' + text(message) + (stack === undefined ? "" : ',"stack":' + text(stack)) + '}';
    }
    // QuickJS throws null itself when it runs out of memory while building its out-of-memory error:
    // a null is reported as out of memory (the worker words it, saying a program's own null reads the same).
    if (e === null) return NULL_THROWN;
    return '{"host":false,"name":"Error","message":' + text("non-Error thrown: " + show(e)) + '}';
  }
  const NULL_THROWN = '{"host":false,"name":"InternalError","message":"out of memory","thrownNull":true}';
  const UNREPORTABLE = '{"host":false,"name":"InternalError","message":"out of memory while reporting the outcome of the program"}';
  const describe = (e) => { try { return describeError(e); } catch (x) { return UNREPORTABLE; } };

  // The run function: the worker calls it once with the program's thunk. A value whose JSON is
  // longer than LIMITS.value is sent as its beginning and its full length.
  const run = async (thunk) => {
    let out;
    try {
      let v = thunk();
      if (typeof v === "function") v = v();
      v = await v;
      let json = stringify(v === undefined ? null : v);
      if (json === undefined) json = "null";
      out = json.length <= LIMITS.value ? '{"ok":true,"json":' + q(json) + '}' : '{"ok":true,"json":' + q(apply(strSlice, json, [0, LIMITS.value])) + ',"jsonChars":' + json.length + '}';
    } catch (e) {
      out = '{"ok":false,"error":' + describe(e) + '}';
    }
    return out;
  };
  // configure(cfg): once, natively, before the program: the job's limits, the typed error every
  // call throws past HOST_CALL_REFUSALS_MAX, and one global per connector identifier.
  let configured = false;
  const configure = (cfg) => {
    if (configured) return;
    configured = true;
    const config = parse(cfg);
    LIMITS = config.limits;
    tooManyRefused = hostError(config.refusalsOver);
    for (const c of config.globals) { try { pin(c.ident, connectorGlobal(c)); } catch (e) { /* left to atrium.call */ } }
  };
  return { __proto__: null, configure, run, describeThrown: describe };
})();
`;
