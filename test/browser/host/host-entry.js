// A test MCP Apps host: ext-apps AppBridge (2.0.4) over PostMessageTransport, like a desktop
// host that renders the view iframe directly (srcdoc + sandbox="allow-scripts"). Bundled with
// Vite at test time (test/browser/harness.ts). Tool calls from the view go to
// window.__hostCallTool(name, args, _meta), which the test provides with page.exposeFunction.
//
// Globals for the test:
//   __mount(shellHtml, config)     create the iframe and bridge; config { serverTools, holdInit, initError, width }
//   __releaseInit()                send the ui/initialize reply held by { holdInit: true }
//   __initialized                  resolves when the view sent ui/notifications/initialized
//   __deliverToolResult(result, { input, args })  tool-input {arguments: args ?? {}} then tool-result (after initialized)
//   __teardown(), __ping()         host → view requests
//   __injectSibling(script)        a second sandboxed frame in the host page, running script
//   __postToView(message)          post a raw message to the view's window (bypassing the bridge)
//   __hostLog   [{seq, data}]      every message received from the view's window
//   __hostSent  [{seq, data}]      every message the bridge sent to the view
//   __stray     [{seq, data}]      messages that reached the host window from any other window
//   __sizes     [height]           size-changed heights, applied to the iframe like a pinning host
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { EmptyResultSchema } from "@modelcontextprotocol/core";

let seq = 0;
window.__hostLog = [];
window.__hostSent = [];
window.__stray = [];
window.__sizes = [];

window.__mount = async (shellHtml, config = {}) => {
  const { serverTools = true, holdInit = false, initError = false, width = 640 } = config;
  const iframe = document.createElement("iframe");
  iframe.id = "shell";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.cssText = `display:block;border:0;width:${width}px;height:0`;
  document.body.appendChild(iframe);
  const view = iframe.contentWindow;

  let initId;
  window.addEventListener("message", (event) => {
    const entry = { seq: ++seq, data: event.data };
    if (event.source === view) {
      window.__hostLog.push(entry);
      if (event.data && event.data.method === "ui/initialize") initId = event.data.id;
    } else {
      window.__stray.push(entry);
    }
  });

  const caps = { logging: {} };
  if (serverTools) caps.serverTools = {};
  const bridge = new AppBridge(null, { name: "test-host", version: "1" }, caps, {
    hostContext: {
      theme: "light",
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      platform: "web",
      containerDimensions: { width, maxHeight: 4000 },
    },
  });
  if (serverTools) bridge.oncalltool = async (params) => window.__hostCallTool(params.name, params.arguments ?? {}, params._meta);
  let initialized;
  window.__initialized = new Promise((resolve) => (initialized = resolve));
  bridge.oninitialized = () => initialized();
  bridge.onsizechange = ({ height }) => {
    window.__sizes.push(height);
    if (typeof height === "number") iframe.style.height = `${height}px`;
  };

  const transport = new PostMessageTransport(view, view);
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if (initId !== undefined && message.id === initId && ("result" in message || "error" in message)) {
      if (holdInit) await new Promise((resolve) => (window.__releaseInit = resolve));
      if (initError) message = { jsonrpc: "2.0", id: message.id, error: { code: -32603, message: "test host refuses this view" } };
    }
    window.__hostSent.push({ seq: ++seq, data: message });
    return send(message, options);
  };

  // Listen before the view's script can run: connect, then load the shell.
  const connected = bridge.connect(transport);
  iframe.srcdoc = shellHtml;
  await connected;

  window.__deliverToolResult = async (result, { input = true, args = {} } = {}) => {
    await window.__initialized;
    if (input) await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
  };
  window.__teardown = () => bridge.teardownResource({});
  window.__postToView = (message) => view.postMessage(message, "*");
  window.__ping = () => bridge.request({ method: "ping" }, EmptyResultSchema);
};

window.__injectSibling = (script) => {
  const f = document.createElement("iframe");
  f.setAttribute("sandbox", "allow-scripts");
  f.style.cssText = "width:10px;height:10px;border:0";
  f.srcdoc = `<script>${script}<\/script>`;
  document.body.appendChild(f);
};

window.__hostReady = true;
