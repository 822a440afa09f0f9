// The document atrium serves for a downstream UI (ui://atrium/c/<connector>/…): a relay of
// atrium's own holding the downstream's page in a nested frame, so that every tools/call the
// page makes is attributed to its connector (spec/app-calls.md, "How atrium knows whose app is
// calling").
//
// The page runs in `<iframe sandbox="allow-scripts allow-forms">` from srcdoc: another realm
// with an opaque origin. It reaches neither this relay's script nor the host: the host listens
// to the frame it rendered (this relay), and a message the page posts to `top` comes from the
// wrong source. The relay, both ways:
//   page → host  tools/call            becomes call_app_tool { connector, tool, arguments } (the
//                                      connector written here by atrium); never another name
//                ui/*, ping, sampling/createMessage, notifications/*, answers to the host's
//                                      requests: passed on as they are (ui/notifications/sandbox-*
//                                      are the host's own and never passed on)
//                any other request     answered MethodNotFound here (resources/*, prompts/*,
//                                      tools/list…: atrium relays no downstream resource but this one)
//   host → page  everything but ui/notifications/sandbox-*; tool-input(-partial) whose arguments
//                are a direct call of this connector's tool ({ address, args, … }) hand the page
//                the tool's own arguments (`args`)
// The policy in the <meta> binds this document and, inherited, the page (cspFor in csp.ts).
// CSP does not govern WebRTC, so the page gets the page guard atrium's own views get
// (views/page-guard.ts) as its first script, with the guard's Trusted Types policy, and its
// markup's frame tags renamed (views/frame-tags.ts): no WebRTC or media capture, no child frame.
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { PAGE_GUARD_CSP, PAGE_GUARD_SCRIPT } from "../views/page-guard.js";
import { rewriteFrameTags } from "../views/frame-tags.js";

/** atrium's app-only tool a page's tools/call becomes (glue/mcp/tools/call-app-tool.ts). */
export const APP_CALL_TOOL = "call_app_tool";

/** Runs in the relay document: reads its config, builds the nested frame, relays. */
const RELAY_SCRIPT = `(() => {
  "use strict";
  const cfg = JSON.parse(document.getElementById("atrium-relay").textContent);
  const bytes = Uint8Array.from(atob(cfg.html), (c) => c.charCodeAt(0));
  const html = new TextDecoder().decode(bytes);
  const host = window.parent;
  const frame = document.createElement("iframe");
  frame.id = "app";
  frame.title = cfg.connector;
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  if (cfg.allow) frame.setAttribute("allow", cfg.allow);
  document.body.appendChild(frame);
  const app = frame.contentWindow;
  const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
  const passes = (m) => (m.startsWith("ui/") && !m.startsWith("ui/notifications/sandbox-")) || m === "ping" || m === "sampling/createMessage" || m.startsWith("notifications/");
  const fromApp = (msg) => {
    if (!isObject(msg) || msg.jsonrpc !== "2.0") return;
    const request = Object.hasOwn(msg, "id");
    if (typeof msg.method !== "string") { if (request) host.postMessage(msg, "*"); return; }
    if (msg.method === "tools/call") {
      if (!request) return;
      const p = isObject(msg.params) ? msg.params : {};
      const params = { name: cfg.tool, arguments: { connector: cfg.connector, tool: typeof p.name === "string" ? p.name : "", arguments: isObject(p.arguments) ? p.arguments : {} } };
      if (isObject(p._meta)) params._meta = p._meta;
      host.postMessage({ jsonrpc: "2.0", id: msg.id, method: "tools/call", params }, "*");
    } else if (passes(msg.method)) {
      host.postMessage(msg, "*");
    } else if (request) {
      app.postMessage({ jsonrpc: "2.0", id: msg.id, error: { code: cfg.methodNotFound, message: "atrium does not relay " + msg.method + " from a downstream app" } }, "*");
    }
  };
  const fromHost = (msg) => {
    if (!isObject(msg) || msg.jsonrpc !== "2.0") return;
    if (typeof msg.method === "string" && msg.method.startsWith("ui/notifications/sandbox-")) return;
    if ((msg.method === "ui/notifications/tool-input" || msg.method === "ui/notifications/tool-input-partial") && isObject(msg.params) && isObject(msg.params.arguments)) {
      const a = msg.params.arguments;
      if (typeof a.address === "string" && a.address.startsWith(cfg.connector + ".")) msg = { ...msg, params: { ...msg.params, arguments: isObject(a.args) ? a.args : {} } };
    }
    app.postMessage(msg, "*");
  };
  window.addEventListener("message", (e) => {
    if (e.source === app) fromApp(e.data);
    else if (e.source === host && host !== window) fromHost(e.data);
  });
  frame.srcdoc = html;
})();`;

export interface RelayPage {
  connector: string;
  /** The downstream's document, as it served it. */
  html: string;
  /** The Content-Security-Policy to declare (csp.ts cspFor). */
  csp: string;
  /** The nested frame's `allow` attribute (csp.ts allowAttribute). */
  allow: string;
}

/** JSON that cannot end a <script> element: every `<` written as an escape. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");
/** A value inside a double-quoted attribute. */
const attribute = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** A leading doctype (after a byte-order mark, whitespace and comments): it stays first so the page keeps its rendering mode. */
const LEADING_DOCTYPE = /^\uFEFF?(?:\s|<!--[\s\S]*?-->)*<!doctype[^>]*>/i;

/** The downstream's document with the page guard as its first script and its frame tags renamed. */
function guardedPage(html: string): string {
  const doctype = LEADING_DOCTYPE.exec(html)?.[0] ?? "";
  const guard = `<meta http-equiv="Content-Security-Policy" content="${PAGE_GUARD_CSP}"><script>${PAGE_GUARD_SCRIPT}</script>`;
  return `${doctype}${guard}${rewriteFrameTags(html.slice(doctype.length))}`;
}

/** The relay document for one downstream UI. The page travels base64 (its size known in advance: 4/3 of its bytes). */
export function relayPage(p: RelayPage): string {
  const config = { connector: p.connector, tool: APP_CALL_TOOL, allow: p.allow, methodNotFound: ProtocolErrorCode.MethodNotFound, html: Buffer.from(guardedPage(p.html), "utf8").toString("base64") };
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${attribute(p.csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${attribute(p.connector)}</title>`,
    "<style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}#app{display:block;border:0;width:100%;height:100%}</style>",
    "</head><body>",
    `<script type="application/json" id="atrium-relay">${scriptJson(config)}</script>`,
    `<script>${RELAY_SCRIPT}</script>`,
    "</body></html>",
  ].join("\n");
}
