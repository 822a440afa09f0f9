// Tokens at rest (glue/auth/store.ts, file-store.ts): the OS keyring when one answers, else the
// token file, and ATRIUM_KEYRING=off for the file always; the file is 0600 in a 0700 directory,
// written atomically; one with group or other bits is repaired with one warning; a symbolic link
// or another user's file is refused unread; records are keyed by connector AND server URL.
import { afterEach, describe, expect, it } from "vitest";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { TokenStore, type Backend } from "../glue/auth/store.js";
import { TokenFile } from "../glue/auth/file-store.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "atrium-store-"));
  dirs.push(d);
  return join(d, "state");
}

const tokens = { access_token: "at-1", token_type: "Bearer", expires_in: 60, refresh_token: "rt-1" };

describe("the token file", () => {
  it("is written atomically as 0600 inside a 0700 directory, and leaves no temporary file", () => {
    const dir = tempDir();
    const store = new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(dir));
    store.saveTokens("prot", "https://a.example/mcp", tokens);
    store.saveTokens("prot", "https://a.example/mcp", { ...tokens, access_token: "at-2" });
    expect(statSync(join(dir, "tokens.json")).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(["tokens.json"]);
    expect(store.get("prot", "https://a.example/mcp")?.tokens?.access_token).toBe("at-2");
    expect(store.where()).toMatchObject({ kind: "file" });
  });

  it("keys tokens by connector and server URL: a changed URL does not reuse them", () => {
    const store = new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(tempDir()));
    store.saveTokens("prot", "https://a.example/mcp", tokens);
    expect(store.get("prot", "https://a.example/mcp")?.tokens).toBeDefined();
    expect(store.get("prot", "https://b.example/mcp")).toBeUndefined();
    expect(store.get("other", "https://a.example/mcp")).toBeUndefined();
  });

  it("a file other users can read is repaired to 0600, with one warning on stderr", () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const file = new TokenFile(dir, (l) => warnings.push(l));
    const store = new TokenStore({ ATRIUM_KEYRING: "off" }, file);
    store.saveTokens("prot", "https://a.example/mcp", tokens);
    chmodSync(join(dir, "tokens.json"), 0o644);
    expect(store.get("prot", "https://a.example/mcp")?.tokens?.access_token).toBe("at-1");
    expect(statSync(join(dir, "tokens.json")).mode & 0o777).toBe(0o600);
    chmodSync(join(dir, "tokens.json"), 0o644);
    store.get("prot", "https://a.example/mcp");
    expect(warnings).toEqual([`atrium: ${join(dir, "tokens.json")} could be read by other users; its mode is now 0600`]);
    expect(warnings.join("")).not.toContain("at-1");
  });

  it("a token file that is a symbolic link is refused, not read", () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const elsewhere = join(dir, "..", "elsewhere.json");
    writeFileSync(elsewhere, JSON.stringify({ version: 1, records: [{ connector: "prot", url: "https://a.example/mcp", tokens }] }), { mode: 0o600 });
    symlinkSync(elsewhere, join(dir, "tokens.json"));
    const store = new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(dir));
    expect(() => store.get("prot", "https://a.example/mcp")).toThrow(/is a symbolic link; atrium reads tokens only from a regular file of its own/);
    expect(() => store.saveTokens("prot", "https://a.example/mcp", tokens)).toThrow(/symbolic link/);
  });

  it.skipIf(process.getuid?.() !== 0)("a token file owned by another user is refused, not read (needs root to hand a file to another user)", () => {
    const dir = tempDir();
    const store = new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(dir));
    store.saveTokens("prot", "https://a.example/mcp", tokens);
    chownSync(join(dir, "tokens.json"), 1, 1);
    expect(() => store.get("prot", "https://a.example/mcp")).toThrow(/belongs to another user \(uid 1\); atrium does not read it/);
  });
});

describe("the keyring, and the file as its fallback", () => {
  it("a keyring that fails (no Secret Service) falls back to the file, and says so", () => {
    const dir = tempDir();
    const store = new TokenStore({}, new TokenFile(dir), () => { throw new Error("Couldn't access platform storage: AccessDenied"); });
    store.saveTokens("prot", "https://a.example/mcp", tokens);
    expect(store.where()).toEqual({ kind: "file", words: `file ${join(dir, "tokens.json")} (no OS keyring: Couldn't access platform storage: AccessDenied)` });
    expect(statSync(join(dir, "tokens.json")).mode & 0o777).toBe(0o600);
  });

  it("a keyring that reads but refuses writes (no usable collection) falls back to the file", () => {
    const dir = tempDir();
    const store = new TokenStore({}, new TokenFile(dir), () => ({ read: () => undefined, write: () => { throw new Error("Couldn't access platform storage: AccessDenied"); } }));
    store.saveTokens("prot", "https://a.example/mcp", tokens);
    expect(store.where().kind).toBe("file");
    expect(store.get("prot", "https://a.example/mcp")?.tokens?.access_token).toBe("at-1");
  });

  it("tokens already in the file stay in the file even when a keyring answers", () => {
    const dir = tempDir();
    new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(dir)).saveTokens("prot", "https://a.example/mcp", tokens);
    let secret: string | undefined;
    const store = new TokenStore({}, new TokenFile(dir), () => ({ read: () => secret, write: (t) => { secret = t; } }));
    expect(store.get("prot", "https://a.example/mcp")?.tokens?.access_token).toBe("at-1");
    expect(store.where()).toMatchObject({ kind: "file", words: expect.stringMatching(/already holds atrium's tokens/) });
    expect(secret).toBeUndefined();
  });

  it("a keyring that answers keeps the tokens, and no file is written", () => {
    const dir = tempDir();
    let secret: string | undefined;
    const keyring: Backend = { read: () => secret, write: (t) => { secret = t; } };
    const store = new TokenStore({}, new TokenFile(dir), () => keyring);
    store.saveTokens("prot", "https://a.example/mcp", tokens);
    expect(store.where().kind).toBe("keyring");
    expect(store.get("prot", "https://a.example/mcp")?.tokens?.refresh_token).toBe("rt-1");
    expect(secret).toContain("rt-1");
    expect(() => statSync(join(dir, "tokens.json"))).toThrow();
  });

  it("ATRIUM_KEYRING=off never opens the keyring", () => {
    const store = new TokenStore({ ATRIUM_KEYRING: "off" }, new TokenFile(tempDir()), () => { throw new Error("must not be opened"); });
    expect(store.where().words).toMatch(/the keyring is turned off: ATRIUM_KEYRING=off/);
  });

  it("on this machine the real keyring either answers or the file takes over, without an error", () => {
    const store = new TokenStore({}, new TokenFile(tempDir()));
    expect(["keyring", "file"]).toContain(store.where().kind);
  });
});
