// Views get no nested frames: a child frame is a fresh realm with its own RTCPeerConnection
// (and CSP's frame-src does not stop srcdoc or javascript: frames). Every start or end tag whose
// local name is a frame element's is renamed `atrium-blocked-<name>`, an inert custom element,
// in the page's markup before it is parsed and in every HTML string the page hands the DOM.
//
// The rule exists twice, as the same scan: FRAME_TAGS_JS runs in the browser (the shell and
// the page guard, written so a page that tampers with built-ins cannot steer it) and
// rewriteFrameTags runs in Node for the offline file; test/views-guard.test.ts holds them equal.

/** Elements that own a browsing context (or did, in some engine). */
export const FRAME_NAMES = ["iframe", "frame", "frameset", "object", "embed", "fencedframe", "portal", "applet"] as const;

/** The prefix a frame tag's local name gets. @internal exported for its tests. */
export const BLOCKED_PREFIX = "atrium-blocked-";

// A tag name runs from "<" or "</" to whitespace, "/", ">" or "<" (the end of the string ends it too);
// its local part follows the last ":" (XML prefixes). Case is ASCII-insensitive, as in the tokenizer.
const END = "\\t\\n\\f\\r />";
const FRAME_TAG = new RegExp(`<(/?)([^${END}<]*:)?(${FRAME_NAMES.join("|")})(?=[${END}<]|$)`, "gi");

/** The markup with every frame tag renamed (Node side). */
export function rewriteFrameTags(html: string): string {
  return html.replace(FRAME_TAG, `<$1$2${BLOCKED_PREFIX}$3`);
}

/**
 * A JS function expression `function (apply, slice) { … }` (ES5, no "</" or "<!--" inside) that
 * returns `{ rewrite(s), heldFrom(s), name(q) }`:
 *   rewrite(s)   the rule above;
 *   heldFrom(s)  where an unfinished frame tag name at the end of s begins (s.length if none),
 *                so document.write can hold it back until the next chunk;
 *   name(q)      a qualified element name with a frame local name renamed.
 * It reads strings only by index and length and calls only the `slice` it is given, through the
 * `apply` it is given (Reflect.apply and String.prototype.slice captured before any page script).
 */
export const FRAME_TAGS_JS = String.raw`function (apply, slice) {
  var NAMES = ${JSON.stringify(FRAME_NAMES)}, UPPER = ${JSON.stringify(FRAME_NAMES.map((n) => n.toUpperCase()))}, MARK = ${JSON.stringify(BLOCKED_PREFIX)};
  function isEnd(c) { return c === "\t" || c === "\n" || c === "\f" || c === "\r" || c === " " || c === "/" || c === ">" || c === "<"; }
  // 1: s[from, to) is a frame name; 2: it is a proper prefix of one (or empty); 0: neither.
  function match(s, from, to) {
    var len = to - from, best = 0;
    for (var i = 0; i < NAMES.length; i++) {
      var n = NAMES[i], u = UPPER[i], j = 0;
      if (len > n.length) continue;
      while (j < len && (s[from + j] === n[j] || s[from + j] === u[j])) j++;
      if (j < len) continue;
      if (len === n.length) return 1;
      best = 2;
    }
    return best;
  }
  // The tag name after the "<" at lt: where its local part starts and where it ends.
  function tagAt(s, lt) {
    var n = s.length, start = lt + 1;
    if (start < n && s[start] === "/") start++;
    var end = start, local = start;
    while (end < n && !isEnd(s[end])) { if (s[end] === ":") local = end + 1; end++; }
    return { local: local, end: end };
  }
  function rewrite(s) {
    var out = "", last = 0, i = 0, n = s.length;
    while (i < n) {
      if (s[i] !== "<") { i++; continue; }
      var t = tagAt(s, i);
      if (match(s, t.local, t.end) === 1) { out += apply(slice, s, [last, t.local]) + MARK; last = t.local; }
      i = t.end > i + 1 ? t.end : i + 1;
    }
    return last === 0 ? s : out + apply(slice, s, [last, n]);
  }
  function heldFrom(s) {
    var n = s.length, lt = n;
    while (lt > 0 && s[lt - 1] !== "<") lt--;
    if (lt === 0) return n;
    var t = tagAt(s, lt - 1);
    return t.end === n && match(s, t.local, n) > 0 ? lt - 1 : n;
  }
  function name(q) {
    var local = q.length;
    while (local > 0 && q[local - 1] !== ":") local--;
    return match(q, local, q.length) === 1 ? apply(slice, q, [0, local]) + MARK + apply(slice, q, [local]) : q;
  }
  return { rewrite: rewrite, heldFrom: heldFrom, name: name };
}`;
