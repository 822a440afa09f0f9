// The `oauth` keys of the client credentials grant (spec/oauth.md O15): validated, each error
// naming the key it is about.
import { describe, expect, it } from "vitest";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";

const errors = (oauth: Record<string, unknown>): string[] => {
  const r = validateConfig({ mcpServers: { m: { url: "https://mcp.example/mcp", oauth } } }, core());
  return r.ok ? [] : r.errors.map((e) => `${(e as { path?: string }).path}: ${(e as { message?: string }).message}`);
};

describe("oauth.grant client_credentials (SEP-1046)", () => {
  it("accepts a client ID with a secret, or with an absolute private key file and an algorithm", () => {
    expect(errors({ grant: "client_credentials", clientId: "svc", clientSecret: "s" })).toEqual([]);
    expect(errors({ grant: "client_credentials", clientId: "svc", privateKeyFile: "/etc/atrium/svc.pem", signingAlgorithm: "ES256" })).toEqual([]);
    expect(errors({ grant: "authorization_code", clientId: "svc" })).toEqual([]);
  });
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["an unknown grant", { grant: "password" }, /oauth\.grant.*must be one of "authorization_code", "client_credentials"/],
    ["no client ID", { grant: "client_credentials", clientSecret: "s" }, /oauth\.clientId.*is required with "grant": "client_credentials"/],
    ["no way to authenticate", { grant: "client_credentials", clientId: "svc" }, /oauth\.grant.*set "clientSecret" or "privateKeyFile"/],
    ["a secret and a key", { grant: "client_credentials", clientId: "svc", clientSecret: "s", privateKeyFile: "/k.pem" }, /oauth\.privateKeyFile.*keep one/],
    ["a redirect URI", { grant: "client_credentials", clientId: "svc", clientSecret: "s", redirectUri: "http://127.0.0.1:9/cb" }, /oauth\.redirectUri.*applies only to a person's login/],
    ["a metadata document", { grant: "client_credentials", clientId: "svc", clientSecret: "s", clientMetadataUrl: "https://a.example/c.json" }, /oauth\.clientMetadataUrl.*applies only to a person's login/],
    ["a key file with a person's login", { clientId: "svc", privateKeyFile: "/k.pem" }, /oauth\.privateKeyFile.*applies only with "grant": "client_credentials"/],
    ["a relative key file", { grant: "client_credentials", clientId: "svc", privateKeyFile: "k.pem" }, /oauth\.privateKeyFile.*must be an absolute path/],
    ["an unknown algorithm", { grant: "client_credentials", clientId: "svc", privateKeyFile: "/k.pem", signingAlgorithm: "HS256" }, /oauth\.signingAlgorithm.*must be one of RS256/],
    ["an algorithm without a key", { grant: "client_credentials", clientId: "svc", clientSecret: "s", signingAlgorithm: "ES256" }, /oauth\.signingAlgorithm.*applies only with "privateKeyFile"/],
  ];
  for (const [what, oauth, message] of cases) it(`refuses ${what}, naming the key`, () => expect(errors(oauth).join("\n")).toMatch(message));
});
