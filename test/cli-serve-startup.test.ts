// `atrium serve` answers initialize before it loads or starts what initialize does not need. The
// connectors and the sandbox workers start once the input waiting at start is answered: a host
// that writes its first requests in the same breath as initialize gets them answered as if
// everything had been up, each waiting for what it needs. And what serve loads before it answers
// (read on the TypeScript AST: its static value imports, and its own dynamic imports) reaches no
// npm package but the MCP server SDK and zod: the MCP client SDK (connectors, OAuth), jose,
// redis, secretlint's rules, the embedding model and QuickJS load behind a dynamic import, after
// the answer; OpenTelemetry and prom-client only when configured (observability/start.ts).
import { describe, it, expect } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type ts from "typescript";
import { RawStdioPeer } from "./fixtures/raw-stdio.js";
import { atriumBin, repo } from "./harness/atrium-client.js";
import { edgesOf, parse, type Edge } from "./import-walls.js";

describe("requests written with initialize, before the connectors and sandbox workers start", () => {
  it("a direct call and a program that calls the connector wait for its start and a worker, then succeed", async () => {
    const peer = new RawStdioPeer(atriumBin);
    try {
      // One write, as the process starts: nothing of the connector or the sandbox is up yet.
      const lines = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "eager-host", version: "0" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "call_tool", arguments: { address: "desk.get_incident", args: { id: "INC-1042" }, resultMode: "value" } } },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "execute_code", arguments: { code: "async () => (await desk.list_services({})).services.length > 0" } } },
      ];
      peer.writeRaw(lines.map((l) => JSON.stringify(l) + "\n").join(""));
      const [init, call, program] = await Promise.all([peer.answerTo(1), peer.answerTo(2), peer.answerTo(3)]);
      expect(init.result?.serverInfo).toMatchObject({ name: "atrium" });
      expect(call.result?.isError, JSON.stringify(call.result)).toBeFalsy();
      expect(call.result?.structuredContent).toMatchObject({ ok: true, data: { id: "INC-1042" } });
      expect(program.result?.structuredContent, JSON.stringify(program.result)).toMatchObject({ ok: true, value: true });
    } finally {
      await peer.close();
    }
  });
});

/** The npm packages serve may load before it answers initialize: the MCP server SDK and its types, and zod (the SDK's schemas). */
const BEFORE_INITIALIZE = ["@modelcontextprotocol/server", "@modelcontextprotocol/core", "zod"];

const GLUE = join(repo, "glue");

function glueSources(): Map<string, ts.SourceFile> {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : /\.m?ts$/.test(p) ? [p] : [];
  });
  return new Map(walk(GLUE).map((p) => [relative(GLUE, p).split("\\").join("/"), parse(p, readFileSync(p, "utf8"))]));
}

/**
 * The npm packages loaded before serve answers, each with the glue file that imports it: from the
 * command line and serve, and what serve imports dynamically itself (it awaits those before it
 * serves), every static value import. A dynamic import elsewhere, a require() inside a function
 * and a type-only import load nothing at start.
 */
function loadedBeforeInitialize(edges: Edge[]): Map<string, string> {
  const entries = ["cli.ts", "commands/resolve-config.ts", "commands/serve.ts"];
  for (const e of edges) if (e.from === "commands/serve.ts" && e.form === "dynamic import" && e.target.kind === "glue") entries.push(e.target.path);
  const seen = new Set(entries);
  const stack = [...entries];
  const npm = new Map<string, string>();
  while (stack.length) {
    const file = stack.pop()!;
    for (const e of edges) {
      if (e.from !== file || e.typeOnly || e.form === "dynamic import" || e.form === "require") continue;
      if (e.target.kind === "npm" && !npm.has(e.target.name)) npm.set(e.target.name, file);
      if (e.target.kind === "glue" && !seen.has(e.target.path)) { seen.add(e.target.path); stack.push(e.target.path); }
    }
  }
  return npm;
}

const beyond = (npm: Map<string, string>) => [...npm].filter(([name]) => !BEFORE_INITIALIZE.includes(name)).map(([name, by]) => `${name} (imported by ${by})`);

describe("what serve loads before it answers initialize", () => {
  const sources = glueSources();

  it("no npm package but the MCP server SDK and zod: the client SDK, OAuth, redis, secretlint, the model and QuickJS load later", () => {
    const npm = loadedBeforeInitialize(edgesOf(sources));
    expect(beyond(npm)).toEqual([]);
    expect([...npm.keys()].sort()).toEqual([...BEFORE_INITIALIZE].sort()); // the SDK it serves with is reached: the walk follows serve's imports
  });

  it("a planted static import of the login flow (the client SDK's auth) is reported", () => {
    const planted = new Map(sources);
    const authorizer = "auth/authorizer.ts";
    planted.set(authorizer, parse(authorizer, `import { startLogin } from "./flow.js";\n${sources.get(authorizer)!.text}`));
    expect(beyond(loadedBeforeInitialize(edgesOf(planted)))).toContain("@modelcontextprotocol/client (imported by auth/flow.ts)");
  });
});
