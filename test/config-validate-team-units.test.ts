// Team mode's config sections (config/validate-team.ts) in process, through the one validator
// with the real core: each refusal's path and its words exactly (what the operator reads to fix
// the file), and the edges of each rule (a port at PORT_MAX, a key prefix at its bound, a scope
// token's characters, an issuer on this machine over http). config-team.test.ts proves the
// accepted shapes and the paths; this file pins down what each refusal says.
import { describe, expect, it } from "vitest";
import { core } from "../glue/decisions/core.js";
import { validateConfig } from "../glue/config/validate.js";
import { parseListen } from "../glue/config/validate-team.js";
import type { AtriumConfig, ConfigError } from "../glue/config/schema.js";
import { STORE_PREFIX_CHARS_MAX } from "../glue/decisions/generated/spec.js";
import { PORT_MAX } from "../glue/support/wire.js";

const base = (atrium: Record<string, unknown>) => ({ mcpServers: { desk: { command: "node" }, mail: { command: "node" } }, atrium });
function accepted(atrium: Record<string, unknown>): AtriumConfig {
  const r = validateConfig(base(atrium), core());
  if (!r.ok) expect.fail(JSON.stringify(r.errors));
  return r.config;
}
function refused(atrium: Record<string, unknown>): ConfigError[] {
  const r = validateConfig(base(atrium), core());
  if (r.ok) expect.fail("expected a refusal");
  return r.errors;
}
const auth = { issuer: "https://login.example.com", audience: "https://atrium.example.com/mcp" };

describe("atrium.http.listen", () => {
  it("HOST:PORT, an IPv6 host in brackets, ports up to PORT_MAX", () => {
    expect(parseListen(`0.0.0.0:${PORT_MAX}`)).toEqual({ host: "0.0.0.0", port: PORT_MAX });
    expect(parseListen("[::1]:8787")).toEqual({ host: "::1", port: 8787 });
    expect(parseListen(`host:${PORT_MAX + 1}`)).toBe(`port must be from 0 to ${PORT_MAX}, got ${PORT_MAX + 1}`);
    expect(parseListen("8787")).toBe('must be HOST:PORT (for example "127.0.0.1:8787" or "[::1]:8787")');
  });

  it("a listen that is not HOST:PORT is refused at its path, and the default is kept meanwhile", () => {
    expect(refused({ http: { listen: "nowhere" } })).toEqual([{ path: "atrium.http.listen", message: 'must be HOST:PORT (for example "127.0.0.1:8787" or "[::1]:8787")' }]);
  });
});

describe("atrium.http.metrics", () => {
  it("true beside auth is refused, saying why and what to write instead", () => {
    expect(refused({ http: { auth, metrics: true } })).toEqual([{ path: "atrium.http.metrics", message: 'true would serve /metrics without a token on the listener atrium.http.auth guards; name a listener of its own instead ("HOST:PORT", e.g. "127.0.0.1:9464"), or leave it out' }]);
  });

  it("a value of another type, or a listener that is not HOST:PORT, is refused", () => {
    expect(refused({ http: { metrics: 5 } })).toEqual([{ path: "atrium.http.metrics", message: 'expected true, false or "HOST:PORT" (a listener of its own for /metrics), got number' }]);
    expect(refused({ http: { metrics: "9464" } })).toEqual([{ path: "atrium.http.metrics", message: 'must be HOST:PORT (for example "127.0.0.1:8787" or "[::1]:8787")' }]);
  });

  it("a listener of its own is kept; with auth and nothing said, /metrics is off", () => {
    expect(accepted({ http: { metrics: "127.0.0.1:9464" } }).http.metrics).toEqual({ at: "own", listen: { host: "127.0.0.1", port: 9464 } });
    expect(accepted({ http: { auth } }).http.metrics).toEqual({ at: "off" });
    expect(accepted({ http: { auth, metrics: null } }).http.metrics).toEqual({ at: "off" });
    expect(accepted({ http: { metrics: null } }).http.metrics).toEqual({ at: "listener" });
  });
});

