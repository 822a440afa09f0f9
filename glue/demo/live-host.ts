// `atrium demo --serve`: a minimal MCP Apps host on 127.0.0.1 so a person can use the demo view
// live. The page embeds atrium's own shell (ui://atrium/view/v1) in a sandboxed frame, speaks
// the host side of the view dialect, and forwards the shell's tools/call requests — only
// call_tool and get_view — to the running atrium, so every read crosses the read-only gate.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DEMO_HOST_BODY_CHARS_MAX } from "../decisions/generated/spec.js";
import { HTTP_STATUS } from "../support/wire.js";

type CallTool = (name: string, args: Record<string, unknown>) => Promise<unknown>;
const FORWARDED = new Set(["call_tool", "get_view"]);

const hostPage = (shell: string, result: unknown, version: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>atrium demo — live view</title>
<style>body{margin:0;font:14px system-ui,sans-serif;background:#e9ecf1}header{padding:10px 16px;background:#1d2330;color:#fff}
main{max-width:1100px;margin:16px auto;background:#fff;border-radius:10px;box-shadow:0 2px 8px #0002;overflow:hidden}iframe{border:0;width:100%;height:200px;display:block}</style>
</head><body><header>atrium ${version} demo host — the view below is rendered by atrium's shell; refresh and drill-down go through call_tool</header>
<main><iframe id="shell" sandbox="allow-scripts" title="atrium view"></iframe></main>
<script>
const SHELL = ${JSON.stringify(shell).replace(/</g, "\\u003c")};
const RESULT = ${JSON.stringify(result).replace(/</g, "\\u003c")};
const frame = document.getElementById("shell");
const send = (m) => frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*");
window.addEventListener("message", async (ev) => {
  if (ev.source !== frame.contentWindow) return;
  const m = ev.data || {};
  if (m.method === "ui/initialize") {
    send({ id: m.id, result: { protocolVersion: "2026-01-26", hostInfo: { name: "atrium-demo-host", version: "${version}" },
      hostCapabilities: { serverTools: {} }, hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"] } } });
  } else if (m.method === "ui/notifications/initialized") {
    send({ method: "ui/notifications/tool-input", params: { arguments: {} } });
    send({ method: "ui/notifications/tool-result", params: RESULT });
  } else if (m.method === "ui/notifications/size-changed" && m.params && m.params.height > 0) {
    frame.style.height = Math.ceil(m.params.height) + "px";
  } else if (m.method === "ping") {
    send({ id: m.id, result: {} });
  } else if (m.method === "tools/call") {
    try {
      const r = await fetch("/call", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(m.params) });
      const body = await r.json();
      send(r.ok ? { id: m.id, result: body } : { id: m.id, error: { code: -32603, message: body.error || "call failed" } });
    } catch (e) { send({ id: m.id, error: { code: -32603, message: String(e) } }); }
  } else if (m.id !== undefined && m.method) {
    send({ id: m.id, error: { code: -32601, message: "not supported by the demo host: " + m.method } });
  }
});
frame.srcdoc = SHELL;
</script></body></html>`;

/** The demo host, listening; it serves the page once `show` hands it the view (until then every path is 404). */
export interface LiveHost {
  url: string;
  server: Server;
  show(view: { shell: string; result: unknown; callTool: CallTool }): void;
}

/**
 * Listens on 127.0.0.1 first (`port`: the operator's, else any free one), so a busy port is known
 * before the demo runs: it answers a one-line reason instead of a host.
 */
export async function openLiveHost(version: string, port?: number): Promise<LiveHost | { refused: string }> {
  let view: { page: string; callTool: CallTool } | undefined;
  const server = createServer((req, res) => {
    if (view && req.method === "GET" && (req.url === "/" || req.url === "/index.html")) {
      res.writeHead(HTTP_STATUS.ok, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(view.page);
      return;
    }
    if (view && req.method === "POST" && req.url === "/call") {
      const { callTool } = view;
      let body = "";
      req.on("data", (c) => { body += c; if (body.length > DEMO_HOST_BODY_CHARS_MAX) req.destroy(); });
      req.on("end", async () => {
        try {
          const { name, arguments: args } = JSON.parse(body) as { name?: string; arguments?: Record<string, unknown> };
          if (typeof name !== "string" || !FORWARDED.has(name)) throw new Error(`the demo host forwards only ${[...FORWARDED].join(" and ")}`);
          res.writeHead(HTTP_STATUS.ok, { "content-type": "application/json" }).end(JSON.stringify(await callTool(name, args ?? {})));
        } catch (e) {
          res.writeHead(HTTP_STATUS.badRequest, { "content-type": "application/json" }).end(JSON.stringify({ error: (e as Error).message }));
        }
      });
      return;
    }
    res.writeHead(HTTP_STATUS.notFound).end();
  });
  const failed = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once("error", resolve);
    server.listen(port ?? 0, "127.0.0.1", () => resolve(undefined));
  });
  if (failed) {
    const which = `port ${port ?? 0} on 127.0.0.1`;
    const why = failed.code === "EADDRINUSE" ? `${which} is in use` : failed.code === "EACCES" ? `${which} needs privileges this user lacks` : `${which} could not be opened (${failed.code ?? failed.message})`;
    return { refused: `${why}; choose another with --port N, or leave --port out for any free port` };
  }
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    server,
    show: ({ shell, result, callTool }) => { view = { page: hostPage(shell, result, version), callTool }; },
  };
}
