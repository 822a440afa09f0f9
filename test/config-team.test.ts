// atrium.http and atrium.access as the validator reads them (docs/reference.md "Config"):
// defaults, every key's refusal naming its path, and access rules naming real connectors.
import { describe, it, expect } from "vitest";
import { core } from "../glue/decisions/core.js";
import { validateConfig } from "../glue/config/validate.js";
import { parseListen } from "../glue/config/validate-team.js";
import type { AtriumConfig, ConfigError } from "../glue/config/schema.js";

const c = core();
const base = (atrium: Record<string, unknown>) => ({ mcpServers: { desk: { command: "node" }, mail: { command: "node" } }, atrium });
function accepted(atrium: Record<string, unknown>): AtriumConfig {
  const r = validateConfig(base(atrium), c);
  if (!r.ok) expect.fail(JSON.stringify(r.errors));
  return r.config;
}
function refused(atrium: Record<string, unknown>): ConfigError[] {
  const r = validateConfig(base(atrium), c);
  if (r.ok) expect.fail("expected a refusal");
  return r.errors;
}
const paths = (errors: ConfigError[]) => errors.map((e) => e.path);

describe("atrium.http", () => {
  it("defaults to 127.0.0.1:8787, no extra origins, no public URL and no auth", () => {
    expect(accepted({}).http).toEqual({ listen: { host: "127.0.0.1", port: 8787 }, allowedOrigins: [], publicUrl: null, auth: null, metrics: { at: "listener" } });
  });
  it("serves /metrics on the listener without auth, nowhere by default with auth, or on a listener of its own (atrium.http.metrics)", () => {
    const auth = { issuer: "https://login.example.com", audience: "https://atrium.example.com/mcp" };
    expect(accepted({ http: { metrics: true } }).http.metrics).toEqual({ at: "listener" });
    expect(accepted({ http: { metrics: false } }).http.metrics).toEqual({ at: "off" });
    expect(accepted({ http: { auth } }).http.metrics).toEqual({ at: "off" });
    expect(accepted({ http: { auth, metrics: "127.0.0.1:9464" } }).http.metrics).toEqual({ at: "own", listen: { host: "127.0.0.1", port: 9464 } });
    expect(accepted({ http: { metrics: "[::1]:0" } }).http.metrics).toEqual({ at: "own", listen: { host: "::1", port: 0 } });
  });
  it("refuses /metrics without a token next to atrium.http.auth, and what is not true, false or HOST:PORT, naming atrium.http.metrics", () => {
    const auth = { issuer: "https://login.example.com", audience: "https://atrium.example.com/mcp" };
    const onListener = refused({ http: { auth, metrics: true } });
    expect(paths(onListener)).toEqual(["atrium.http.metrics"]);
    expect(onListener[0].message).toMatch(/without a token.*HOST:PORT/);
    for (const metrics of ["yes", "127.0.0.1", "127.0.0.1:70000", 9464, {}]) expect(paths(refused({ http: { metrics } }))).toEqual(["atrium.http.metrics"]);
  });
  it("reads HOST:PORT, bracketed IPv6 and port 0", () => {
    expect(parseListen("0.0.0.0:9000")).toEqual({ host: "0.0.0.0", port: 9000 });
    expect(parseListen("[::1]:8787")).toEqual({ host: "::1", port: 8787 });
    expect(parseListen("localhost:0")).toEqual({ host: "localhost", port: 0 });
  });
  it("refuses a listen without a port, with a port over 65535, or with a path, naming the key", () => {
    for (const listen of ["127.0.0.1", "127.0.0.1:70000", "http://127.0.0.1:80", "::1:80", ":80"]) {
      expect(paths(refused({ http: { listen } }))).toEqual(["atrium.http.listen"]);
    }
  });
  it("takes origins exactly as browsers send them and refuses paths, slashes and other schemes", () => {
    expect(accepted({ http: { allowedOrigins: ["https://chat.example.com", "http://10.0.0.5:3000"] } }).http.allowedOrigins).toEqual(["https://chat.example.com", "http://10.0.0.5:3000"]);
    expect(paths(refused({ http: { allowedOrigins: ["https://chat.example.com/", "https://a.example/x", "file:///x", "chat.example.com"] } }))).toEqual([
      "atrium.http.allowedOrigins[0]", "atrium.http.allowedOrigins[1]", "atrium.http.allowedOrigins[2]", "atrium.http.allowedOrigins[3]",
    ]);
  });
  it("reads auth with its defaults (no required scopes, the groups claim named groups)", () => {
    const auth = accepted({ http: { auth: { issuer: "https://login.example.com", audience: "https://atrium.example.com/mcp" } } }).http.auth;
    expect(auth).toEqual({ issuer: "https://login.example.com", audience: "https://atrium.example.com/mcp", requiredScopes: [], groupsClaim: "groups" });
  });
  it("refuses an auth block with a malformed issuer, a plain-http remote issuer, no audience or a bad scope, naming each key", () => {
    expect(paths(refused({ http: { auth: { issuer: "not a url", audience: "x" } } }))).toEqual(["atrium.http.auth.issuer"]);
    expect(paths(refused({ http: { auth: { issuer: "http://login.example.com", audience: "x" } } }))).toEqual(["atrium.http.auth.issuer"]);
    expect(paths(refused({ http: { auth: { issuer: "https://login.example.com?x=1", audience: "x" } } }))).toEqual(["atrium.http.auth.issuer"]);
    expect(paths(refused({ http: { auth: { issuer: "https://login.example.com" } } }))).toEqual(["atrium.http.auth.audience"]);
    expect(paths(refused({ http: { auth: { issuer: "https://login.example.com", audience: "x", requiredScopes: ["a b"] } } }))).toEqual(["atrium.http.auth.requiredScopes[0]"]);
    expect(paths(refused({ http: { auth: { issuer: "https://login.example.com", audience: "x", tenant: "y" } } }))).toEqual(["atrium.http.auth.tenant"]);
  });
  it("accepts an http issuer on this machine (a local authorization server)", () => {
    expect(accepted({ http: { auth: { issuer: "http://127.0.0.1:4444", audience: "x" } } }).http.auth?.issuer).toBe("http://127.0.0.1:4444");
  });
});

