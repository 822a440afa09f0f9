// The service behind authorize_connector (glue/auth/authorizer.ts) in this process, with real
// connectors (the registry), the real authorization server and protected MCP server, and
// Chromium: a call while a login is pending waits its bound and answers login_pending with the
// same URL; the login completing brings the connector to ready by itself (nobody calling), in the
// catalog's sense; a later call answers ready with the tool count.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type { Browser } from "playwright-core";
import { startOAuthRig, type OAuthRig } from "./harness/oauth-rig.js";
import type { ProtectedMcp } from "./harness/protected-mcp.js";
import { loginThroughAtrium } from "./harness/oauth-client.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";
import { ConnectorRegistry } from "../glue/connectors/registry.js";
import { Authorizer, type ConnectorPort } from "../glue/auth/authorizer.js";
import { TokenStore } from "../glue/auth/store.js";
import { TokenFile } from "../glue/auth/file-store.js";

let mcp: ProtectedMcp;
let browser: Browser;
let rig: OAuthRig | undefined;
let dir: string;
const saved = { state: process.env.ATRIUM_STATE_DIR, keyring: process.env.ATRIUM_KEYRING };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "atrium-authorizer-"));
  // The connectors' transports use the process's store: point it at this test's folder, file only.
  process.env.ATRIUM_STATE_DIR = join(dir, "state");
  process.env.ATRIUM_KEYRING = "off";
  rig = await startOAuthRig({ accessTokenTtl: 60 });
  ({ mcp, browser } = rig);
});

afterAll(async () => {
  await rig?.close();
  rmSync(dir, { recursive: true, force: true });
  process.env.ATRIUM_STATE_DIR = saved.state;
  process.env.ATRIUM_KEYRING = saved.keyring;
});

describe("authorize_connector's service", () => {
  it("waits its bound and answers login_pending with the same URL; the login brings the connector to ready by itself", async () => {
    const r = validateConfig({ mcpServers: { prot: { url: mcp.url } } }, core());
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const registry = new ConnectorRegistry(r.config, "0.0.0");
    await registry.startAll();
    const c = registry.get("prot")!;
    expect(c.state).toBe("needs_auth");
    const port: ConnectorPort = { id: c.id, config: c.config, state: () => c.state, toolCount: () => c.tools.length, settled: () => c.whenSettled(), authorized: () => c.authorized(), unavailable: () => c.unavailable() };
    const authorizer = new Authorizer(() => [port], new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(join(dir, "state"))), 200);
    try {
      const first = await authorizer.authorize("prot");
      expect(first).toMatchObject({ connector: "prot", status: "login_pending" });
      const url = (first as { authorizationUrl: string }).authorizationUrl;
      const second = await authorizer.authorize("prot");
      expect(second).toMatchObject({ status: "login_pending", authorizationUrl: url });

      const changed = new Promise<void>((resolve) => registry.onChange(() => { if (c.state === "ready") resolve(); }));
      expect(await loginThroughAtrium(browser, url)).toMatch(/Signed in/);
      await changed; // nobody called authorize_connector: the completed login started the connector
      expect(c.tools.map((t) => t.name).sort()).toEqual(["whoami", "write_record"]);
      expect(await authorizer.authorize("prot")).toEqual({ connector: "prot", status: "ready", tools: 2 });
    } finally {
      await registry.stopAll();
    }
  });
});
