#!/usr/bin/env node
// Captures the tools/list answers of real MCP servers published on npm into
// test/bench/search/catalogs/<id>.json and writes sources.json (package, exact version, date).
// It installs nothing: install each package by hand into a scratch folder outside the repository
// first (`node test/bench/search/capture.mjs --print-install /tmp/capture` prints the commands),
// then run `node test/bench/search/capture.mjs /tmp/capture [id ...]`. Each server is started over
// stdio with dummy values where it wants a key just to start (never real credentials) and a
// throwaway HOME; only servers that list their tools without the network are kept.
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { z } from "zod";

const here = dirname(fileURLToPath(import.meta.url));
const testServers = join(here, "..", "..", "servers", "node_modules");
const DUMMY = "dummy-not-a-real-credential";

/**
 * The servers of the benchmark. `bin` is the package's command in node_modules/.bin; `args` and
 * `env` are what it needs to start and list its tools offline; `files` are dummy files written into
 * a fresh temporary folder first, whose path replaces `{tmp}`.
 */
const SERVERS = [
  { id: "filesystem", package: "@modelcontextprotocol/server-filesystem", bin: "mcp-server-filesystem", args: ["{tmp}"] },
  { id: "memory", package: "@modelcontextprotocol/server-memory", bin: "mcp-server-memory", env: { MEMORY_FILE_PATH: "{tmp}/memory.jsonl" } },
  { id: "everything", package: "@modelcontextprotocol/server-everything", bin: "mcp-server-everything", args: ["stdio"] },
  { id: "github", package: "@modelcontextprotocol/server-github", bin: "mcp-server-github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { id: "git", package: "@cyanheads/git-mcp-server", bin: "git-mcp-server", env: { MCP_TRANSPORT_TYPE: "stdio", MCP_LOG_LEVEL: "error", GIT_BASE_DIR: "{tmp}" } },
  { id: "playwright", package: "@playwright/mcp", bin: "playwright-mcp", args: ["--headless"] },
  { id: "postgres", package: "@henkey/postgres-mcp-server", bin: "postgres-mcp", args: ["--connection-string", "postgresql://nobody:nothing@127.0.0.1:1/none"] },
  { id: "slack", package: "@modelcontextprotocol/server-slack", bin: "mcp-server-slack", env: { SLACK_BOT_TOKEN: DUMMY, SLACK_TEAM_ID: "T00000000" } },
  { id: "notion", package: "@notionhq/notion-mcp-server", bin: "notion-mcp-server", env: { NOTION_TOKEN: DUMMY } },
  { id: "linear", package: "mcp-server-linear", bin: "mcp-server-linear", env: { LINEAR_API_KEY: DUMMY, LINEAR_API_TOKEN: DUMMY } },
  { id: "time", package: "time-mcp", bin: "time-mcp" },
  { id: "calendar", package: "@cocal/google-calendar-mcp", bin: "google-calendar-mcp", env: { GOOGLE_OAUTH_CREDENTIALS: "{tmp}/gcp-oauth.keys.json" }, files: { "gcp-oauth.keys.json": JSON.stringify({ installed: { client_id: DUMMY, client_secret: DUMMY, redirect_uris: ["http://127.0.0.1"] } }) } },
  { id: "fetch", package: "mcp-server-fetch-typescript", bin: "mcp-server-fetch-typescript" },
  { id: "firecrawl", package: "firecrawl-mcp", bin: "firecrawl-mcp", env: { FIRECRAWL_API_KEY: "fc-" + DUMMY } },
  { id: "brave", package: "@brave/brave-search-mcp-server", bin: "brave-search-mcp-server", env: { BRAVE_API_KEY: DUMMY } },
  { id: "kubernetes", package: "mcp-server-kubernetes", bin: "mcp-server-kubernetes" },
  { id: "stripe", package: "@stripe/mcp", bin: "mcp", args: ["--tools=all", "--api-key=sk_test_" + DUMMY] },
  { id: "thinking", package: "@modelcontextprotocol/server-sequential-thinking", bin: "mcp-server-sequential-thinking" },
  { id: "sentry", package: "@sentry/mcp-server", bin: "sentry-mcp", args: ["--access-token=" + DUMMY] },
];

/** The scratch folder one package is installed in: `<from>/<package with @ and / as _>`. */
const scratchOf = (from, pkg) => join(from, pkg.replace(/[@/]/g, "_"));

function locate(from, s) {
  for (const root of [join(scratchOf(from, s.package), "node_modules"), testServers]) {
    const bin = join(root, ".bin", s.bin);
    const pkgJson = join(root, ...s.package.split("/"), "package.json");
    if (existsSync(bin) && existsSync(pkgJson)) return { bin, version: JSON.parse(readFileSync(pkgJson, "utf8")).version };
  }
  return undefined;
}

const Loose = z.looseObject({});
const keep = (t) => ({
  name: t.name,
  ...(typeof t.title === "string" && { title: t.title }),
  ...(typeof t.description === "string" && { description: t.description }),
  inputSchema: t.inputSchema,
  ...(t.annotations !== undefined && { annotations: t.annotations }),
});

async function capture(s, where) {
  const tmp = mkdtempSync(join(tmpdir(), `capture-${s.id}-`));
  const fill = (v) => v.replaceAll("{tmp}", tmp);
  for (const [name, body] of Object.entries(s.files ?? {})) writeFileSync(join(tmp, name), body);
  const env = { PATH: process.env.PATH, HOME: tmp, NODE_ENV: "production", ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, fill(v)])) };
  const transport = new StdioClientTransport({ command: where.bin, args: (s.args ?? []).map(fill), env, cwd: tmp, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (c) => { stderr += c; });
  const client = new Client({ name: "atrium-search-bench-capture", version: "1" }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: 30_000 });
    const tools = [];
    let cursor;
    for (let page = 0; page < 50; page++) {
      const r = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, Loose, { timeout: 30_000 });
      tools.push(...(r.tools ?? []).map(keep));
      if (!r.nextCursor || r.nextCursor === cursor) break;
      cursor = r.nextCursor;
    }
    return tools;
  } catch (e) {
    throw new Error(`${e.message}\n--- stderr ---\n${stderr.slice(-2000)}`);
  } finally {
    await client.close().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--print-install") {
  const from = argv[1] ?? "/tmp/capture";
  for (const s of SERVERS) console.log(`mkdir -p ${scratchOf(from, s.package)} && (cd ${scratchOf(from, s.package)} && echo '{"private":true}' > package.json && npm install --no-save --ignore-scripts ${s.package}@<version>)`);
  process.exit(0);
}
const from = argv[0];
if (!from) {
  console.error("usage: node test/bench/search/capture.mjs <scratch folder> [server id ...] | --print-install <scratch folder>");
  process.exit(2);
}
const only = new Set(argv.slice(1));
const out = join(here, "catalogs");
mkdirSync(out, { recursive: true });
const sourcesFile = join(here, "sources.json");
const sources = existsSync(sourcesFile) ? JSON.parse(readFileSync(sourcesFile, "utf8")) : { servers: [] };
const today = new Date().toISOString().slice(0, 10);
for (const s of SERVERS) {
  if (only.size > 0 && !only.has(s.id)) continue;
  const where = locate(from, s);
  if (!where) { console.log(`skip ${s.id}: ${s.package} is not installed under ${from}`); continue; }
  try {
    const tools = await capture(s, where);
    if (tools.length === 0) throw new Error("listed no tools");
    writeFileSync(join(out, `${s.id}.json`), JSON.stringify({ server: s.id, package: s.package, version: where.version, tools }, null, 2) + "\n");
    sources.servers = sources.servers.filter((x) => x.id !== s.id);
    sources.servers.push({ id: s.id, package: s.package, version: where.version, captured: today, tools: tools.length, args: s.args ?? [], env: Object.keys(s.env ?? {}) });
    console.log(`ok ${s.id}: ${tools.length} tools (${s.package}@${where.version})`);
  } catch (e) {
    console.log(`FAIL ${s.id}: ${String(e.message).split("\n").slice(0, 12).join("\n  ")}`);
  }
}
sources.servers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
writeFileSync(sourcesFile, JSON.stringify(sources, null, 2) + "\n");
