// config/validate.ts in process, the parts config.test.ts leaves loose: each refusal's path and
// words exactly (what the operator reads to fix the file), and each default the validator fills
// in (log on, semantic search on, pins "pin", grant "authorization_code", auth "shared", inherit
// the environment): the connector's pins policy, the search embedder (url and model required, the
// API read from the path unless given), a connector's OAuth block key by key, its auth mode beside
// an Authorization header, and a limit a core does not know.
import { describe, expect, it } from "vitest";
import { core, type Core } from "../glue/decisions/core.js";
import { validateConfig } from "../glue/config/validate.js";
import { LimitCheck } from "../glue/decisions/generated/spec.js";
import type { AtriumConfig, ConfigError } from "../glue/config/schema.js";

const stdio = (entry: Record<string, unknown> = {}, atrium?: Record<string, unknown>) => ({ mcpServers: { desk: { command: "node", ...entry } }, ...(atrium ? { atrium } : {}) });
const remote = (entry: Record<string, unknown> = {}) => ({ mcpServers: { crm: { url: "https://crm.example.com/mcp", ...entry } } });
function accepted(raw: unknown, withCore: Core = core()): AtriumConfig {
  const r = validateConfig(raw, withCore);
  if (!r.ok) expect.fail(JSON.stringify(r.errors));
  return r.config;
}
function refused(raw: unknown, withCore: Core = core()): ConfigError[] {
  const r = validateConfig(raw, withCore);
  if (r.ok) expect.fail("expected a refusal");
  return r.errors;
}

describe("defaults the validator fills in", () => {
  it("the activity log is on unless atrium.log.enabled is false; anything else is refused at its path", () => {
    expect(accepted(stdio()).log).toEqual({ enabled: true });
    expect(accepted(stdio({}, { log: { enabled: false } })).log).toEqual({ enabled: false });
    expect(refused(stdio({}, { log: { enabled: "no" } }))).toEqual([{ path: "atrium.log.enabled", message: "expected a boolean, got string" }]);
    expect(refused(stdio({}, { log: "off" }))).toEqual([{ path: "atrium.log", message: "expected an object, got string" }]);
  });

  it("a stdio connector inherits the environment unless inheritEnv is false; an env value may be empty", () => {
    const c = accepted(stdio({ env: { TOKEN: "" } })).connectors[0];
    expect(c).toMatchObject({ kind: "stdio", inheritEnv: true, env: { TOKEN: "" } });
    expect(accepted(stdio({ inheritEnv: false })).connectors[0]).toMatchObject({ inheritEnv: false });
    expect(refused(stdio({ inheritEnv: "yes" }))).toEqual([{ path: "mcpServers.desk.inheritEnv", message: "expected a boolean, got string" }]);
  });

  it("the sections of team mode are read at their own paths", () => {
    expect(refused(stdio({}, { http: [] }))).toEqual([{ path: "atrium.http", message: "expected an object, got array" }]);
    expect(refused(stdio({}, { store: "redis://x" }))).toEqual([
      { path: "atrium.store", message: "expected an object, got string" },
      { path: "atrium.store.url", message: 'missing: the Redis or Valkey server, e.g. "redis://127.0.0.1:6379" (rediss:// for TLS)' },
    ]);
    expect(refused(stdio({}, { search: 1 }))).toEqual([{ path: "atrium.search", message: "expected an object, got number" }]);
    expect(accepted(stdio({}, { store: null })).store).toBeNull();
    expect(accepted(stdio({})).store).toBeNull();
  });

  it("an access rule names connectors by id: a connector with a bad id is still known to the rules", () => {
    const errors = refused({ mcpServers: { Desk: { command: "node" } }, atrium: { access: [{ connectors: ["Desk"] }] } });
    expect(errors.map((e) => e.path)).toEqual(["mcpServers.Desk"]);
    expect(refused({ mcpServers: { desk: { command: "node" } }, atrium: { access: [{ connectors: ["mail"] }] } })).toEqual([{ path: "atrium.access[0].connectors[0]", message: '"mail" is not a connector in mcpServers' }]);
  });
});

describe("a connector's pins policy (spec/pins.md)", () => {
  it('"pin" by default; "pin", "auto-accept" and "off" carried', () => {
    expect(accepted(stdio()).connectors[0].pins).toBe("pin");
    for (const pins of ["pin", "auto-accept", "off"]) expect(accepted(stdio({ pins })).connectors[0].pins).toBe(pins);
  });

  it("another word or type is refused at its path, with what each setting does", () => {
    expect(refused(stdio({ pins: "always" }))).toEqual([{ path: "mcpServers.desk.pins", message: 'must be one of "pin", "auto-accept", "off", got "always" ("pin" quarantines a changed or new tool until `atrium pins accept`; "auto-accept" records changes without quarantine; "off" pins nothing)' }]);
    expect(refused(stdio({ pins: false }))).toEqual([{ path: "mcpServers.desk.pins", message: "expected a string, got boolean" }]);
  });
});

