// The view shell: the one `ui://` resource atrium serves to MCP Apps hosts. It speaks the
// view↔host dialect (JSON-RPC 2.0 over postMessage), takes the page from a tool result's
// `_meta["atrium/view"]` (or fetches it by id through `get_view` when a host strips `_meta`),
// and renders it in a nested `sandbox="allow-scripts"` srcdoc frame under a no-network CSP, with
// the page guard (page-guard.ts: no WebRTC, no child frames) as the page's first script.
// The only thing the page can ask for is a declared read, which the shell checks and turns
// into a `call_tool` request in value mode; the page never sees the bound address.
//
// Hosts cache the resource by URI: any change to these bytes must bump the version segment
// of SHELL_URI (test/shell-version.test.ts enforces it against glue/views/shell-version.json).
//
// Messages between the shell and the page (both directions use postMessage with "*", since
// the page's origin is opaque; each side checks `event.source`):
//   page  → shell  { atriumSize: { height } }                 content height of the page
//   page  → shell  { atriumRead: { rid, name, args? } }       a declared read
//   shell → page   { atriumReadResult: { rid, ok: true, data } }
//   shell → page   { atriumReadResult: { rid, ok: false, error: { code, message, retryable } } }

import { core } from "../core.js";
import { Budget } from "../generated/spec.js";
import { FRAME_TAGS_JS } from "./frame-tags.js";
import { PAGE_GUARD_CSP, PAGE_GUARD_SCRIPT } from "./page-guard.js";

export const SHELL_URI = "ui://atrium/view/v1";
export const SHELL_MIME = "text/html;profile=mcp-app";

/** The Content-Security-Policy of the shell and of every page it renders. */
export const VIEW_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
  "connect-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; form-action 'none'; base-uri 'none'";

/** Reads a page may have in flight at once (view_reads_in_flight in spec/budgets.md); the next one is refused at once. */
const MAX_READS_IN_FLIGHT = core().limitDefault(Budget.view_reads_in_flight);

const SHELL_VERSION = SHELL_URI.slice(SHELL_URI.lastIndexOf("/v") + 2);

// Runs first inside the page's document: reports the page's content height, and (only when
// the view declared reads) defines a frozen `window.atrium = { read(name, args) }`.
// Written as plain ES2020; it is embedded as a string constant in the shell script below.
const PAGE_SIZE_SCRIPT = String.raw`(function () {
  "use strict";
  var P = window.parent, last = -1;
  function measure() {
    var el = document.documentElement;
    if (!el) return;
    var saved = el.style.height;
    el.style.height = "max-content";
    var h = Math.ceil(el.getBoundingClientRect().height);
    el.style.height = saved;
    if (h !== last) { last = h; P.postMessage({ atriumSize: { height: h } }, "*"); }
  }
  var ro = new ResizeObserver(measure);
  ro.observe(document.documentElement);
  document.addEventListener("DOMContentLoaded", function () { if (document.body) ro.observe(document.body); measure(); });
  window.addEventListener("load", measure);
})();`;

const PAGE_READ_SCRIPT = String.raw`(function () {
  "use strict";
  var P = window.parent, seq = 0, pending = new Map();
  window.addEventListener("message", function (event) {
    if (event.source !== P) return;
    var d = event.data, r = d && typeof d === "object" ? d.atriumReadResult : undefined;
    if (!r || typeof r !== "object" || !pending.has(r.rid)) return;
    var p = pending.get(r.rid);
    pending.delete(r.rid);
    if (r.ok === true) { p.resolve(r.data); return; }
    var e = r.error && typeof r.error === "object" ? r.error : {};
    var err = new Error(typeof e.message === "string" ? e.message : "the read failed");
    err.code = typeof e.code === "string" ? e.code : "unavailable";
    err.retryable = e.retryable === true;
    p.reject(err);
  });
  function read(name, args) {
    return new Promise(function (resolve, reject) {
      var rid = "r" + (++seq);
      pending.set(rid, { resolve: resolve, reject: reject });
      try { P.postMessage({ atriumRead: { rid: rid, name: name, args: args } }, "*"); }
      catch (e) { pending.delete(rid); reject(e); }
    });
  }
  Object.defineProperty(window, "atrium", { value: Object.freeze({ read: read }), enumerable: true });
})();`;

