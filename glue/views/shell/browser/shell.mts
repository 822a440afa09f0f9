// The view shell's program: the one script of the shell document (see ../../shell-page.ts for
// the protocol with the host and with the page). Everything it is told by the server side
// arrives in ATRIUM_SHELL_INJECT (inject.d.ts), put in place by glue/build/view-shell.ts.
type Obj = Record<string, any>;
type Fault = Error & { code?: string; retryable?: boolean };
interface Binding { address: string; fixedArgs: Obj; viewArgs: string[] }
type Reads = Record<string, Binding>;
interface View { id: string; html: string; reads: Reads | null }
interface Call { resolve(v: unknown): void; reject(e: unknown): void; timer: ReturnType<typeof setTimeout> | 0 }
interface ReadError { code: string; message: string; retryable: boolean }

const I = ATRIUM_SHELL_INJECT;
const CSP = I.csp;
const SIZE_SCRIPT = I.sizeScript;
const READ_SCRIPT = I.readScript;
const MAX_IN_FLIGHT = I.maxReadsInFlight;
const GUARD_CSP = I.guardCsp;
const GUARD = I.guard;
const NAME_RE = I.bindingName;
const B = I.bounds;
const noFrames = I.frameTags(Reflect.apply, String.prototype.slice).rewrite;
const hasOwn = Object.prototype.hasOwnProperty;
const host = window.parent;
const root = document.getElementById("root")!;
const statusEl = document.getElementById("status")!;

let nextId = 1;
const calls = new Map<number, Call>();
let initialized = false, serverTools = false, queued: unknown[] = [];
let frame: HTMLIFrameElement | null = null, reads: Reads | null = null, currentId: string | null = null, wantId: string | null = null;
let inFlight = { n: 0 }, lastHeight = -1; // reads in flight, counted per rendered page

function send(msg: unknown): void { host.postMessage(msg, "*"); }
function notify(method: string, params: unknown): void { send({ jsonrpc: "2.0", method, params }); }
function request(method: string, params: unknown, timeoutMs?: number): Promise<any> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const timer = timeoutMs ? setTimeout(() => {
      calls.delete(id);
      reject(fault("timeout", method + " got no answer from the host within " + timeoutMs / I.msPerSecond + " s", true));
    }, timeoutMs) : 0;
    calls.set(id, { resolve, reject, timer });
    send({ jsonrpc: "2.0", id, method, params });
  });
}
function fault(code: string, message: string, retryable?: boolean): Fault { const e: Fault = new Error(message); e.code = code; e.retryable = !!retryable; return e; }
function isObj(v: unknown): v is Obj { return v !== null && typeof v === "object" && !Array.isArray(v); }
function clip(v: unknown): string { const s = String(v); return s.length > B.SHELL_ECHO_CHARS ? s.slice(0, B.SHELL_ECHO_CHARS) + "…" : s; }
function show(text: string): void { statusEl.textContent = text; statusEl.hidden = !text; reportSize(); }

// ---- the host (window.parent) ----
function fromHost(d: unknown): void {
  if (!isObj(d) || d.jsonrpc !== "2.0") return;
  if (typeof d.method === "string") {
    if (d.id !== undefined && d.id !== null) return answerHost(d);
    if (d.method === "ui/notifications/tool-result") {
      if (initialized) onToolResult(d.params);
      else if (queued.push(d.params) > B.SHELL_QUEUED_RESULTS_MAX) queued.shift();
    }
    return;
  }
  const pending = calls.get(d.id);
  if (!pending) return;
  calls.delete(d.id);
  clearTimeout(pending.timer);
  if (isObj(d.error)) pending.reject(fault("host_error", typeof d.error.message === "string" ? d.error.message : "the host answered with an error"));
  else pending.resolve(d.result);
}
function answerHost(d: Obj): void {
  if (d.method === "ui/resource-teardown" || d.method === "ping") send({ jsonrpc: "2.0", id: d.id, result: {} });
  else send({ jsonrpc: "2.0", id: d.id, error: { code: I.methodNotFound, message: "Method not found: " + clip(d.method) } });
}