describe("atrium.search", () => {
  const embedder = (e: unknown, semantic?: unknown) => stdio({}, { search: { ...(semantic === undefined ? {} : { semantic }), embedder: e } });

  it("semantic search is on unless false; no embedder unless one is given", () => {
    expect(accepted(stdio()).search).toEqual({ semantic: true, embedder: null });
    expect(accepted(stdio({}, { search: { semantic: false } })).search).toEqual({ semantic: false, embedder: null });
    expect(accepted(embedder(null)).search).toEqual({ semantic: true, embedder: null });
    expect(refused(stdio({}, { search: { semantic: 1 } }))).toEqual([{ path: "atrium.search.semantic", message: "expected a boolean, got number" }]);
  });

  it("an embedder's API is read from its path (Ollama's /api/embed, a trailing slash or not), else OpenAI's; an explicit api wins", () => {
    const at = (url: string, extra: Record<string, unknown> = {}) => accepted(embedder({ url, model: "m", ...extra })).search.embedder;
    expect(at("http://localhost:11434/api/embed")).toEqual({ url: "http://localhost:11434/api/embed", model: "m", api: "ollama", headers: {} });
    expect(at("http://localhost:11434/api/embed//")?.api).toBe("ollama");
    expect(at("http://localhost:11434/api/embed/v2")?.api).toBe("openai");
    expect(at("http://localhost:8080/v1/embeddings")?.api).toBe("openai");
    expect(at("http://localhost:8080/v1/embeddings", { api: "ollama" })?.api).toBe("ollama");
    expect(at("http://localhost:8080/x", { headers: { "X-Key": "k" } })?.headers).toEqual({ "X-Key": "k" });
  });

  it("an embedder needs a url and a model, each missing one named with an example", () => {
    expect(refused(embedder({}))).toEqual([
      { path: "atrium.search.embedder.url", message: 'missing: the endpoint atrium POSTs texts to, e.g. "http://localhost:11434/api/embed" (Ollama) or "http://localhost:8080/v1/embeddings" (OpenAI-compatible)' },
      { path: "atrium.search.embedder.model", message: "missing: the model name the endpoint serves" },
    ]);
    expect(refused(embedder({ url: "http://localhost:8080/v1/embeddings" }))).toEqual([{ path: "atrium.search.embedder.model", message: "missing: the model name the endpoint serves" }]);
    expect(refused(embedder({ url: 5, model: 6 })).map((e) => e.path)).toEqual(["atrium.search.embedder.url", "atrium.search.embedder.model"]);
  });

  it("a bad api, an api of another type, a bad header and an embedder that is not an object are refused at their paths", () => {
    const base = { url: "http://localhost:8080/v1/embeddings", model: "m" };
    expect(refused(embedder({ ...base, api: "cohere" }))).toEqual([{ path: "atrium.search.embedder.api", message: 'must be one of "ollama", "openai", got "cohere"' }]);
    expect(refused(embedder({ ...base, api: 1 }))).toEqual([{ path: "atrium.search.embedder.api", message: "expected a string, got number" }]);
    expect(refused(embedder({ ...base, headers: { "X-Key": 1 } })).map((e) => e.path)).toEqual(["atrium.search.embedder.headers.X-Key"]);
    expect(refused(embedder("http://localhost:8080"))).toEqual([{ path: "atrium.search.embedder", message: "expected an object, got string" }]);
  });
});

