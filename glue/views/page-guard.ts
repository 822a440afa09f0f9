// The page guard: the first script of every view page, in the shell's nested frame and in the
// offline file alike. CSP does not govern WebRTC, so a page that can construct RTCPeerConnection
// can send STUN over UDP to any host and port; the guard takes WebRTC (and media capture) away
// before any page script runs, and keeps the page from getting a fresh realm to fetch it from.
//
//   1. Every WebRTC constructor and navigator.mediaDevices/getUserMedia becomes a
//      non-configurable, non-writable `undefined` on the page's global (a delete or a redefine
//      fails; nothing else holds the originals).
//   2. No child frames (a child frame is a fresh realm): the frame element interfaces and
//      XSLTProcessor are removed the same way; createElement/createElementNS and every
//      HTML-string sink (innerHTML, outerHTML, insertAdjacentHTML, setHTMLUnsafe, setHTML,
//      parseHTMLUnsafe, document.write/writeln, DOMParser, createContextualFragment,
//      execCommand insertHTML) rename frame tags to inert `atrium-blocked-*` elements
//      (frame-tags.ts; document.write holds back a frame tag name split across calls; DOMParser
//      refuses XML with entity declarations). The page's own markup is rewritten the same way
//      by whoever builds the srcdoc. Under Trusted Types (PAGE_GUARD_CSP) the guard is also the
//      one default policy, so Chromium itself routes every HTML sink through the rewrite and
//      refuses javascript: URLs in child frames; a mutation observer removes any frame element
//      that still appears (document and shadow roots) before its document can load.
//   3. The guard captures every built-in it uses before the page runs, so a page that replaces
//      Function.prototype.call, String.prototype methods or Array setters cannot steer it; if
//      anything fails the guard detaches the document element (the parser goes on into a
//      detached tree, where no script runs) and throws.
//
// Sandbox (no allow-popups) already makes window.open return null, and the CSP's worker-src
// 'none' refuses workers; the child frames a sandboxed page could still make are cross-origin to
// it, so only a child's own script could use its constructors, and there are no child frames.
import { FRAME_NAMES, FRAME_TAGS_JS } from "./frame-tags.js";

/** A second policy for view pages only: Trusted Types with the guard as the only policy. */
export const PAGE_GUARD_CSP = "require-trusted-types-for 'script'; trusted-types default";

/** Globals that are gone from every view page (besides any own global named *RTC*). */
const GONE = [
  "RTCPeerConnection", "webkitRTCPeerConnection", "mozRTCPeerConnection", "RTCDataChannel", "RTCSessionDescription", "RTCIceCandidate",
  "RTCRtpSender", "RTCRtpReceiver", "RTCRtpTransceiver", "RTCDtlsTransport", "RTCIceTransport", "RTCSctpTransport", "RTCCertificate",
  "RTCEncodedAudioFrame", "RTCEncodedVideoFrame", "RTCRtpScriptTransform", "MediaStreamTrackGenerator", "MediaStreamTrackProcessor",
  "VideoTrackGenerator", "MediaDevices",
  "HTMLIFrameElement", "HTMLFrameElement", "HTMLFrameSetElement", "HTMLObjectElement", "HTMLEmbedElement", "HTMLFencedFrameElement",
  "HTMLPortalElement", "XSLTProcessor",
];
const NAVIGATOR_GONE = ["mediaDevices", "getUserMedia", "webkitGetUserMedia", "mozGetUserMedia", "getDisplayMedia"];

