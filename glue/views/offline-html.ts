// A view for a host that cannot render one, as the bytes of a self-contained HTML file that shows
// the page in the same sandbox the shell uses (an allow-scripts srcdoc frame under a no-network
// CSP, the page guard first). Reads need the host that ran the program, so in the file they
// reject with a clear message. offline-file.ts writes it.
import { VIEW_CSP } from "./shell-page.js";
import { PAGE_GUARD_CSP, PAGE_GUARD_SCRIPT } from "./page-guard.js";
import { rewriteFrameTags } from "./frame-tags.js";

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

const READ_STUB = `<script>(() => { const read = () => Promise.reject(new Error("atrium.read needs the host that ran the program; this is an offline copy of the view")); Object.defineProperty(window, "atrium", { value: Object.freeze({ read }), configurable: false, writable: false }); })();</script>`;

export function offlineHtml(payload: { html: string; reads?: unknown }, title = "atrium view"): string {
  // The page guard runs first (page-guard.ts); the page's own markup has its frame tags renamed.
  const inner = `<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}"><meta http-equiv="Content-Security-Policy" content="${PAGE_GUARD_CSP}">` +
    `<script>${PAGE_GUARD_SCRIPT}</script>${payload.reads ? READ_STUB : ""}${rewriteFrameTags(payload.html)}`;
  return [
    "<!doctype html>",
    '<html><head><meta charset="utf-8">',
    // A srcdoc frame inherits this policy too, so it is the page's policy (no network, no frames by URL).
    `<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}">`,
    `<title>${title.replace(/</g, "&lt;")}</title>`,
    "<style>html,body{margin:0;background:#fff}iframe{border:0;width:100%;height:100vh;display:block}</style>",
    "</head><body>",
    `<iframe sandbox="allow-scripts" title="${escapeAttr(title)}" srcdoc="${escapeAttr(inner)}"></iframe>`,
    "</body></html>",
  ].join("\n");
}
