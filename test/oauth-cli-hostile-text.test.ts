// `atrium auth login|logout` in front of a hostile authorization server of this test's own (a
// small node:http server playing the MCP server, its RFC 9728 metadata, the AS metadata and
// dynamic registration): its error_description and its revocation_endpoint carry ESC/CSI/OSC
// sequences, BEL and RLO meant to repaint the terminal (a fake "logged in" line, a window title).
// What the CLI prints, and the auth_required the model reads, show them as visible escapes (glue/support/text/escape.ts), never raw.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, startAtrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

/** Every raw character a terminal could act on or reorder. */
const RAW = /(?![\n\t])[\p{Cc}\p{Cf}\u2028\u2029]/u;
/** Moves up a line, erases it and writes atrium's success words over it; sets the window title; reverses what follows. */
const REPAINT = "\r\u001b[1A\u001b[2Katrium: logged in to prot\u001b]0;atrium: logged in\u0007 \u202edeliaf\u202c";

let server: Server;
let base: string;
let dir: string;
let configFile: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    const path = new URL(req.url ?? "/", base).pathname;
    req.resume();
    if (path === "/mcp") return json(401, { error: "unauthorized" }, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` });
    if (path.startsWith("/.well-known/oauth-protected-resource")) return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
    if (path.startsWith("/.well-known/oauth-authorization-server") || path.startsWith("/.well-known/openid-configuration")) {
      return json(200, {
        issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, registration_endpoint: `${base}/register`,
        revocation_endpoint: `${base}/revoke/${REPAINT}`, response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (path === "/register") {
      let body = "";
      req.on("data", (c: Buffer) => { body += c.toString(); });
      return req.on("end", () => json(201, { ...JSON.parse(body || "{}"), client_id: "hostile-client" }));
    }
    return json(400, { error: "invalid_request" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), "atrium-auth-hostile-"));
  configFile = join(dir, "atrium.json");
  writeFileSync(configFile, JSON.stringify({ mcpServers: { prot: { url: `${base}/mcp` } } }));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

interface Run { code: number | null; stdout: string; stderr: string }

function cli(args: string[], onStderr?: (text: string) => void): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [atriumBin, ...args, "--config", configFile], { env: { ...process.env, ATRIUM_STATE_DIR: join(dir, "state"), ATRIUM_KEYRING: "off" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString(); onStderr?.(stderr); });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** What the hostile AS sends the browser back with, for the login at `authorizationUrl`: an error, described with terminal sequences. */
async function redirectWithError(authorizationUrl: string): Promise<void> {
  const login = new URL(authorizationUrl);
  const back = new URL(login.searchParams.get("redirect_uri")!);
  back.searchParams.set("state", login.searchParams.get("state")!);
  back.searchParams.set("error", "access_denied");
  back.searchParams.set("error_description", REPAINT);
  await (await fetch(back)).body?.cancel();
}

describe("atrium auth prints a hostile authorization server's words as visible escapes", () => {
  it("auth login: an error_description with ESC, OSC, BEL and RLO cannot overwrite a line with a fake \"logged in\"", async () => {
    let redirected = false;
    const run = await cli(["auth", "login", "prot"], (text) => {
      const m = /open this URL in a browser:\s+(\S+)/.exec(text);
      if (!m || redirected) return;
      redirected = true;
      void redirectWithError(m[1]!);
    });
    expect(redirected).toBe(true);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("access_denied");
    expect(run.stderr).not.toMatch(RAW);
    expect(run.stderr).toContain("\\u001B[1A\\u001B[2Katrium: logged in to prot\\u001B]0;atrium: logged in\\u0007 \\u202Edeliaf\\u202C");
    expect(run.stderr.split("\n").filter((l) => l.startsWith("atrium: logged in"))).toEqual([]);
  });

  it("auth logout: a revocation_endpoint with ESC, OSC and BEL is printed escaped", async () => {
    mkdirSync(join(dir, "state"), { recursive: true });
    const record = { connector: "prot", url: `${base}/mcp`, tokens: { access_token: "at-hostile", token_type: "bearer" }, client: { client_id: "hostile-client" }, revocationEndpoint: `${base}/revoke?next=${REPAINT}`, issuer: base };
    writeFileSync(join(dir, "state", "tokens.json"), JSON.stringify({ version: 1, records: [record] }), { mode: 0o600 });
    const run = await cli(["auth", "logout", "prot"]);
    expect(run.stdout).toContain("refused to revoke the access token");
    expect(run.stdout).not.toMatch(RAW);
    expect(run.stdout).toContain("\\u001B]0;atrium: logged in\\u0007");
    expect(run.stdout).toContain("deleted the local tokens");
  });

  it("authorize_connector: the auth_required the model reads shows the server's error_description with visible escapes", async () => {
    const a = await startAtrium({ config: { mcpServers: { prot: { url: `${base}/mcp` } } } });
    try {
      await a.call("search_tools", { query: "anything", connector: "prot" }); // waits for its start to settle (needs_auth)
      const started = (await a.call("authorize_connector", { connector: "prot" })).structuredContent as { authorizationUrl: string };
      await redirectWithError(started.authorizationUrl);
      let error = { code: "", message: "" };
      await waitFor(async () => {
        error = ((await a.call("authorize_connector", { connector: "prot" })).structuredContent as { error?: typeof error }).error ?? error;
        return error.code === "auth_required";
      }, "the failed login is reported");
      expect(error.message).toContain("access_denied");
      expect(error.message).not.toMatch(RAW);
      expect(error.message).toContain("\\u001B[1A\\u001B[2Katrium: logged in to prot\\u001B]0;atrium: logged in\\u0007 \\u202Edeliaf\\u202C");
    } finally {
      await a.close();
    }
  });
});
