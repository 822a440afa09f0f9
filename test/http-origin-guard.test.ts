// The Origin/Host check of `serve --http` (glue/http/origin-guard.ts): a loopback listener answers
// to this machine's names and, behind a reverse proxy that passes the public Host on, to
// atrium.http.publicUrl's host name, never to another name (DNS rebinding).
import { describe, expect, it } from "vitest";
import { refusedOrigin } from "../glue/http/origin-guard.js";

describe("origin guard: Host on a loopback listener", () => {
  const plain = { allowedOrigins: [], loopback: true };
  const proxied = { ...plain, publicHost: "atrium.example.com" };
  it("serves this machine's names", () => {
    expect(refusedOrigin(plain, undefined, "127.0.0.1:8787")).toBeUndefined();
    expect(refusedOrigin(plain, undefined, "localhost:8787")).toBeUndefined();
  });
  it("refuses the publicUrl host when no publicUrl is configured", () => {
    expect(refusedOrigin(plain, undefined, "atrium.example.com")).toMatch(/Host header/);
  });
  it("serves publicUrl's host name, with or without a port, and still refuses any other name", () => {
    expect(refusedOrigin(proxied, undefined, "atrium.example.com")).toBeUndefined();
    expect(refusedOrigin(proxied, undefined, "atrium.example.com:443")).toBeUndefined();
    expect(refusedOrigin(proxied, undefined, "rebound.example")).toMatch(/Host header/);
    expect(refusedOrigin(proxied, undefined, "atrium.example.com.evil.example")).toMatch(/Host header/);
  });
  it("does not check Host on a non-loopback listener (auth is required there)", () => {
    expect(refusedOrigin({ allowedOrigins: [], loopback: false }, undefined, "anything.example")).toBeUndefined();
  });
  it("refuses a foreign Origin unless listed", () => {
    expect(refusedOrigin(proxied, "https://evil.example", "atrium.example.com")).toMatch(/origin not allowed/);
    expect(refusedOrigin({ ...proxied, allowedOrigins: ["https://atrium.example.com"] }, "https://atrium.example.com", "atrium.example.com")).toBeUndefined();
  });
});
