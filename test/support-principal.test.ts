// The principal a verified token names (support/principal.ts): one id per (iss, sub) pair, the
// same for the same pair, and different whenever either differs, however the strings are cut.
import { describe, it, expect } from "vitest";
import { LOCAL_PRINCIPAL, tokenPrincipal } from "../glue/support/principal.js";

describe("principal ids", () => {
  it("the same issuer and subject give the same id; another subject or issuer another", () => {
    const a = tokenPrincipal("https://idp.example", "alice", [], []);
    expect(tokenPrincipal("https://idp.example", "alice", ["ops"], ["mcp"]).id).toBe(a.id);
    expect(tokenPrincipal("https://idp.example", "bob", [], []).id).not.toBe(a.id);
    expect(tokenPrincipal("https://other.example", "alice", [], []).id).not.toBe(a.id);
  });

  it("an issuer/subject cut in another place is another principal (no separator can be forged)", () => {
    expect(tokenPrincipal("a\0b", "c", [], []).id).not.toBe(tokenPrincipal("a", "b\0c", [], []).id);
    expect(tokenPrincipal("a\"", "b", [], []).id).not.toBe(tokenPrincipal("a", "\"b", [], []).id);
  });

  it("a token's id names no one: it never contains the subject and never equals `local`", () => {
    const p = tokenPrincipal("https://idp.example", "alice@example.com", [], []);
    expect(p.id).toMatch(/^p:[0-9a-f]{64}$/);
    expect(p.id).not.toContain("alice");
    expect(p.id).not.toBe(LOCAL_PRINCIPAL.id);
  });
});