describe("atrium.http.allowedOrigins", () => {
  it("an origin is scheme://host[:port] exactly as a browser sends it", () => {
    expect(accepted({ http: { allowedOrigins: ["https://chat.example.com", "http://localhost:3000"] } }).http.allowedOrigins).toEqual(["https://chat.example.com", "http://localhost:3000"]);
    expect(refused({ http: { allowedOrigins: ["nope"] } })).toEqual([{ path: "atrium.http.allowedOrigins[0]", message: 'is not an origin: "nope" (an origin is scheme://host[:port], e.g. "https://chat.example.com")' }]);
    for (const o of ["https://chat.example.com/", "https://chat.example.com/app", "ftp://files.example.com", "HTTPS://chat.example.com"]) {
      expect(refused({ http: { allowedOrigins: [o] } })).toEqual([{ path: "atrium.http.allowedOrigins[0]", message: `must be an origin as a browser sends it (scheme://host[:port], no path or slash), got ${JSON.stringify(o)}` }]);
    }
  });
});

describe("atrium.http.auth", () => {
  it("issuer and audience are required, each refusal saying what it is", () => {
    expect(refused({ http: { auth: {} } })).toEqual([
      { path: "atrium.http.auth.issuer", message: `missing: the authorization server's issuer identifier (its tokens' "iss"), e.g. "https://login.example.com"` },
      { path: "atrium.http.auth.audience", message: `missing: what this atrium's tokens name in "aud", usually its public URL followed by /mcp` },
    ]);
  });

  it("an issuer over http only on this machine, and never with a query or fragment", () => {
    expect(accepted({ http: { auth: { ...auth, issuer: "http://127.0.0.1:9000" } } }).http.auth!.issuer).toBe("http://127.0.0.1:9000");
    expect(refused({ http: { auth: { ...auth, issuer: "http://login.example.com" } } })).toEqual([{ path: "atrium.http.auth.issuer", message: 'must be an https:// URL (http:// only on this machine), got "http://login.example.com"' }]);
    expect(refused({ http: { auth: { ...auth, issuer: "https://login.example.com?x=1" } } })).toEqual([{ path: "atrium.http.auth.issuer", message: 'must not carry a query or fragment (RFC 8414), got "https://login.example.com?x=1"' }]);
    expect(refused({ http: { auth: { ...auth, issuer: "https://login.example.com#f" } } })).toEqual([{ path: "atrium.http.auth.issuer", message: 'must not carry a query or fragment (RFC 8414), got "https://login.example.com#f"' }]);
  });

  it("scopes are RFC 6749 scope tokens; the groups claim defaults to groups", () => {
    const ok = accepted({ http: { auth: { ...auth, requiredScopes: ["mcp:tools", "a!#[]~"] } } }).http.auth!;
    expect(ok).toEqual({ ...auth, requiredScopes: ["mcp:tools", "a!#[]~"], groupsClaim: "groups" });
    for (const bad of ["two words", 'quo"te', "back\\slash", "tab\t", "é"]) {
      expect(refused({ http: { auth: { ...auth, requiredScopes: [bad] } } })).toEqual([{ path: "atrium.http.auth.requiredScopes[0]", message: `is not a scope token (printable characters, no space, quote or backslash): ${JSON.stringify(bad)}` }]);
    }
    expect(refused({ http: { auth: { ...auth, requiredScopes: [""] } } })[0]!.path).toBe("atrium.http.auth.requiredScopes[0]");
  });

  it("an auth block that is refused leaves no auth", () => {
    expect(refused({ http: { auth: { audience: auth.audience } } }).map((e) => e.path)).toEqual(["atrium.http.auth.issuer"]);
  });
});

describe("atrium.access", () => {
  it("an array of rules, each naming connectors of mcpServers", () => {
    expect(accepted({ access: [{ connectors: ["desk"] }, { groups: ["ops"], connectors: ["mail"] }] }).access).toEqual([{ connectors: ["desk"] }, { groups: ["ops"], connectors: ["mail"] }]);
    expect(refused({ access: 5 })).toEqual([{ path: "atrium.access", message: 'expected an array of rules ({ "groups"?: [...], "connectors": [...] }), got number' }]);
    expect(refused({ access: [{}] })).toEqual([{ path: "atrium.access[0].connectors", message: "missing: the connector ids this rule grants" }]);
    expect(refused({ access: [{ connectors: ["desk", "nowhere"] }] })).toEqual([{ path: "atrium.access[0].connectors[1]", message: '"nowhere" is not a connector in mcpServers' }]);
  });
});

