// The client half of issue 11's test kit: an in-memory OAuthClientProvider for the SDK 2 client,
// a loopback redirect receiver (RFC 8252 §7.3) that checks `state`, and a headless login through
// Chromium (playwright-core) that completes the authorization server's login and consent pages.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";

/** What the receiver did with one callback request. */
interface CallbackHit { params: URLSearchParams; accepted: boolean }

export interface LoopbackReceiver {
  /** http://127.0.0.1:PORT/callback */
  redirectUrl: string;
  /** The state the next callback must carry (set by the provider when it starts a login). */
  expectedState: string | undefined;
  hits: CallbackHit[];
  /** Resolves with the params of the next callback whose state matched; a mismatched one is answered 400 and never resolves it. */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** A redirect receiver on 127.0.0.1 (an ephemeral port). A callback whose `state` is not the expected one is refused (400). */
export async function startLoopbackReceiver(): Promise<LoopbackReceiver> {
  const hits: CallbackHit[] = [];
  let waiting: ((p: URLSearchParams) => void) | undefined;
  const self: LoopbackReceiver = {
    redirectUrl: "",
    expectedState: undefined,
    hits,
    next: () => new Promise((resolve) => { waiting = resolve; }),
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? "/", self.redirectUrl);
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const params = url.searchParams;
    const accepted = self.expectedState !== undefined && params.get("state") === self.expectedState;
    hits.push({ params, accepted });
    if (!accepted) {
      res.writeHead(400, { "content-type": "text/plain" }).end("state mismatch: this login was not started here");
      return;
    }
    self.expectedState = undefined; // one use
    res.writeHead(200, { "content-type": "text/plain" }).end("Signed in. You can close this window.");
    const w = waiting;
    waiting = undefined;
    w?.(params);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  self.redirectUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/callback`;
  return self;
}

/**
 * An OAuthClientProvider that keeps everything in memory. Without `clientInformation` it
 * registers dynamically (RFC 7591); `redirectToAuthorization` only records the URL (a test
 * drives the login), and `state()` tells the receiver what to expect.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = "";
  discovery: OAuthDiscoveryState | undefined;
  /** The last authorization URL the SDK asked to open. */
  authorizationUrl: URL | undefined;
  /** Every token set saved, in order (a refresh adds one). */
  readonly history: StoredOAuthTokens[] = [];

  constructor(private readonly receiver: LoopbackReceiver, private readonly scope = "mcp:read mcp:write", client?: StoredOAuthClientInformation) {
    this.client = client;
  }

  get redirectUrl(): string { return this.receiver.redirectUrl; }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "atrium test kit", redirect_uris: [this.receiver.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], scope: this.scope };
  }

  state(): string {
    const s = randomBytes(16).toString("base64url");
    this.receiver.expectedState = s;
    return s;
  }

  clientInformation() { return this.client; }
  saveClientInformation(info: StoredOAuthClientInformation) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
    this.history.push(tokens);
  }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(v: string) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  saveDiscoveryState(state: OAuthDiscoveryState) { this.discovery = state; }
  discoveryState() { return this.discovery; }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = "";
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
}

/**
 * Opens `authorizationUrl` in a fresh Chromium context, signs in as `login` on the AS's login page,
 * presses Continue on the consent page, and answers the callback's params once the receiver
 * accepted them (the browser lands on the loopback redirect).
 */
export async function loginInBrowser(browser: Browser, authorizationUrl: URL, receiver: LoopbackReceiver, login = "alice"): Promise<URLSearchParams> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const got = receiver.next();
    await page.goto(authorizationUrl.href);
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', "any password");
    await page.click('button[type="submit"]');
    await page.waitForSelector('input[name="prompt"][value="consent"]', { state: "attached" });
    await Promise.all([page.waitForURL((u) => u.href.startsWith(receiver.redirectUrl)), page.click('button[type="submit"]')]);
    return await got;
  } finally {
    await context.close();
  }
}

/**
 * Opens an authorization URL that atrium gave (authorize_connector, `atrium auth login`), signs in
 * and consents, and waits until the browser lands on the redirect URI the URL names (atrium's own
 * loopback receiver); answers the text of that landing page.
 */
export async function loginThroughAtrium(browser: Browser, authorizationUrl: string, login = "alice"): Promise<string> {
  const redirect = new URL(authorizationUrl).searchParams.get("redirect_uri") ?? "";
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(authorizationUrl);
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', "any password");
    await page.click('button[type="submit"]');
    await page.waitForSelector('input[name="prompt"][value="consent"]', { state: "attached" });
    await Promise.all([page.waitForURL((u) => u.href.startsWith(redirect)), page.click('button[type="submit"]')]);
    return (await page.textContent("body")) ?? "";
  } finally {
    await context.close();
  }
}
