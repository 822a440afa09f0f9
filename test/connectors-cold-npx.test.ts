// The README's `npx -y` example on a cold npm cache: npx downloads the server first (seconds
// on a fast network, longer on a slow one), which the connector's start deadline allows, and
// the first call waits for that connector alone and then runs.
import { describe, it, expect, afterAll } from "vitest";
import { mkdtempSync, rmSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startAtrium, repo, type Atrium } from "./harness/atrium-client.js";

const cache = mkdtempSync(join(tmpdir(), "atrium-cold-npm-cache-"));
const version = JSON.parse(readFileSync(join(repo, "test/servers/package.json"), "utf8")).dependencies["@modelcontextprotocol/server-memory"];
const run = promisify(execFile);
let a: Atrium | undefined;
afterAll(async () => {
  await a?.close();
  rmSync(cache, { recursive: true, force: true });
});

/**
 * This test needs the npm registry. Asked first, with npm itself and a cache of its own (the
 * test's stays cold): when the registry cannot be reached, the test fails saying so, not with a
 * connector that did not start.
 */
async function registryReachable(): Promise<void> {
  const probeCache = mkdtempSync(join(tmpdir(), "atrium-npm-probe-"));
  const env = { ...process.env, npm_config_cache: probeCache };
  try {
    const registry = (await run("npm", ["config", "get", "registry"], { env })).stdout.trim();
    try {
      await run("npm", ["view", `@modelcontextprotocol/server-memory@${version}`, "version"], { env, timeout: 120_000 });
    } catch (e) {
      const why = ((e as { stderr?: string }).stderr || (e as Error).message).trim().split("\n").slice(0, 6).join("\n");
      throw new Error(`the npm registry is unreachable: this test downloads @modelcontextprotocol/server-memory@${version} from ${registry} with npx -y, and npm could not get it from there:\n${why}`);
    }
  } finally {
    rmSync(probeCache, { recursive: true, force: true });
  }
}

describe("npx -y on a cold npm cache", () => {
  it("a server-memory connector started with npx -y and an empty cache serves its first call", async () => {
    await registryReachable();
    a = await startAtrium({
      config: { mcpServers: { memory: { command: "npx", args: ["-y", `@modelcontextprotocol/server-memory@${version}`], env: { npm_config_cache: cache, MEMORY_FILE_PATH: join(cache, "memory.jsonl") } } } },
      waitForConnectors: false,
    });
    const r = await a.call("call_tool", { address: "memory.read_graph", args: {}, resultMode: "value" }, 180_000);
    expect(r.structuredContent).toMatchObject({ ok: true, data: { entities: [], relations: [] } });
  }, 200_000);
});