describe("atrium.store", () => {
  it("a redis:// or rediss:// URL with a host; the refusal never shows the URL (it may hold a password)", () => {
    expect(accepted({ store: { url: "rediss://:secret@cache.example:6380" } }).store).toEqual({ url: "rediss://:secret@cache.example:6380", keyPrefix: "atrium:" });
    expect(refused({ store: {} })).toEqual([{ path: "atrium.store.url", message: 'missing: the Redis or Valkey server, e.g. "redis://127.0.0.1:6379" (rediss:// for TLS)' }]);
    for (const url of ["redis://", "http://:secret@cache.example", "not a url :secret"]) {
      const errors = refused({ store: { url } });
      expect(errors).toEqual([{ path: "atrium.store.url", message: "must be a redis:// or rediss:// URL with a host (its text is not shown: it may hold a password)" }]);
    }
  });

  it(`a key prefix of 1 to STORE_PREFIX_CHARS_MAX (${STORE_PREFIX_CHARS_MAX}) printable characters without spaces`, () => {
    const url = "redis://127.0.0.1:6379";
    expect(accepted({ store: { url, keyPrefix: "p".repeat(STORE_PREFIX_CHARS_MAX) } }).store!.keyPrefix).toHaveLength(STORE_PREFIX_CHARS_MAX);
    for (const keyPrefix of ["p".repeat(STORE_PREFIX_CHARS_MAX + 1), "a b", "é"]) {
      expect(refused({ store: { url, keyPrefix } })).toEqual([{ path: "atrium.store.keyPrefix", message: `must be 1 to ${STORE_PREFIX_CHARS_MAX} printable characters without spaces, got ${JSON.stringify(keyPrefix)}` }]);
    }
  });
});

describe("each value read at its own path, and what is carried", () => {
  it("atrium.http: a listen, a public URL and an auth block of null are carried; a listen with a tail is refused", () => {
    expect(accepted({ http: { listen: "0.0.0.0:9000", publicUrl: "https://atrium.example.com" } }).http).toMatchObject({ listen: { host: "0.0.0.0", port: 9000 }, publicUrl: "https://atrium.example.com", auth: null });
    expect(accepted({ http: { auth: null, metrics: true } }).http).toMatchObject({ auth: null, metrics: { at: "listener" } });
    expect(parseListen("127.0.0.1:8787x")).toBe('must be HOST:PORT (for example "127.0.0.1:8787" or "[::1]:8787")');
    expect(refused({ http: { listen: 8787, publicUrl: 5 } }).map((e) => e.path)).toEqual(["atrium.http.listen", "atrium.http.publicUrl"]);
    expect(refused({ http: { allowedOrigins: [5] } })).toEqual([{ path: "atrium.http.allowedOrigins[0]", message: "expected a string, got number" }]);
  });

  it("atrium.http.auth: the audience and the groups claim at their paths; a groups claim of its own carried", () => {
    expect(refused({ http: { auth: { ...auth, audience: 5, groupsClaim: 6 } } }).map((e) => e.path)).toEqual(["atrium.http.auth.audience", "atrium.http.auth.groupsClaim"]);
    expect(accepted({ http: { auth: { ...auth, groupsClaim: "roles" } } }).http.auth?.groupsClaim).toBe("roles");
  });

  it("atrium.access: null is no rules; a rule without groups has no groups key; a connector id or group of another type is one error at its path", () => {
    expect(accepted({ access: null }).access).toBeNull();
    expect(accepted({ access: [{ connectors: ["desk"] }] }).access).toStrictEqual([{ connectors: ["desk"] }]);
    expect(refused({ access: [{ connectors: [5] }] })).toEqual([{ path: "atrium.access[0].connectors[0]", message: "expected a string, got number" }]);
    expect(refused({ access: [{ groups: [5], connectors: ["desk"] }] })).toEqual([{ path: "atrium.access[0].groups[0]", message: "expected a string, got number" }]);
  });

  it("atrium.store: a url or key prefix of another type is one error at its path", () => {
    expect(refused({ store: { url: 5 } })).toEqual([{ path: "atrium.store.url", message: "expected a string, got number" }]);
    expect(refused({ store: { url: "redis://127.0.0.1:6379", keyPrefix: 5 } }).map((e) => e.path)).toEqual(["atrium.store.keyPrefix"]);
  });
});
