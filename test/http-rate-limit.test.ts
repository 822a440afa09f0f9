// principal_requests_per_minute (spec/budgets.md): each principal's requests in a sliding minute.
// The window is proved on a fake clock (no wall-clock bound); the door is proved through the real
// HTTP server: one principal past its limit gets 429 with Retry-After and a typed rate_limited
// error, its body is never handed on, and another principal is still served.
import { afterEach, describe, expect, it } from "vitest";
import { core } from "../glue/decisions/core.js";
import { MemoryRateWindows } from "../glue/store/rate-windows.js";
import { startHttpServer, type HttpServer } from "../glue/http/server.js";
import type { Authenticator } from "../glue/http/authenticator.js";
import type { McpEndpoint } from "../glue/http/mcp-endpoint.js";
import { tokenPrincipal, type Principal } from "../glue/support/principal.js";

const MINUTE = 60_000;

describe("principal_requests_per_minute: the sliding window", () => {
  it("admits `limit` requests in a minute, refuses the next with the time until the oldest leaves, and admits again once it has", async () => {
    const w = new MemoryRateWindows(core(), 3);
    expect(await w.take("a", 1_000)).toEqual({ ok: true });
    expect(await w.take("a", 2_000)).toEqual({ ok: true });
    expect(await w.take("a", 30_000)).toEqual({ ok: true });
    expect(await w.take("a", 40_000)).toEqual({ ok: false, retryAfterMs: 1_000 + MINUTE - 40_000, limit: 3 });
    // A refused request is not counted: the oldest still leaves at 61 s.
    expect(await w.take("a", 60_999)).toEqual({ ok: false, retryAfterMs: 1, limit: 3 });
    expect(await w.take("a", 61_000)).toEqual({ ok: true });
    expect(await w.take("a", 61_500)).toEqual({ ok: false, retryAfterMs: 2_000 + MINUTE - 61_500, limit: 3 });
  });

  it("keeps each principal's window apart", async () => {
    const w = new MemoryRateWindows(core(), 1);
    expect(await w.take("a", 0)).toEqual({ ok: true });
    expect(await w.take("a", 1)).toMatchObject({ ok: false });
    expect(await w.take("b", 2)).toEqual({ ok: true });
    expect(await w.take("b", 3)).toMatchObject({ ok: false });
  });

  it("uses the budget's default when no limit is given (600 a minute)", async () => {
    const w = new MemoryRateWindows(core());
    for (let i = 0; i < 600; i++) expect(await w.take("a", i)).toEqual({ ok: true });
    expect(await w.take("a", 600)).toMatchObject({ ok: false, limit: 600 });
  });
});

/** Bearer alice / Bearer bob are two principals; anything else is refused 401. */
const people: Record<string, Principal> = { alice: tokenPrincipal("https://idp.test", "alice", [], []), bob: tokenPrincipal("https://idp.test", "bob", [], []) };
const authenticator: Authenticator = {
  authenticate: async (h) => {
    const p = people[(h ?? "").replace(/^Bearer /, "")];
    return p ? { ok: true, principal: p } : { ok: false, status: 401, headers: {}, body: { error: "invalid_token" } };
  },
  documentAt: () => undefined,
  ready: () => true,
};

describe("principal_requests_per_minute: at the HTTP door", () => {
  let server: HttpServer | undefined;
  afterEach(async () => server?.close());

  it("answers a principal past its limit 429 with Retry-After and rate_limited, hands nothing on, and still serves another principal", async () => {
    const handled: string[] = [];
    const endpoint: McpEndpoint = {
      handle: async (_req, body, principal) => {
        handled.push(`${principal.subject}:${(body as { id: number }).id}`);
        return Response.json({ jsonrpc: "2.0", id: (body as { id: number }).id, result: {} });
      },
      notify: { toolsChanged: () => {}, promptsChanged: () => {} } as unknown as McpEndpoint["notify"],
      sessions: 0,
      close: async () => {},
    };
    let clock = 100_000;
    server = await startHttpServer({
      host: "127.0.0.1", port: 0, endpoint, authenticator,
      rates: new MemoryRateWindows(core(), 2), now: () => clock,
      origins: { allowedOrigins: [], loopback: true },
      limits: { maxBytes: 65_536, maxDepth: 64, maxIdBytes: 256 },
      headerBytes: 16_384, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000,
      ready: async () => true,
    });
    const post = (who: string, id: number) =>
      fetch(server!.url, { method: "POST", headers: { authorization: `Bearer ${who}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }) });

    expect((await post("alice", 1)).status).toBe(200);
    clock += 10_000;
    expect((await post("alice", 2)).status).toBe(200);
    clock += 5_500;
    const refused = await post("alice", 3);
    expect(refused.status).toBe(429);
    // The oldest request leaves the window 44.5 s from now: Retry-After rounds up to whole seconds.
    expect(refused.headers.get("retry-after")).toBe("45");
    const body = (await refused.json()) as { id: unknown; error: { code: number; data: { atrium: { code: string; retryable: boolean; details: { retryAfterMs: number } } } } };
    expect(body.id).toBeNull();
    expect(body.error.data.atrium).toMatchObject({ code: "rate_limited", retryable: true, details: { retryAfterMs: 44_500 } });

    expect((await post("bob", 4)).status).toBe(200);
    // An unauthenticated request is refused 401 and handed on to nothing.
    expect((await post("mallory", 5)).status).toBe(401);
    clock += 44_500;
    expect((await post("alice", 6)).status).toBe(200);
    expect(handled).toEqual(["alice:1", "alice:2", "bob:4", "alice:6"]);
  });
});