describe("a remote connector's oauth block", () => {
  const oauth = (o: unknown, extra: Record<string, unknown> = {}) => remote({ oauth: o, ...extra });

  it("absent is no OAuth settings; present, the grant is authorization_code unless said", () => {
    expect(accepted(remote()).connectors[0]).toMatchObject({ oauth: null, auth: "shared" });
    expect(accepted(oauth({})).connectors[0]).toMatchObject({ oauth: { grant: "authorization_code", clientId: null, clientSecret: null, scope: null, redirectUri: null } });
  });

  it("each key is read at its own path", () => {
    expect(refused(oauth({ clientId: 5 }))).toEqual([{ path: "mcpServers.crm.oauth.clientId", message: "expected a string, got number" }]);
    expect(refused(oauth({ scope: "" }))).toEqual([{ path: "mcpServers.crm.oauth.scope", message: "must not be empty" }]);
  });

  it("a grant that is not one of the two is refused, naming both", () => {
    expect(refused(oauth({ grant: "password" }))).toEqual([{ path: "mcpServers.crm.oauth.grant", message: 'must be one of "authorization_code", "client_credentials", got "password"' }]);
    expect(refused(oauth({ grant: 7 }))).toEqual([{ path: "mcpServers.crm.oauth.grant", message: 'must be one of "authorization_code", "client_credentials", got "7"' }]);
  });

  it("a redirect URI must come back to this machine", () => {
    expect(accepted(oauth({ redirectUri: "http://127.0.0.1:8976/callback" })).connectors[0].kind).toBe("http");
    const [e] = refused(oauth({ redirectUri: "https://attacker.example/callback" }));
    expect(e.path).toBe("mcpServers.crm.oauth.redirectUri");
    expect(e.message.length).toBeGreaterThan(0);
  });

  it("a client secret needs a client ID", () => {
    expect(refused(oauth({ clientSecret: "s" }))).toEqual([{ path: "mcpServers.crm.oauth.clientSecret", message: 'applies only with "clientId"' }]);
    expect(accepted(oauth({ clientId: "atrium", clientSecret: "s" })).connectors[0].kind).toBe("http");
  });

  it("a client metadata URL is https:// with a host and a path", () => {
    const msg = "must be an https:// URL with a path (a Client ID Metadata Document)";
    expect(accepted(oauth({ clientMetadataUrl: "https://atrium.example/client.json" })).connectors[0].kind).toBe("http");
    for (const bad of ["http://atrium.example/client.json", "https://atrium.example/", "https:///client.json", "https://atrium.example", " https://atrium.example/client.json"]) {
      expect(refused(oauth({ clientMetadataUrl: bad }))).toEqual([{ path: "mcpServers.crm.oauth.clientMetadataUrl", message: msg }]);
    }
  });

  it("a signing algorithm that is not one atrium signs with is refused at its path", () => {
    const errors = refused(oauth({ grant: "client_credentials", clientId: "a", privateKeyFile: "/keys/a.pem", signingAlgorithm: "HS256" }));
    expect(errors).toEqual([{ path: "mcpServers.crm.oauth.signingAlgorithm", message: expect.stringMatching(/^must be one of .*RS256.*, got "HS256"$/) }]);
  });
});

describe("a remote connector's auth mode", () => {
  it('"shared" by default; "per-user" carried', () => {
    expect(accepted(remote()).connectors[0]).toMatchObject({ auth: "shared" });
    expect(accepted(remote({ auth: "per-user", headers: { "X-Tenant": "t" } })).connectors[0]).toMatchObject({ auth: "per-user" });
  });

  it("another word or type is refused, naming both modes", () => {
    expect(refused(remote({ auth: "each" }))).toEqual([{ path: "mcpServers.crm.auth", message: 'must be one of "shared", "per-user", got "each"' }]);
    expect(refused(remote({ auth: 1 }))).toEqual([{ path: "mcpServers.crm.auth", message: 'must be one of "shared", "per-user", got "1"' }]);
  });

  it('"per-user" beside an Authorization header for everyone (any case) is refused', () => {
    const msg = `"per-user" logs each person in with OAuth, but this entry's headers set an Authorization for everyone; remove one of the two`;
    expect(refused(remote({ auth: "per-user", headers: { authorization: "Bearer x" } }))).toEqual([{ path: "mcpServers.crm.auth", message: msg }]);
    expect(refused(remote({ auth: "per-user", headers: { AUTHORIZATION: "Bearer x" } }))).toEqual([{ path: "mcpServers.crm.auth", message: msg }]);
    expect(accepted(remote({ auth: "shared", headers: { Authorization: "Bearer x" } })).connectors[0]).toMatchObject({ auth: "shared" });
  });
});

describe("other connector and atrium fields", () => {
  it("data and protocol of another type are refused at their paths", () => {
    expect(refused(stdio({ data: 1 }))).toEqual([{ path: "mcpServers.desk.data", message: "expected a string, got number" }]);
    expect(accepted(stdio()).connectors[0]).toMatchObject({ privateData: false, protocol: "auto" });
  });

  it("a delivery of another type is refused at its path", () => {
    expect(refused(stdio({}, { views: { delivery: 1 } }))).toEqual([{ path: "atrium.views.delivery", message: "expected a string, got number" }]);
  });

  it("a budget the core does not know is refused naming it, not accepted", () => {
    const c = core();
    const unknowing: Core = { ...c, limitAccepts: () => LimitCheck.unknown_budget };
    const errors = refused(stdio({}, { sandbox: { hostCalls: 5 } }), unknowing);
    expect(errors).toEqual([{ path: "atrium.sandbox.hostCalls", message: expect.stringMatching(/^the decision core does not know budget \d+$/) }]);
  });

  it("a limit of another type is refused and the default kept for the rest", () => {
    expect(refused(stdio({ timeoutMs: "60s" }))).toEqual([{ path: "mcpServers.desk.timeoutMs", message: "expected a whole number, got string" }]);
  });
});
