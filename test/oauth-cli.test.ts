// `atrium auth login|logout|status` with real parts: the spawned CLI prints the authorization URL
// on stderr, Chromium logs in on the CLI's loopback receiver, the tokens land in the state
// directory's 0600 file, a spawned atrium then uses them; logout revokes at the authorization
// server (it no longer accepts the refresh token) and deletes the local copy; status and doctor
// say what is true without ever printing a token value.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type { Browser } from "playwright-core";
import { startOAuthRig, type OAuthRig } from "./harness/oauth-rig.js";
import type { AuthServer } from "./harness/oauth-server.js";
import type { ProtectedMcp } from "./harness/protected-mcp.js";
import { loginThroughAtrium } from "./harness/oauth-client.js";
import { atriumBin, startAtrium } from "./harness/atrium-client.js";

let as: AuthServer;
let mcp: ProtectedMcp;
let browser: Browser;
let rig: OAuthRig | undefined;
let dir: string;
let configFile: string;

beforeAll(async () => {
  rig = await startOAuthRig({ accessTokenTtl: 60 });
  ({ as, mcp, browser } = rig);
  dir = mkdtempSync(join(tmpdir(), "atrium-auth-cli-"));
  configFile = join(dir, "atrium.json");
  writeFileSync(configFile, JSON.stringify({ mcpServers: { prot: { url: mcp.url }, local: { command: process.execPath, args: ["-e", ""] } } }));
});

afterAll(async () => {
  await rig?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, ATRIUM_STATE_DIR: join(dir, "state"), ATRIUM_KEYRING: "off" });

interface Run { code: number | null; stdout: string; stderr: string }

/** Runs the CLI; `onStderr` sees stderr as it arrives (the login URL). */
function cli(args: string[], onStderr?: (text: string) => void): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [atriumBin, ...args], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString(); onStderr?.(stderr); });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function tokensFile(): { records: { connector: string; url: string; tokens?: { access_token: string; refresh_token?: string } }[] } {
  return JSON.parse(readFileSync(join(dir, "state", "tokens.json"), "utf8"));
}

describe("atrium auth", () => {
  const said: string[] = [];
  let secrets: string[] = [];

  it("doctor names a connector that needs a login and the command that logs in", async () => {
    const run = await cli(["doctor", "--config", configFile]);
    said.push(run.stdout, run.stderr);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^FAIL prot \(http: .*\)$/m);
    expect(run.stdout).toContain("needs login: run `atrium auth login prot` (tokens are kept in file ");
    const status = await cli(["auth", "status", "--config", configFile]);
    expect(status.stdout).toMatch(/^prot \(.*\): not logged in$/m);
  });

  it("auth login prints the URL on stderr, completes on its loopback receiver, and stores the tokens in a 0600 file", async () => {
    let opened: Promise<string> | undefined;
    const run = await cli(["auth", "login", "prot", "--config", configFile], (text) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text);
      if (m && !opened) opened = loginThroughAtrium(browser, m[1]);
    });
    said.push(run.stdout, run.stderr);
    expect(opened, run.stderr).toBeDefined();
    expect(await opened).toMatch(/Signed in/);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/logged in to prot; tokens stored in file .*tokens\.json/);
    const rec = tokensFile().records.find((r) => r.connector === "prot")!;
    expect(rec.url).toBe(mcp.url);
    secrets = [rec.tokens!.access_token, rec.tokens!.refresh_token!];
    expect(statSync(join(dir, "state", "tokens.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "state")).mode & 0o777).toBe(0o700);
  });

  it("auth status shows the login without a token value", async () => {
    const run = await cli(["auth", "status", "--config", configFile]);
    said.push(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^prot \(.*\): logged in; access token expires in \d+ s; refresh token available$/m);
    expect(run.stdout).toMatch(/^tokens are kept in: file .*tokens\.json \(the keyring is turned off: ATRIUM_KEYRING=off\)$/m);
    expect(run.stdout).not.toMatch(/^local/m); // stdio connectors have no login
  });

  it("a spawned atrium uses the tokens the terminal login stored; doctor says the connector is logged in", async () => {
    const a = await startAtrium({ config: JSON.parse(readFileSync(configFile, "utf8")), env: { ATRIUM_STATE_DIR: join(dir, "state"), ATRIUM_KEYRING: "off" } });
    try {
      const r = await a.call("call_tool", { address: "prot.whoami", resultMode: "value" });
      expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
      expect(JSON.stringify(r.structuredContent)).toContain("alice");
      said.push(JSON.stringify(r), a.stderr());
    } finally {
      await a.close();
    }
    const doctor = await cli(["doctor", "--config", configFile]);
    said.push(doctor.stdout, doctor.stderr);
    expect(doctor.stdout).toMatch(/login: logged in; access token expires in \d+ s; refresh token available \(tokens are kept in file /);
  });

  it("auth logout revokes at the authorization server (the refresh token is refused there) and deletes the local copy", async () => {
    const run = await cli(["auth", "logout", "prot", "--config", configFile]);
    said.push(run.stdout, run.stderr);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`prot: revoked the refresh token at ${as.issuer}/token/revocation`);
    // oidc-provider's access tokens are JWTs, which it does not revoke (RFC 7009 unsupported_token_type): said, not a failure.
    expect(run.stdout).toMatch(/prot: .* does not revoke access tokens of this kind; it stays valid at the server until it expires \(in \d+ s\)/);
    expect(run.stdout).toMatch(/prot: deleted the local tokens from file /);
    expect(tokensFile().records.find((r) => r.connector === "prot")?.tokens).toBeUndefined();
    // The AS no longer accepts the refresh token.
    const clientId = (JSON.parse(readFileSync(join(dir, "state", "tokens.json"), "utf8")).records[0].client as { client_id: string }).client_id;
    const res = await fetch(`${as.issuer}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: secrets[1], client_id: clientId }) });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("invalid_grant");
    const status = await cli(["auth", "status", "--config", configFile]);
    said.push(status.stdout);
    expect(status.stdout).toMatch(/^prot \(.*\): not logged in$/m);
  });

  it("auth on an unknown or stdio connector is refused, naming the remote connectors; a bad action is a usage error", async () => {
    const unknown = await cli(["auth", "login", "nope", "--config", configFile]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no connector named "nope"; remote connectors with a login: prot/);
    const stdio = await cli(["auth", "login", "local", "--config", configFile]);
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toMatch(/local is a stdio connector; only remote .* prot/);
    const bad = await cli(["auth", "dance", "--config", configFile]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown action "dance"; use atrium auth login <connector> \| atrium auth logout <connector> \| atrium auth status/);
  });

  it("no token value appeared in any output above", () => {
    expect(secrets.length).toBe(2);
    const all = said.join("\n");
    for (const s of secrets) expect(all.includes(s)).toBe(false);
  });
});