export const PAGE_GUARD_SCRIPT = String.raw`(function () {
  "use strict";
  var W = window, D = document, O = Object, apply = Reflect.apply, dp = O.defineProperty, gopd = O.getOwnPropertyDescriptor;
  var slice = String.prototype.slice, indexOf = String.prototype.indexOf, toLower = String.prototype.toLowerCase;
  var DocP = W.Document.prototype, ElP = W.Element.prototype, write = DocP.write, remove = ElP.remove, root = D.documentElement;
  try {
    var T = (${FRAME_TAGS_JS})(apply, slice), rewrite = T.rewrite;
    var WM = W.WeakMap, wmGet = WM.prototype.get, wmSet = WM.prototype.set, held = new WM();
    var MO = W.MutationObserver, observe = MO.prototype.observe, qsa = ElP.querySelectorAll, fqsa = W.DocumentFragment.prototype.querySelectorAll;
    var listLen = gopd(W.NodeList.prototype, "length").get, item = W.NodeList.prototype.item;
    var recNodes = gopd(W.MutationRecord.prototype, "addedNodes").get, nodeType = gopd(W.Node.prototype, "nodeType").get;
    var TypeErr = W.TypeError, isArray = Array.isArray;
    var SELECTOR = ${JSON.stringify(FRAME_NAMES.join(","))}, matches = ElP.matches;
    var OPTS = O.create(null); OPTS.childList = true; OPTS.subtree = true;

    function lock(obj, name, value) { dp(obj, name, { value: value, writable: false, enumerable: false, configurable: false }); }
    function str(v) { return "" + v; }
    function html(v) { return rewrite(str(v)); }

    // 1. WebRTC and media capture: gone from this realm.
    var gone = ${JSON.stringify(GONE)}, own = O.getOwnPropertyNames(W), i;
    for (i = 0; i < own.length; i++) if (/^(webkit|moz)?RTC/.test(own[i])) gone.push(own[i]);
    for (i = 0; i < gone.length; i++) lock(W, gone[i], undefined);
    var nav = ${JSON.stringify(NAVIGATOR_GONE)}, NavP = W.Navigator.prototype;
    for (i = 0; i < nav.length; i++) lock(NavP, nav[i], undefined);

    // 2. No child frames: every way to make a frame element from script makes an inert one.
    function method(obj, name, make) {
      var d = obj && gopd(obj, name);
      if (!d || typeof d.value !== "function") return;
      dp(obj, name, { value: make(d.value), writable: false, enumerable: d.enumerable, configurable: false });
    }
    function setter(obj, name) {
      var d = obj && gopd(obj, name);
      if (!d || typeof d.set !== "function") return;
      var set = d.set;
      dp(obj, name, { get: d.get, set: function (v) { apply(set, this, [v === null ? "" : html(v)]); }, enumerable: d.enumerable, configurable: false });
    }
    // Calls orig with argument number "at" passed through fix; the other arguments as given.
    function arg(at, fix) {
      return function (orig) {
        return function () {
          var n = arguments.length, a = arguments[0], b = arguments[1], c = arguments[2];
          if (at === 0 && n > 0) a = fix(a, b);
          if (at === 1 && n > 1) b = fix(b, a);
          if (at === 2 && n > 2) c = fix(c, a);
          return apply(orig, this, n === 0 ? [] : n === 1 ? [a] : n === 2 ? [a, b] : [a, b, c]);
        };
      };
    }
    var SR = W.ShadowRoot && W.ShadowRoot.prototype;
    method(DocP, "createElement", arg(0, function (q) { return T.name(str(q)); }));
    method(DocP, "createElementNS", arg(1, function (q) { return T.name(str(q)); }));
    setter(ElP, "innerHTML"); setter(ElP, "outerHTML"); setter(SR, "innerHTML");
    method(ElP, "insertAdjacentHTML", arg(1, html));
    method(ElP, "setHTMLUnsafe", arg(0, html)); method(SR, "setHTMLUnsafe", arg(0, html));
    method(ElP, "setHTML", arg(0, html)); method(SR, "setHTML", arg(0, html));
    method(W.Document, "parseHTMLUnsafe", arg(0, html)); method(W.Document, "parseHTML", arg(0, html));
    method(W.Range && W.Range.prototype, "createContextualFragment", arg(0, html));
    method(DocP, "execCommand", arg(2, function (v, cmd) { return apply(toLower, str(cmd), []) === "inserthtml" ? html(v) : v; }));
    method(W.DOMParser && W.DOMParser.prototype, "parseFromString", arg(0, function (s, type) {
      s = str(s);
      if (str(type) !== "text/html" && apply(indexOf, s, ["<!ENTITY"]) >= 0) throw new TypeErr("atrium: a view may not parse XML that declares entities");
      return rewrite(s);
    }));
    // document.write: a frame tag name split across calls is held back until the next call.
    function chunked(orig, tail) {
      return function () {
        var s = apply(wmGet, held, [this]) || "";
        for (var k = 0; k < arguments.length; k++) s += str(arguments[k]);
        s += tail;
        var cut = T.heldFrom(s);
        apply(wmSet, held, [this, apply(slice, s, [cut])]);
        return apply(orig, this, [rewrite(apply(slice, s, [0, cut]))]);
      };
    }
    method(DocP, "write", function (orig) { return chunked(orig, ""); });
    method(DocP, "writeln", function () { return chunked(write, "\n"); });

    // Trusted Types (PAGE_GUARD_CSP): the one default policy, so every HTML sink the engine knows passes the rewrite.
    if (W.trustedTypes && typeof W.trustedTypes.createPolicy === "function") {
      W.trustedTypes.createPolicy("default", {
        createHTML: function (s) { return rewrite(str(s)); },
        createScript: function (s) { return s; },
        createScriptURL: function (s) { return s; }
      });
    }

    // Catch-all: a frame element that still appears is removed before its document can load.
    function sweep(node) {
      var t = apply(nodeType, node, []);
      if (t === 1 && apply(matches, node, [SELECTOR])) { apply(remove, node, []); return; }
      if (t !== 1 && t !== 11) return;
      var list = apply(t === 1 ? qsa : fqsa, node, [SELECTOR]);
      for (var k = apply(listLen, list, []) - 1; k >= 0; k--) apply(remove, apply(item, list, [k]), []);
    }
    var mo = new MO(function (records) {
      if (!isArray(records)) return;
      for (var r = 0; r < records.length; r++) {
        var added = apply(recNodes, records[r], []), n = apply(listLen, added, []);
        for (var k = 0; k < n; k++) sweep(apply(item, added, [k]));
      }
    });
    apply(observe, mo, [D, OPTS]);
    method(ElP, "attachShadow", function (orig) {
      return function (init) { var sr = apply(orig, this, [init]); apply(observe, mo, [sr, OPTS]); return sr; };
    });

    if (W.RTCPeerConnection !== undefined || W.webkitRTCPeerConnection !== undefined || W.HTMLIFrameElement !== undefined) throw new TypeErr("atrium: the page guard did not hold");
  } catch (e) {
    // Fail closed: the parser goes on into a detached tree, where no page script runs.
    if (root) apply(remove, root, []);
    throw e;
  }
})();`;
