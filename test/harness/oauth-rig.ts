// The real parts the OAuth suites log in against: Debian's Chromium, oidc-provider as the
// authorization server, and a bearer-protected MCP server that names it in its metadata (the AS
// binds its tokens to that server's URL). One start and one close for each suite.
import type { Browser } from "playwright-core";
import { launchChromium } from "../browser/chromium.js";
import { startAuthServer, type AuthServer } from "./oauth-server.js";
import { startProtectedMcp, type ProtectedMcp } from "./protected-mcp.js";

export interface OAuthRig { browser: Browser; as: AuthServer; mcp: ProtectedMcp; close(): Promise<void> }

/** Starts the three; whatever started is closed again if a later one fails. */
export async function startOAuthRig(opts: { accessTokenTtl: number }): Promise<OAuthRig> {
  const started: { close(): Promise<unknown> }[] = [];
  const close = async () => { for (const part of started.reverse()) await part.close().catch(() => {}); };
  try {
    const browser = await launchChromium();
    started.push(browser);
    const as = await startAuthServer({ accessTokenTtl: opts.accessTokenTtl });
    started.push(as);
    const mcp = await startProtectedMcp({ issuer: as.issuer });
    started.push(mcp);
    as.resource = mcp.url;
    return { browser, as, mcp, close };
  } catch (e) {
    await close();
    throw e;
  }
}
