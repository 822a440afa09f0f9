// The official MCP conformance framework (@modelcontextprotocol/conformance 0.1.9, in test/servers)
// runs the server scenarios that apply to a gateway against `atrium serve --http`: initialize,
// ping, tools/list, logging, and the SSE streams. Scenarios about tools, resources and prompts of
// the framework's own reference server (test_reconnection, test_image_content…) do not apply: a
// gateway serves its meta-tools and its connectors' prompts, not those fixtures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repo } from "./harness/atrium-client.js";
import { startHttpAtrium, type HttpAtrium } from "./harness/atrium-http.js";

const framework = join(repo, "test/servers/node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** Each scenario and the "Passed: n/m, f failed" line it must print. */
const expected: Record<string, string> = {
  "server-initialize": "Passed: 1/1, 0 failed",
  ping: "Passed: 1/1, 0 failed",
  "tools-list": "Passed: 1/1, 0 failed",
  "logging-set-level": "Passed: 1/1, 0 failed",
  "server-sse-multiple-streams": "Passed: 2/2, 0 failed",
  "resources-list": "Passed: 1/1, 0 failed",
  "prompts-list": "Passed: 1/1, 0 failed",
  // Its checks are SHOULDs (warnings) about the framework's own test_reconnection tool, which a gateway does not have: nothing fails.
  "server-sse-polling": "Passed: 0/0, 0 failed",
};

let atrium: HttpAtrium;
let cwd: string;
beforeAll(async () => {
  atrium = await startHttpAtrium();
  cwd = mkdtempSync(join(tmpdir(), "atrium-conformance-"));
}, 60_000);
afterAll(async () => {
  await atrium?.stop();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

function run(scenario: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [framework, "server", "--url", atrium.url, "--scenario", scenario], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.once("exit", () => resolve(out));
  });
}

describe("the conformance framework's server scenarios against serve --http", () => {
  for (const [scenario, line] of Object.entries(expected)) {
    it(`${scenario}: ${line}`, async () => {
      expect(await run(scenario)).toContain(line);
    }, 60_000);
  }
});
