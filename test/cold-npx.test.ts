// The README's `npx -y` example on a cold npm cache: npx downloads the server first (seconds
// on a fast network, longer on a slow one), which the connector's start deadline allows, and
// the first call waits for that connector alone and then runs.
import { describe, it, expect, afterAll } from "vitest";
import { mkdtempSync, rmSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startAtrium, repo, type Atrium } from "./harness/atrium-client.js";

const cache = mkdtempSync(join(tmpdir(), "atrium-cold-npm-cache-"));
const version = JSON.parse(readFileSync(join(repo, "test/servers/package.json"), "utf8")).dependencies["@modelcontextprotocol/server-memory"];
let a: Atrium | undefined;
afterAll(async () => {
  await a?.close();
  rmSync(cache, { recursive: true, force: true });
});

describe("npx -y on a cold npm cache", () => {
  it("a server-memory connector started with npx -y and an empty cache serves its first call", async () => {
    a = await startAtrium({
      config: { mcpServers: { memory: { command: "npx", args: ["-y", `@modelcontextprotocol/server-memory@${version}`], env: { npm_config_cache: cache, MEMORY_FILE_PATH: join(cache, "memory.jsonl") } } } },
      waitForConnectors: false,
    });
    const r = await a.call("call_tool", { address: "memory.read_graph", args: {}, resultMode: "value" }, 180_000);
    expect(r.structuredContent).toMatchObject({ ok: true, data: { entities: [], relations: [] } });
  }, 200_000);
});