// ---- tool results: render from _meta, else fetch by the view id ----
function onToolResult(p: unknown): void {
  if (!isObj(p)) return;
  const content = Array.isArray(p.content) ? p.content : [];
  const meta = isObj(p._meta) ? p._meta["atrium/view"] : undefined;
  if (meta === undefined && content.length === 0 && p.structuredContent === undefined) return;
  if (meta !== undefined) {
    const view = payload(meta);
    if (!view) { show("This view could not be shown: its payload is malformed."); return; }
    if (view.id === currentId || view.id === wantId) return;
    render(view);
    return;
  }
  const id = viewIdOf(p);
  if (!id || id === currentId || id === wantId) return;
  fetchView(id);
}
// The id of a view delivered inline ({"view":{"id","delivery":"inline"}}); a view written to a
// file or discarded has nothing to fetch.
function inlineViewId(o: unknown): string | null {
  return isObj(o) && isObj(o.view) && validId(o.view.id) && (o.view.delivery === undefined || o.view.delivery === "inline") ? o.view.id : null;
}
function viewIdOf(p: Obj): string | null {
  if (isObj(p.structuredContent)) return inlineViewId(p.structuredContent);
  const content: unknown[] = Array.isArray(p.content) ? p.content : [];
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    if (!isObj(b) || b.type !== "text" || typeof b.text !== "string" || b.text.indexOf("view") < 0) continue;
    try {
      const id = inlineViewId(JSON.parse(b.text));
      if (id) return id;
    } catch { /* not JSON */ }
  }
  return null;
}
function validId(id: unknown): id is string { return typeof id === "string" && id.length > 0 && id.length <= B.SHELL_VIEW_ID_CHARS_MAX; }
function fetchView(id: string): void {
  wantId = id;
  if (!serverTools) { show("This view could not be shown: the host lets views call no tools, so it cannot be fetched."); return; }
  show("Loading the view…");
  request("tools/call", { name: "get_view", arguments: { id } }, B.SHELL_VIEW_FETCH_MS).then((r) => {
    if (wantId !== id) return;
    if (isObj(r) && r.isError) { wantId = currentId; show("This view could not be shown: " + errorOf(r, null).message); return; }
    const view = payload(isObj(r) ? r.structuredContent : undefined);
    if (!view || view.id !== id) { wantId = currentId; show("This view could not be shown: get_view answered with a malformed payload."); return; }
    render(view);
  }, (e) => {
    if (wantId !== id) return;
    wantId = currentId;
    show("This view could not be shown: " + e.message);
  });
}
function payload(v: unknown): View | null {
  if (!isObj(v) || !validId(v.id) || typeof v.html !== "string") return null;
  const out: View = { id: v.id, html: v.html, reads: null };
  if (v.reads === undefined || v.reads === null) return out;
  if (!isObj(v.reads)) return null;
  const given = v.reads, map: Reads = Object.create(null);
  let n = 0;
  Object.keys(given).forEach((name) => {
    const b = given[name];
    if (!NAME_RE.test(name) || name === "constructor" || name === "prototype") return;
    if (!isObj(b) || typeof b.address !== "string") return;
    if (b.fixedArgs !== undefined && !isObj(b.fixedArgs)) return;
    if (b.viewArgs !== undefined && !(Array.isArray(b.viewArgs) && b.viewArgs.every((k: unknown) => typeof k === "string"))) return;
    const fixed: Obj = Object.create(null);
    if (b.fixedArgs) Object.keys(b.fixedArgs).forEach((k) => { fixed[k] = b.fixedArgs[k]; });
    map[name] = { address: b.address, fixedArgs: fixed, viewArgs: (b.viewArgs || []).slice() };
    n++;
  });
  if (n > 0) out.reads = map;
  return out;
}

