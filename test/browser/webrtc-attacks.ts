// A view page that tries every way we know to reach WebRTC (and so send STUN over UDP to a
// host and port of its choosing), each attack aimed at its own UDP port so a leak names the
// attack. The page writes one "name: outcome" line per attack into <pre id="out"> and adds
// <p id="done"> when all have run. Used by test/browser/webrtc.test.ts.
import dgram from "node:dgram";

/** A UDP socket on 127.0.0.1 that counts what arrives. */
export interface Listener { port: number; packets: number; close(): Promise<void> }

export async function udpListener(): Promise<Listener> {
  const sock = dgram.createSocket("udp4");
  const l = { port: 0, packets: 0, close: () => new Promise<void>((r) => sock.close(() => r())) };
  sock.on("message", () => { l.packets++; });
  await new Promise<void>((r) => sock.bind(0, "127.0.0.1", () => r()));
  l.port = sock.address().port;
  return l;
}

/** JS that makes the constructor named `ctor` (an expression) send STUN binding requests to `port`. */
const stun = (port: number, ctor = "RTCPeerConnection") =>
  `(function () { var C = ${ctor}; var pc = new C({ iceServers: [{ urls: "stun:127.0.0.1:${port}" }] }); pc.createDataChannel("d"); ` +
  `pc.createOffer().then(function (o) { return pc.setLocalDescription(o); }); return "sent"; })()`;