const SHELL_SCRIPT = String.raw`(function () {
  "use strict";
  var CSP = __CSP__;
  var SIZE_SCRIPT = __SIZE__;
  var READ_SCRIPT = __READ__;
  var MAX_IN_FLIGHT = __MAX__;
  var GUARD_CSP = __GUARD_CSP__;
  var GUARD = __GUARD__;
  var noFrames = (__FRAMES__)(Reflect.apply, String.prototype.slice).rewrite;
  var NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
  var hasOwn = Object.prototype.hasOwnProperty;
  var host = window.parent;
  var root = document.getElementById("root");
  var statusEl = document.getElementById("status");

  var nextId = 1, calls = new Map();
  var initialized = false, serverTools = false, queued = [];
  var frame = null, reads = null, currentId = null, wantId = null;
  var inFlight = { n: 0 }, lastHeight = -1; // reads in flight, counted per rendered page

  function send(msg) { host.postMessage(msg, "*"); }
  function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params }); }
  function request(method, params, timeoutMs) {
    return new Promise(function (resolve, reject) {
      var id = nextId++;
      var timer = timeoutMs ? setTimeout(function () {
        calls.delete(id);
        reject(fault("timeout", method + " got no answer from the host within " + timeoutMs / 1000 + " s", true));
      }, timeoutMs) : 0;
      calls.set(id, { resolve: resolve, reject: reject, timer: timer });
      send({ jsonrpc: "2.0", id: id, method: method, params: params });
    });
  }
  function fault(code, message, retryable) { var e = new Error(message); e.code = code; e.retryable = !!retryable; return e; }
  function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function clip(v) { var s = String(v); return s.length > 80 ? s.slice(0, 80) + "…" : s; }
  function show(text) { statusEl.textContent = text; statusEl.hidden = !text; reportSize(); }

  // ---- the host (window.parent) ----
  function fromHost(d) {
    if (!isObj(d) || d.jsonrpc !== "2.0") return;
    if (typeof d.method === "string") {
      if (d.id !== undefined && d.id !== null) return answerHost(d);
      if (d.method === "ui/notifications/tool-result") {
        if (initialized) onToolResult(d.params);
        else if (queued.push(d.params) > 4) queued.shift();
      }
      return;
    }
    var pending = calls.get(d.id);
    if (!pending) return;
    calls.delete(d.id);
    clearTimeout(pending.timer);
    if (isObj(d.error)) pending.reject(fault("host_error", typeof d.error.message === "string" ? d.error.message : "the host answered with an error"));
    else pending.resolve(d.result);
  }
  function answerHost(d) {
    if (d.method === "ui/resource-teardown" || d.method === "ping") send({ jsonrpc: "2.0", id: d.id, result: {} });
    else send({ jsonrpc: "2.0", id: d.id, error: { code: -32601, message: "Method not found: " + clip(d.method) } });
  }

  // ---- tool results: render from _meta, else fetch by the view id ----
  function onToolResult(p) {
    if (!isObj(p)) return;
    var content = Array.isArray(p.content) ? p.content : [];
    var meta = isObj(p._meta) ? p._meta["atrium/view"] : undefined;
    if (meta === undefined && content.length === 0 && p.structuredContent === undefined) return;
    if (meta !== undefined) {
      var view = payload(meta);
      if (!view) { show("This view could not be shown: its payload is malformed."); return; }
      if (view.id === currentId || view.id === wantId) return;
      render(view);
      return;
    }
    var id = viewIdOf(p);
    if (!id || id === currentId || id === wantId) return;
    fetchView(id);
  }
  // The id of a view delivered inline ({"view":{"id","delivery":"inline"}}); a view written to a
  // file or discarded has nothing to fetch.
  function inlineViewId(o) {
    return isObj(o) && isObj(o.view) && validId(o.view.id) && (o.view.delivery === undefined || o.view.delivery === "inline") ? o.view.id : null;
  }
  function viewIdOf(p) {
    if (isObj(p.structuredContent)) return inlineViewId(p.structuredContent);
    var content = Array.isArray(p.content) ? p.content : [];
    for (var i = 0; i < content.length; i++) {
      var b = content[i];
      if (!isObj(b) || b.type !== "text" || typeof b.text !== "string" || b.text.indexOf("view") < 0) continue;
      try {
        var id = inlineViewId(JSON.parse(b.text));
        if (id) return id;
      } catch (e) { /* not JSON */ }
    }
    return null;
  }
  function validId(id) { return typeof id === "string" && id.length > 0 && id.length <= 256; }
  function fetchView(id) {
    wantId = id;
    if (!serverTools) { show("This view could not be shown: the host lets views call no tools, so it cannot be fetched."); return; }
    show("Loading the view…");
    request("tools/call", { name: "get_view", arguments: { id: id } }, 30000).then(function (r) {
      if (wantId !== id) return;
      if (isObj(r) && r.isError) { wantId = currentId; show("This view could not be shown: " + errorOf(r, null).message); return; }
      var view = payload(isObj(r) ? r.structuredContent : undefined);
      if (!view || view.id !== id) { wantId = currentId; show("This view could not be shown: get_view answered with a malformed payload."); return; }
      render(view);
    }, function (e) {
      if (wantId !== id) return;
      wantId = currentId;
      show("This view could not be shown: " + e.message);
    });
  }
  function payload(v) {
    if (!isObj(v) || !validId(v.id) || typeof v.html !== "string") return null;
    var out = { id: v.id, html: v.html, reads: null };
    if (v.reads === undefined || v.reads === null) return out;
    if (!isObj(v.reads)) return null;
    var map = Object.create(null), n = 0;
    Object.keys(v.reads).forEach(function (name) {
      var b = v.reads[name];
      if (!NAME_RE.test(name) || name === "constructor" || name === "prototype") return;
      if (!isObj(b) || typeof b.address !== "string") return;
      if (b.fixedArgs !== undefined && !isObj(b.fixedArgs)) return;
      if (b.viewArgs !== undefined && !(Array.isArray(b.viewArgs) && b.viewArgs.every(function (k) { return typeof k === "string"; }))) return;
      var fixed = Object.create(null);
      if (b.fixedArgs) Object.keys(b.fixedArgs).forEach(function (k) { fixed[k] = b.fixedArgs[k]; });
      map[name] = { address: b.address, fixedArgs: fixed, viewArgs: (b.viewArgs || []).slice() };
      n++;
    });
    if (n > 0) out.reads = map;
    return out;
  }

  // ---- the page ----
  function render(view) {
    currentId = wantId = view.id;
    reads = view.reads;
    inFlight = { n: 0 };
    var f = document.createElement("iframe");
    f.id = "view";
    f.title = "View";
    f.setAttribute("sandbox", "allow-scripts");
    f.setAttribute("referrerpolicy", "no-referrer");
    f.setAttribute("allow", "");
    // The page guard runs first (page-guard.ts); the page's own markup has its frame tags renamed.
    f.srcdoc = "<!doctype html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"" + CSP + "\">" +
      "<meta http-equiv=\"Content-Security-Policy\" content=\"" + GUARD_CSP + "\">" +
      "<script>" + GUARD + SIZE_SCRIPT + (reads ? READ_SCRIPT : "") + "<\/script>" + noFrames(view.html);
    if (frame) frame.remove();
    frame = f;
    show("");
    root.appendChild(f);
  }
  function fromPage(d, win) {
    if (!isObj(d)) return;
    if (isObj(d.atriumSize)) {
      var h = d.atriumSize.height;
      if (typeof h === "number" && isFinite(h)) {
        frame.style.height = Math.max(0, Math.min(30000, Math.ceil(h))) + "px";
        reportSize(); // also measured here: a zero-height host frame may not get ResizeObserver callbacks
      }
    } else if (isObj(d.atriumRead)) {
      onRead(d.atriumRead, win);
    }
  }
  function onRead(rq, win) {
    var rid = rq.rid;
    if (!((typeof rid === "string" && rid.length <= 64) || (typeof rid === "number" && isFinite(rid)))) return;
    var viewReads = reads, slots = inFlight;
    function answer(m) { m.rid = rid; win.postMessage({ atriumReadResult: m }, "*"); }
    function fail(code, message, retryable) { answer({ ok: false, error: { code: code, message: message, retryable: !!retryable } }); }
    var name = rq.name, args = rq.args;
    if (!viewReads) return fail("not_found", "atrium.read: this view declared no reads");
    if (typeof name !== "string" || !hasOwn.call(viewReads, name)) {
      return fail("not_found", "atrium.read: no read named \"" + clip(name) + "\" was declared for this view (declared: " + Object.keys(viewReads).join(", ") + ")");
    }
    var b = viewReads[name];
    if (args !== undefined && (args === null || typeof args !== "object" || Object.getPrototypeOf(args) !== Object.prototype)) {
      return fail("invalid_args", "atrium.read(\"" + name + "\"): args must be a plain object");
    }
    var keys = args === undefined ? [] : Object.keys(args);
    for (var i = 0; i < keys.length; i++) {
      if (b.viewArgs.indexOf(keys[i]) < 0) {
        return fail("invalid_args", "atrium.read(\"" + name + "\"): the view may not set \"" + clip(keys[i]) + "\"" +
          (b.viewArgs.length ? " (it may set: " + b.viewArgs.join(", ") + ")" : " (it may set no arguments)"));
      }
    }
    var json;
    try { json = JSON.stringify(args === undefined ? {} : args); } catch (e) { json = undefined; }
    if (typeof json !== "string") return fail("invalid_args", "atrium.read(\"" + name + "\"): args must be JSON data");
    if (json.length > 100000) return fail("invalid_args", "atrium.read(\"" + name + "\"): args are larger than 100,000 characters");
    if (slots.n >= MAX_IN_FLIGHT) {
      return fail("rate_limited", "atrium.read: at most " + MAX_IN_FLIGHT + " reads may be in flight at once; wait for one to settle and try again", true);
    }
    if (!serverTools) return fail("unavailable", "atrium.read: this host lets views call no tools, so reads cannot run here");
    var given = JSON.parse(json), merged = Object.create(null);
    Object.keys(b.fixedArgs).forEach(function (k) { merged[k] = b.fixedArgs[k]; });
    Object.keys(given).forEach(function (k) { merged[k] = given[k]; });
    slots.n++;
    request("tools/call", { name: "call_tool", arguments: { address: b.address, args: merged, resultMode: "value" } }, 60000).then(function (r) {
      slots.n--;
      var sc = isObj(r) ? r.structuredContent : undefined;
      if (isObj(r) && r.isError) answer({ ok: false, error: errorOf(r, b.address, name) });
      else if (isObj(sc) && sc.ok === true) answer({ ok: true, data: sc.data });
      else if (isObj(sc) && sc.truncated === true) fail("result_too_large", "atrium.read(\"" + name + "\"): the result is too large for a view; ask for less (fewer rows, fewer fields)");
      else fail("unavailable", "atrium.read(\"" + name + "\"): the host answered with an unexpected result");
    }, function (e) {
      slots.n--;
      fail(e.code === "timeout" ? "timeout" : "unavailable", "atrium.read(\"" + name + "\"): " + scrub(e.message, b.address, name), e.code === "timeout");
    });
  }
  function textOf(r) {
    var c = Array.isArray(r.content) ? r.content : [];
    return c.filter(function (b) { return isObj(b) && b.type === "text" && typeof b.text === "string"; })
      .map(function (b) { return b.text; }).join("\n");
  }
  function errorOf(r, address, name) {
    var sc = r.structuredContent, e = isObj(sc) && isObj(sc.error) ? sc.error : { message: textOf(r) || "the call failed" };
    return {
      code: typeof e.code === "string" ? e.code : "connector_call_failed",
      message: scrub(typeof e.message === "string" ? e.message : "the call failed", address, name),
      retryable: e.retryable === true
    };
  }
  function scrub(text, address, name) {
    text = String(text);
    return address ? text.split(address).join("read \"" + name + "\"") : text;
  }

  // ---- size: the shell's content height (never the viewport's) ----
  function reportSize() {
    if (!initialized) return;
    var h = Math.ceil(root.getBoundingClientRect().height);
    if (h === lastHeight) return;
    lastHeight = h;
    notify("ui/notifications/size-changed", { height: h });
  }

  window.addEventListener("message", function (event) {
    if (event.source === host) fromHost(event.data);
    else if (frame && event.source === frame.contentWindow && event.source) fromPage(event.data, event.source);
  });

  request("ui/initialize", {
    appInfo: { name: "atrium-shell", version: __VERSION__ },
    appCapabilities: { availableDisplayModes: ["inline"] },
    protocolVersion: "2026-01-26"
  }).then(function (r) {
    var caps = isObj(r) && isObj(r.hostCapabilities) ? r.hostCapabilities : {};
    serverTools = isObj(caps.serverTools);
    initialized = true;
    notify("ui/notifications/initialized", {});
    new ResizeObserver(reportSize).observe(root);
    reportSize();
    var q = queued;
    queued = [];
    q.forEach(onToolResult);
  }, function (e) {
    show("The host refused this view: " + e.message);
  });
})();`
  .replace("__CSP__", () => JSON.stringify(VIEW_CSP))
  .replace("__SIZE__", () => JSON.stringify(PAGE_SIZE_SCRIPT))
  .replace("__READ__", () => JSON.stringify(PAGE_READ_SCRIPT))
  .replace("__MAX__", () => String(MAX_READS_IN_FLIGHT))
  .replace("__VERSION__", () => JSON.stringify(SHELL_VERSION))
  .replace("__GUARD_CSP__", () => JSON.stringify(PAGE_GUARD_CSP))
  .replace("__GUARD__", () => JSON.stringify(PAGE_GUARD_SCRIPT))
  .replace("__FRAMES__", () => FRAME_TAGS_JS);

const SHELL_STYLE = `html, body { margin: 0; padding: 0; background: transparent; }
#root { display: flow-root; }
#status { margin: 0; padding: 8px 12px; font: 13px/1.4 system-ui, sans-serif; color: #6b6b6b; }
#view { display: block; width: 100%; height: 0; border: 0; }`;

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>atrium view</title>
<style>
${SHELL_STYLE}
</style>
</head>
<body>
<div id="root"><p id="status" hidden></p></div>
<script>
${SHELL_SCRIPT}
</script>
</body>
</html>
`;

/** The shell document served at SHELL_URI with mime type SHELL_MIME. */
export function shellHtml(): string {
  return HTML;
}
