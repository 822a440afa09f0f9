// A tiny token issuer for the HTTP bench's team-mode part: node:http on 127.0.0.1 (an ephemeral
// port) serving RFC 8414 metadata (and the same document as OpenID discovery) whose jwks_uri
// names a JWKS of one RS256 key made here with jose, and RS256 JWT access tokens signed with that
// key for any subject. atrium reads the metadata and the JWKS once at start (serve --http fetches
// the key set before the first request), then verifies each bearer token offline.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export interface BenchIssuer {
  /** http://127.0.0.1:PORT, no trailing slash: atrium.http.auth.issuer and every token's `iss`. */
  issuer: string;
  /** A JWT access token for `subject`, `aud` = `audience`, expiring in an hour, `kid` = the JWKS key's. */
  token(subject: string, audience: string): Promise<string>;
  /** Requests the issuer answered, by path. */
  hits: Record<string, number>;
  close(): Promise<void>;
}

export async function startBenchIssuer(): Promise<BenchIssuer> {
  const kid = "bench-k1";
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" }] };
  const hits: Record<string, number> = {};
  let issuer = "";
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://issuer.invalid").pathname;
    hits[path] = (hits[path] ?? 0) + 1;
    const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method !== "GET") return send(405, { error: "method_not_allowed" });
    if (path === "/.well-known/oauth-authorization-server" || path === "/.well-known/openid-configuration") {
      return send(200, { issuer, jwks_uri: `${issuer}/jwks`, response_types_supported: [], subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["RS256"] });
    }
    if (path === "/jwks") return send(200, jwks);
    return send(404, { error: "not_found" });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    hits,
    token: (subject, audience) =>
      new SignJWT({ scope: "mcp:read" })
        .setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(privateKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
