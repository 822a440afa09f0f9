// Issue 11's OAuth test kit, proven with real parts: oidc-provider as the authorization server
// (test/harness/oauth-server.ts), a Streamable HTTP MCP server that verifies its bearer tokens
// (test/harness/protected-mcp.ts), the SDK 2 client's own OAuth support (OAuthClientProvider,
// auth(), UnauthorizedError) and a headless Chromium that completes the login and consent pages
// and lands on a loopback receiver (test/harness/oauth-client.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, UnauthorizedError, auth } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { launchChromium } from "./browser/chromium.js";
import { startAuthServer, type AuthServer } from "./harness/oauth-server.js";
import { startProtectedMcp, type ProtectedMcp } from "./harness/protected-mcp.js";
import { MemoryOAuthProvider, loginInBrowser, startLoopbackReceiver, type LoopbackReceiver } from "./harness/oauth-client.js";

let as: AuthServer;
let mcp: ProtectedMcp;
let browser: Browser;
let receiver: LoopbackReceiver;

beforeAll(async () => {
  browser = await launchChromium();
  // The MCP server names its AS in its metadata, and the AS binds tokens to the server's URL.
  as = await startAuthServer({ accessTokenTtl: 60 });
  mcp = await startProtectedMcp({ issuer: as.issuer });
  as.resource = mcp.url;
  receiver = await startLoopbackReceiver();
});

afterAll(async () => {
  await mcp?.close();
  await as?.close();
  await receiver?.close();
  await browser?.close();
});

function toolText(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]).text;
}

/** Connects a client with the provider; the first attempt throws UnauthorizedError and records the authorization URL. */
async function connect(provider: MemoryOAuthProvider): Promise<Client> {
  const client = new Client({ name: "oauth-kit-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }));
  return client;
}

/** The whole login: a 401 from the MCP server, discovery, DCR, Chromium through login and consent, the code exchange. */
async function login(provider: MemoryOAuthProvider): Promise<void> {
  await expect(connect(provider)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const params = await loginInBrowser(browser, provider.authorizationUrl!, receiver);
  expect(await auth(provider, { serverUrl: mcp.url, authorizationCode: params.get("code")!, iss: params.get("iss") ?? undefined })).toBe("AUTHORIZED");
}

describe("OAuth test kit", () => {
  it("a login in Chromium gets a token the MCP server accepts", async () => {
    const provider = new MemoryOAuthProvider(receiver);
    await login(provider);
    const client = await connect(provider);
    const who = JSON.parse(toolText(await client.callTool({ name: "whoami", arguments: {} })));
    expect(who.sub).toBe("alice");
    expect(who.scopes).toEqual(expect.arrayContaining(["mcp:read", "mcp:write"]));
    await client.close();
  });
});