describe("atrium.access", () => {
  it("is null when absent: every principal may use every connector (spec/access.md G4)", () => {
    expect(accepted({}).access).toBeNull();
  });
  it("keeps rules as written, a rule without groups applying to everyone", () => {
    expect(accepted({ access: [{ connectors: ["desk"] }, { groups: ["ops"], connectors: ["mail", "desk"] }] }).access).toEqual([
      { connectors: ["desk"] }, { groups: ["ops"], connectors: ["mail", "desk"] },
    ]);
  });
  it("refuses a rule naming a connector that is not in mcpServers, one without connectors, and a non-list", () => {
    expect(paths(refused({ access: [{ connectors: ["dsk"] }] }))).toEqual(["atrium.access[0].connectors[0]"]);
    expect(paths(refused({ access: [{ groups: ["ops"] }] }))).toEqual(["atrium.access[0].connectors"]);
    expect(paths(refused({ access: { connectors: ["desk"] } }))).toEqual(["atrium.access"]);
    expect(paths(refused({ access: [{ connectors: ["desk"], group: ["ops"] }] }))).toEqual(["atrium.access[0].group"]);
  });
});

describe("a remote connector's auth (per-user logins)", () => {
  const remote = (entry: Record<string, unknown>) => validateConfig({ mcpServers: { crm: { url: "https://crm.example/mcp", ...entry } } }, c);
  it("is shared unless the entry says per-user", () => {
    const shared = remote({});
    const perUser = remote({ auth: "per-user" });
    if (!shared.ok || !perUser.ok) expect.fail("expected both accepted");
    expect(shared.config.connectors[0]).toMatchObject({ kind: "http", auth: "shared" });
    expect(perUser.config.connectors[0]).toMatchObject({ kind: "http", auth: "per-user" });
  });
  it("refuses another value, or per-user beside an Authorization header set for everyone, naming the key", () => {
    for (const entry of [{ auth: "personal" }, { auth: true }, { auth: "per-user", headers: { authorization: "Bearer x" } }]) {
      const r = remote(entry);
      if (r.ok) expect.fail(`expected a refusal of ${JSON.stringify(entry)}`);
      expect(r.errors.map((e) => e.path)).toEqual(["mcpServers.crm.auth"]);
    }
  });
  it("applies only to a remote server", () => {
    const r = validateConfig({ mcpServers: { desk: { command: "node", auth: "per-user" } } }, c);
    if (r.ok) expect.fail("expected a refusal");
    expect(r.errors.map((e) => e.path)).toEqual(["mcpServers.desk.auth"]);
  });
});
