// Browser harness for view tests: bundles the test host page (host/host-entry.js, AppBridge as
// the host) with Vite into a temp dir, serves it on 127.0.0.1, and opens it in Chromium with
// `__hostCallTool` bound to a Node function (a fake atrium here; a real atrium over stdio in
// end-to-end suites).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page, Request } from "playwright-core";
import { build } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const HOST_ENTRY = join(here, "host", "host-entry.js");

export interface HostBundle { dir: string; js: string; dispose(): Promise<void> }

/** Bundles the host page script into one ES module (AppBridge, the SDK and zod included). */
export async function buildHostBundle(): Promise<HostBundle> {
  const dir = await mkdtemp(join(tmpdir(), "atrium-host-"));
  await build({
    configFile: false,
    root: dirname(HOST_ENTRY),
    logLevel: "warn",
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    build: {
      outDir: dir,
      emptyOutDir: true,
      minify: true,
      target: "es2022",
      copyPublicDir: false,
      lib: { entry: HOST_ENTRY, formats: ["es"], fileName: () => "host.js" },
      rolldownOptions: { output: { codeSplitting: false } },
    },
  });
  const js = await readFile(join(dir, "host.js"), "utf8");
  return { dir, js, dispose: () => rm(dir, { recursive: true, force: true }) };
}

export interface HostServer {
  url: string;
  port: number;
  /** Every request the server saw, as "METHOD /path" (WebSocket upgrades as "UPGRADE /path"). */
  hits: string[];
  close(): Promise<void>;
}

const HOST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>test host</title></head>
<body style="margin:0;background:#fff"><script type="module" src="/host.js"></script></body></html>`;

/** Serves the host page and bundle; anything else is answered and recorded (network probes). */
export async function startHostServer(bundle: HostBundle): Promise<HostServer> {
  const hits: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(HOST_PAGE);
    } else if (req.url === "/host.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(bundle.js);
    } else {
      res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("reached");
    }
  });
  server.on("upgrade", (req, socket) => {
    hits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    hits,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

// ---- a fake atrium: answers get_view and call_tool the way atrium does ----

export interface ViewPayload { id: string; html: string; reads?: Record<string, { address: string; fixedArgs?: Record<string, unknown>; viewArgs?: string[] }> }
export interface CallToolResultLike { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean; _meta?: Record<string, unknown> }
export type ReadHandler = (args: Record<string, unknown>) => unknown;

export class ReadError extends Error {
  constructor(readonly code: string, message: string) { super(message); }
}

export class FakeAtrium {
  readonly views = new Map<string, ViewPayload>();
  readonly calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  readonly reads: Record<string, ReadHandler> = {};
  /** Addresses whose calls the "host" refuses outright (the bridge answers with a JSON-RPC error). */
  readonly refused = new Set<string>();

  /** What execute_code returns for a program that rendered `view` (atrium's shape). */
  resultFor(view: ViewPayload, opts: { meta?: boolean; structured?: boolean; text?: boolean } = {}): CallToolResultLike {
    const { meta = true, structured = true, text = true } = opts;
    this.views.set(view.id, view);
    const summary = { ok: true, value: "3 rows", view: { id: view.id, delivery: "inline" } };
    return {
      content: text ? [{ type: "text", text: JSON.stringify(summary) }] : [],
      ...(structured && { structuredContent: summary }),
      ...(meta && { _meta: { "atrium/view": view } }),
    };
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResultLike> {
    this.calls.push({ name, args });
    if (name === "get_view") {
      const view = this.views.get(String(args.id));
      return view ? ok(view as unknown as Record<string, unknown>) : fail("not_found", `no view with id ${String(args.id)} (views are kept for a limited time)`);
    }
    if (name === "call_tool") {
      if (this.refused.has(String(args.address))) throw new Error(`host policy refuses ${String(args.address)}`); // a JSON-RPC error
      const handler = this.reads[String(args.address)];
      if (!handler) return fail("unknown_address", `unknown address ${String(args.address)}`);
      try {
        return ok({ ok: true, data: await handler((args.args ?? {}) as Record<string, unknown>) });
      } catch (e) {
        const err = e as Error & { code?: string };
        return fail(err.code ?? "connector_call_failed", `${String(args.address)} reported an error: ${err.message}`, { address: args.address });
      }
    }
    return fail("unknown_tool", `unknown tool ${name}`);
  }
}

function ok(value: Record<string, unknown>): CallToolResultLike {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}
function fail(code: string, message: string, details?: Record<string, unknown>): CallToolResultLike {
  const error = { code, message, retryable: false, ...(details && { details }) };
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }], structuredContent: { error } };
}

// ---- pages ----

export interface HostPage {
  page: Page;
  /** Every URL the browser got a response for, from this page and its frames. */
  responses: string[];
  /** Requests that never got a response, as "URL errorText" (e.g. net::ERR_BLOCKED_BY_CSP). */
  failures: string[];
  /** Console messages and page errors from every frame, for diagnosing failures. */
  console: string[];
  /** How many requests the page and its frames started that have neither finished nor failed yet. */
  inFlight(): number;
}

/** Opens the host page in a new tab of `context` (create it with viewport 700×900). */
export async function openHostPage(context: BrowserContext, server: HostServer, callTool: (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => Promise<unknown>): Promise<HostPage> {
  const page = await context.newPage();
  const responses: string[] = [];
  const failures: string[] = [];
  const logs: string[] = [];
  const started = new Set<Request>();
  page.on("request", (r) => started.add(r));
  page.on("requestfinished", (r) => started.delete(r));
  page.on("response", (r) => responses.push(r.url()));
  page.on("requestfailed", (r) => {
    started.delete(r);
    failures.push(`${r.url()} ${r.failure()?.errorText ?? "?"}`);
  });
  page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
  await page.exposeFunction("__hostCallTool", callTool);
  await page.goto(server.url);
  await page.waitForFunction(() => (globalThis as any).__hostReady === true);
  return { page, responses, failures, console: logs, inFlight: () => started.size };
}

/** "key: value" lines a test page writes into its output, as an object. */
export function parseNotes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const i = line.indexOf(": ");
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 2);
  }
  return out;
}