// ---- the page ----
function render(view: View): void {
  currentId = wantId = view.id;
  reads = view.reads;
  inFlight = { n: 0 };
  const f = document.createElement("iframe");
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
function fromPage(d: unknown, win: MessageEventSource): void {
  if (!isObj(d)) return;
  if (isObj(d.atriumSize)) {
    const h = d.atriumSize.height;
    if (typeof h === "number" && isFinite(h)) {
      frame!.style.height = Math.max(0, Math.min(B.SHELL_FRAME_HEIGHT_MAX_PX, Math.ceil(h))) + "px";
      reportSize(); // also measured here: a zero-height host frame may not get ResizeObserver callbacks
    }
  } else if (isObj(d.atriumRead)) {
    onRead(d.atriumRead, win);
  }
}
function onRead(rq: Obj, win: MessageEventSource): void {
  const rid = rq.rid;
  if (!((typeof rid === "string" && rid.length <= B.SHELL_READ_ID_CHARS_MAX) || (typeof rid === "number" && isFinite(rid)))) return;
  const viewReads = reads, slots = inFlight;
  function answer(m: Obj): void { m.rid = rid; (win as Window).postMessage({ atriumReadResult: m }, "*"); }
  function fail(code: string, message: string, retryable?: boolean): void { answer({ ok: false, error: { code, message, retryable: !!retryable } }); }
  const name = rq.name, args = rq.args;
  if (!viewReads) return fail("not_found", "atrium.read: this view declared no reads");
  if (typeof name !== "string" || !hasOwn.call(viewReads, name)) {
    return fail("not_found", "atrium.read: no read named \"" + clip(name) + "\" was declared for this view (declared: " + Object.keys(viewReads).join(", ") + ")");
  }
  const b = viewReads[name];
  if (args !== undefined && (args === null || typeof args !== "object" || Object.getPrototypeOf(args) !== Object.prototype)) {
    return fail("invalid_args", "atrium.read(\"" + name + "\"): args must be a plain object");
  }
  const keys = args === undefined ? [] : Object.keys(args);
  for (let i = 0; i < keys.length; i++) {
    if (b.viewArgs.indexOf(keys[i]) < 0) {
      return fail("invalid_args", "atrium.read(\"" + name + "\"): the view may not set \"" + clip(keys[i]) + "\"" +
        (b.viewArgs.length ? " (it may set: " + b.viewArgs.join(", ") + ")" : " (it may set no arguments)"));
    }
  }
  let json: string | undefined;
  try { json = JSON.stringify(args === undefined ? {} : args); } catch { json = undefined; }
  if (typeof json !== "string") return fail("invalid_args", "atrium.read(\"" + name + "\"): args must be JSON data");
  if (json.length > B.SHELL_READ_ARGS_CHARS_MAX) return fail("invalid_args", "atrium.read(\"" + name + "\"): args are larger than " + B.SHELL_READ_ARGS_CHARS_MAX.toLocaleString("en-US") + " characters");
  if (slots.n >= MAX_IN_FLIGHT) {
    return fail("rate_limited", "atrium.read: at most " + MAX_IN_FLIGHT + " reads may be in flight at once; wait for one to settle and try again", true);
  }
  if (!serverTools) return fail("unavailable", "atrium.read: this host lets views call no tools, so reads cannot run here");
  const given: Obj = JSON.parse(json), merged: Obj = Object.create(null);
  Object.keys(b.fixedArgs).forEach((k) => { merged[k] = b.fixedArgs[k]; });
  Object.keys(given).forEach((k) => { merged[k] = given[k]; });
  slots.n++;
  request("tools/call", { name: "call_tool", arguments: { address: b.address, args: merged, resultMode: "value" }, _meta: { [I.viewReadMeta]: true } }, B.SHELL_READ_MS).then((r) => {
    slots.n--;
    const sc = isObj(r) ? r.structuredContent : undefined;
    if (isObj(r) && r.isError) answer({ ok: false, error: errorOf(r, b.address, name) });
    else if (isObj(sc) && sc.ok === true) answer({ ok: true, data: sc.data });
    else if (isObj(sc) && sc.truncated === true) fail("result_too_large", "atrium.read(\"" + name + "\"): the result is too large for a view; ask for less (fewer rows, fewer fields)");
    else fail("unavailable", "atrium.read(\"" + name + "\"): the host answered with an unexpected result");
  }, (e) => {
    slots.n--;
    fail(e.code === "timeout" ? "timeout" : "unavailable", "atrium.read(\"" + name + "\"): " + scrub(e.message, b.address, name), e.code === "timeout");
  });
}
function textOf(r: Obj): string {
  const c: unknown[] = Array.isArray(r.content) ? r.content : [];
  return c.filter((b): b is Obj => isObj(b) && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text).join("\n");
}
function errorOf(r: Obj, address: string | null, name?: string): ReadError {
  const sc = r.structuredContent, e = isObj(sc) && isObj(sc.error) ? sc.error : { message: textOf(r) || "the call failed" };
  return {
    code: typeof e.code === "string" ? e.code : "connector_call_failed",
    message: scrub(typeof e.message === "string" ? e.message : "the call failed", address, name),
    retryable: e.retryable === true,
  };
}
function scrub(text: unknown, address: string | null, name?: string): string {
  const s = String(text);
  return address ? s.split(address).join("read \"" + name + "\"") : s;
}

// ---- size: the shell's content height (never the viewport's) ----
function reportSize(): void {
  if (!initialized) return;
  const h = Math.ceil(root.getBoundingClientRect().height);
  if (h === lastHeight) return;
  lastHeight = h;
  notify("ui/notifications/size-changed", { height: h });
}

window.addEventListener("message", (event) => {
  if (event.source === host) fromHost(event.data);
  else if (frame && event.source === frame.contentWindow && event.source) fromPage(event.data, event.source);
});

request("ui/initialize", {
  appInfo: { name: "atrium-shell", version: I.version },
  appCapabilities: { availableDisplayModes: ["inline"] },
  protocolVersion: "2026-01-26",
}).then((r) => {
  const caps = isObj(r) && isObj(r.hostCapabilities) ? r.hostCapabilities : {};
  serverTools = isObj(caps.serverTools);
  initialized = true;
  notify("ui/notifications/initialized", {});
  new ResizeObserver(reportSize).observe(root);
  reportSize();
  const q = queued;
  queued = [];
  q.forEach(onToolResult);
}, (e) => {
  show("The host refused this view: " + e.message);
});

export {}; // a module: its names stay its own