/** A document whose only script is the attack. */
const childDoc = (port: number) => `<script>${stun(port)}</script>`;
const attr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
/** A JS string literal that is safe inside an inline <script>. */
const js = (s: string) => JSON.stringify(s).replace(/<\//g, "<\\/").replace(/<!--/g, "<\\!--");

export const ATTACKS = [
  "direct", "webkit", "recovered", "mediaDevices", "child-window", "script-srcdoc", "markup-srcdoc", "innerHTML-srcdoc",
  "write-split", "javascript-url", "markup-javascript-url", "domparser", "xml-entity", "shadow-root", "markup-shadow-root",
  "createElementNS", "markup-template", "markup-object", "window-open", "worker", "custom-builtin", "tampered-builtins",
] as const;
export type Attack = (typeof ATTACKS)[number];

/** The hostile page: `ports[attack]` is the UDP port that attack aims at. */
export function attackPage(ports: Record<Attack, number>): string {
  const p = ports;
  const blob = (port: number) => `var f = document.createElement("iframe"); f.srcdoc = ${js(childDoc(port))}; document.body.appendChild(f);`;
  return `<pre id="out"></pre>
<iframe id="markup-srcdoc" srcdoc="${attr(childDoc(p["markup-srcdoc"]))}"></iframe>
<iframe src="javascript:${attr(encodeURIComponent(stun(p["markup-javascript-url"])))}"></iframe>
<div><template shadowrootmode="closed"><iframe srcdoc="${attr(childDoc(p["markup-shadow-root"]))}"></iframe></template></div>
<template id="tpl"><iframe srcdoc="${attr(childDoc(p["markup-template"]))}"></iframe></template>
<object data="data:text/html,${attr(encodeURIComponent(childDoc(p["markup-object"])))}" type="text/html"></object>
<embed src="data:text/html,${attr(encodeURIComponent(childDoc(p["markup-object"])))}" type="text/html">
<script>
function note(k, v) { document.getElementById("out").textContent += k + ": " + v + "\\n"; }
function attempt(name, fn) { try { note(name, String(fn())); } catch (e) { note(name, "threw " + (e && e.name)); } }
attempt("direct", function () { return ${stun(p.direct)}; });
attempt("webkit", function () { return ${stun(p.webkit, "webkitRTCPeerConnection")}; });
attempt("recovered", function () {
  // Deleting, redefining and walking the prototype chain must not bring a constructor back.
  try { delete window.RTCPeerConnection; } catch (e) {}
  try { Object.defineProperty(window, "RTCPeerConnection", { value: undefined, configurable: true }); } catch (e) {}
  var found = [];
  for (var o = window; o; o = Object.getPrototypeOf(o)) {
    Object.getOwnPropertyNames(o).forEach(function (k) {
      if (!/RTC/.test(k)) return;
      var d = Object.getOwnPropertyDescriptor(o, k), v = d && (d.value || (d.get && d.get.call(window)));
      if (typeof v === "function") found.push(v);
    });
  }
  if (window.RTCSessionDescription) found.push(RTCSessionDescription.prototype.constructor);
  var out = [];
  found.forEach(function (C) { try { out.push(${stun(p.recovered, "C")}); } catch (e) { out.push("threw"); } });
  return "found " + found.length + " " + out.join(",");
});
attempt("mediaDevices", function () { return typeof navigator.mediaDevices + " " + typeof navigator.getUserMedia + " " + typeof navigator.webkitGetUserMedia; });
attempt("child-window", function () {
  var f = document.createElement("iframe"); document.body.appendChild(f);
  var out = [];
  [function () { return f.contentWindow; }, function () { return window[0]; }, function () { return frames[frames.length - 1]; }].forEach(function (get) {
    try { var w = get(); if (w) { var RTCPeerConnection = w.RTCPeerConnection; out.push(${stun(p["child-window"])}); } else out.push("none"); } catch (e) { out.push("threw " + e.name); }
  });
  return out.join(",");
});
attempt("script-srcdoc", function () { ${blob(p["script-srcdoc"])} return "frames " + window.length; });
attempt("innerHTML-srcdoc", function () {
  var d = document.createElement("div"); document.body.appendChild(d);
  d.innerHTML = ${js(`<iframe srcdoc="${attr(childDoc(p["innerHTML-srcdoc"]))}"></iframe>`)};
  d.insertAdjacentHTML("beforeend", ${js(`<IFRAME srcdoc="${attr(childDoc(p["innerHTML-srcdoc"]))}"></IFRAME>`)});
  document.createRange().createContextualFragment(${js(`<iframe srcdoc="${attr(childDoc(p["innerHTML-srcdoc"]))}">`)}).childNodes.forEach(function (n) { d.appendChild(n); });
  return "frames " + window.length;
});
</script>
<script>document.write("<ifr"); document.write("ame srcdoc=\\"" + ${js(attr(childDoc(p["write-split"])))} + "\\"></iframe>");</script>
<!-- With the "<" held back, the rest is text, and its entity-escaped <script> a syntax error: expected. -->
<script>document.write("<"); note("write-split", "written");</script>iframe srcdoc="${attr(childDoc(p["write-split"]))}"></iframe>
<script>
attempt("javascript-url", function () {
  var f = document.createElement("iframe"); f.src = "javascript:" + encodeURIComponent(${js(stun(p["javascript-url"]))}); document.body.appendChild(f);
  return "frames " + window.length;
});
attempt("domparser", function () {
  var doc = new DOMParser().parseFromString(${js(`<iframe srcdoc="${attr(childDoc(p.domparser))}"></iframe>`)}, "text/html");
  var f = doc.querySelector("iframe, [srcdoc]");
  if (f) document.body.appendChild(document.adoptNode(f));
  return "found " + !!f;
});
attempt("xml-entity", function () {
  var xml = '<!DOCTYPE r [<!ENTITY e "&#60;iframe xmlns=&#34;http://www.w3.org/1999/xhtml&#34; srcdoc=&#34;' + ${js(attr(childDoc(p["xml-entity"])).replace(/"/g, "&#34;"))} + '&#34;/>">]><r>&e;</r>';
  var doc = new DOMParser().parseFromString(xml, "application/xml");
  var f = doc.getElementsByTagNameNS("http://www.w3.org/1999/xhtml", "iframe")[0];
  if (f) document.body.appendChild(document.importNode(f, true));
  return "found " + !!f;
});
attempt("shadow-root", function () {
  var out = [];
  var h = document.createElement("div"); document.body.appendChild(h);
  var r = h.attachShadow({ mode: "closed" });
  r.innerHTML = ${js(`<iframe srcdoc="${attr(childDoc(p["shadow-root"]))}"></iframe>`)};
  var h2 = document.createElement("div"); document.body.appendChild(h2);
  try { h2.setHTMLUnsafe(${js(`<template shadowrootmode="closed"><iframe srcdoc="${attr(childDoc(p["shadow-root"]))}"></iframe></template>`)}); out.push("setHTMLUnsafe"); } catch (e) { out.push("threw " + e.name); }
  return out.join(",");
});
attempt("createElementNS", function () {
  var f = document.createElementNS("http://www.w3.org/1999/xhtml", "h:iframe");
  f.setAttribute("srcdoc", ${js(childDoc(p.createElementNS))}); document.body.appendChild(f);
  var g = document.implementation.createHTMLDocument("x").createElement("IFRAME");
  g.setAttribute("srcdoc", ${js(childDoc(p.createElementNS))}); document.body.appendChild(document.adoptNode(g));
  return f.localName + "," + g.localName;
});
attempt("markup-template", function () {
  var c = document.importNode(document.getElementById("tpl").content, true); document.body.appendChild(c);
  return "frames " + window.length;
});
attempt("window-open", function () { var w = window.open("javascript:" + encodeURIComponent(${js(stun(p["window-open"]))})); return String(w); });
attempt("worker", function () {
  var w = new Worker(URL.createObjectURL(new Blob([${js(`try { ${stun(p.worker)} } catch (e) {}`)}], { type: "text/javascript" })));
  return "created";
});
attempt("custom-builtin", function () {
  class F extends HTMLIFrameElement {}
  customElements.define("x-frame", F, { extends: "iframe" });
  var f = new F(); f.srcdoc = ${js(childDoc(p["custom-builtin"]))}; document.body.appendChild(f);
  return "frames " + window.length;
});
attempt("tampered-builtins", function () {
  // Replace what a guard might call at use time, then use the sinks; put everything back after.
  var frame = ${js(`<iframe srcdoc="${attr(childDoc(p["tampered-builtins"]))}"></iframe>`)};
  var saved = { slice: String.prototype.slice, lower: String.prototype.toLowerCase, indexOf: String.prototype.indexOf, apply: Reflect.apply, call: Function.prototype.call, fapply: Function.prototype.apply };
  var out = "";
  try {
    String.prototype.slice = function () { return frame; };
    String.prototype.toLowerCase = function () { return "div"; };
    String.prototype.indexOf = function () { return -1; };
    Reflect.apply = function (f, t, a) { return saved.fapply.call(f, t, [frame, frame, frame]); };
    Function.prototype.call = function () { return frame; };
    Object.defineProperty(Array.prototype, "0", { get: function () { return frame; }, set: function () {}, configurable: true });
    Object.defineProperty(Array.prototype, "1", { get: function () { return frame; }, set: function () {}, configurable: true });
    var d = document.createElement("div"); document.body.appendChild(d);
    d.innerHTML = "<b>x</b>";
    d.insertAdjacentHTML("beforeend", "<i>y</i>");
    var e = document.createElement("div"); document.body.appendChild(e);
    out = e.localName;
  } catch (err) { out = "threw " + err.name; }
  finally {
    delete Array.prototype[0]; delete Array.prototype[1];
    String.prototype.slice = saved.slice; String.prototype.toLowerCase = saved.lower; String.prototype.indexOf = saved.indexOf;
    Reflect.apply = saved.apply; Function.prototype.call = saved.call;
  }
  return out + " frames " + window.length;
});
note("frames", window.length);
var d = document.createElement("p"); d.id = "done"; d.textContent = "done"; document.body.appendChild(d);
</script>`;
}
