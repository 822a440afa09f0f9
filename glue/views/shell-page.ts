// The view shell: the one `ui://` resource atrium serves to MCP Apps hosts. It speaks the
// view↔host dialect (JSON-RPC 2.0 over postMessage), takes the page from a tool result's
// `_meta["atrium/view"]` (or fetches it by id through `get_view` when a host strips `_meta`),
// and renders it in a nested `sandbox="allow-scripts"` srcdoc frame under a no-network CSP, with
// the page guard (page-guard.ts: no WebRTC, no child frames) as the page's first script.
// The only thing the page can ask for is a declared read, which the shell checks and turns
// into a `call_tool` request in value mode; the page never sees the bound address.
//
// The shell's program is browser TypeScript in glue/views/shell/browser/ (its own tsconfig, DOM
// lib); glue/build/view-shell.ts bundles it at build time (`vite build`) into the one document,
// dist/bundle/SHELL_FILE, which this module reads. The server never loads vite.
//
// Hosts cache the resource by URI: any change to these bytes must bump the version segment
// of SHELL_URI (test/views-shell-version.test.ts enforces it against glue/views/shell-version.json).
//
// Messages between the shell and the page (both directions use postMessage with "*", since
// the page's origin is opaque; each side checks `event.source`):
//   page  → shell  { atriumSize: { height } }                 content height of the page
//   page  → shell  { atriumRead: { rid, name, args? } }       a declared read
//   shell → page   { atriumReadResult: { rid, ok: true, data } }
//   shell → page   { atriumReadResult: { rid, ok: false, error: { code, message, retryable } } }

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { binPath } from "../support/paths.js";

export const SHELL_URI = "ui://atrium/view/v1";
export const SHELL_MIME = "text/html;profile=mcp-app";
/** The `_meta` key of the shell's call_tool requests for a view's reads (the activity log records their path as "view"). */
export const VIEW_READ_META = "atrium/viewRead";

/** The Content-Security-Policy of the shell and of every page it renders. */
export const VIEW_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
  "connect-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; form-action 'none'; base-uri 'none'";

/** The built shell document's name in dist/bundle/ (written by glue/build/view-shell.ts). @internal exported for the shell bundler (build/view-shell.ts). */
export const SHELL_FILE = "view-shell.html";

const shellPath = join(dirname(binPath), "..", "dist", "bundle", SHELL_FILE);
let html: string | undefined;

/** The shell document served at SHELL_URI with mime type SHELL_MIME. */
export function shellHtml(): string {
  if (html === undefined) {
    try {
      html = readFileSync(shellPath, "utf8");
    } catch (e) {
      throw new Error(`atrium: the view shell is not built (${shellPath}): run \`npm run build\``, { cause: e });
    }
  }
  return html;
}
