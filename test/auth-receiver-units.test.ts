// The loopback redirect receiver of one login (glue/auth/receiver.ts), in process: what a redirect
// with the expected state carries (its code and issuer, or the authorization server's error, its
// description bounded); the receiver listens on 127.0.0.1 at its path (an ephemeral port unless
// one is named, and a port in use fails the start) and judges redirect URIs as loopback ones; it
// refuses an overlong request (the bound itself passes), another path (404), a missing or wrong
// state (400, still waiting), and a second redirect after the one accepted (a replay, sent on the
// same connection); it answers a plain page, settles the login once, and closes after use, on
// close() and when the login wait runs out (the timer's callback is called by the test: no wait).
import { afterEach, describe, expect, it, vi } from "vitest";
import { request } from "node:http";
import { connect, createServer } from "node:net";
import { PAGES, redirectOutcome, startReceiver, type Receiver } from "../glue/auth/receiver.js";
import { OAUTH_CALLBACK_PARAM_CHARS_MAX, OAUTH_LOGIN_WAIT_MS } from "../glue/decisions/generated/spec.js";
import { waitFor } from "./harness/until.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0)) c();
});

async function started(state = "the-state", opts?: Parameters<typeof startReceiver>[1]): Promise<Receiver> {
  const r = await startReceiver(state, opts);
  cleanups.push(() => r.close());
  return r;
}

interface Answer { status: number; type: string | undefined; cache: string | undefined; body: string }

/** One GET of `path` (sent as written, no normalising) on a fresh connection; "refused" when nothing listens. */
function get(receiver: Receiver, path: string): Promise<Answer | "refused"> {
  const port = Number(new URL(receiver.redirectUrl).port);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => { body += c; });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], cache: res.headers["cache-control"], body }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNREFUSED" ? resolve("refused") : reject(e)));
    req.end();
  });
}

/** Whether nothing accepts a connection at the receiver's port now. */
function refusesConnections(receiver: Receiver): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(Number(new URL(receiver.redirectUrl).port), "127.0.0.1");
    s.once("connect", () => { s.destroy(); resolve(false); });
    s.once("error", () => resolve(true));
  });
}

/** Whether the login's result has settled, without waiting for it. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(() => { done = true; }, () => { done = true; });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe("redirectOutcome: what a redirect with the expected state carries", () => {
  it("a code is the callback, with the issuer when the redirect names one and undefined (not null) when it does not", () => {
    expect(redirectOutcome(new URLSearchParams("code=abc&iss=https%3A%2F%2Fas.example"))).toStrictEqual({ ok: true, callback: { code: "abc", iss: "https://as.example" } });
    expect(redirectOutcome(new URLSearchParams("code=abc"))).toStrictEqual({ ok: true, callback: { code: "abc", iss: undefined } });
  });

  it("an error fails the login even with a code, naming the error and its description in parentheses", () => {
    const o = redirectOutcome(new URLSearchParams("code=abc&error=access_denied&error_description=the+person+said+no"));
    expect(o.ok).toBe(false);
    if (o.ok) return;
    expect(o.error.message).toBe("the authorization server answered access_denied (the person said no)");
  });

  it("no code and no error is a failure 'without a code'; an empty description adds nothing", () => {
    const none = redirectOutcome(new URLSearchParams(""));
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error.message).toBe("the authorization server answered without a code");
    const emptyCode = redirectOutcome(new URLSearchParams("code=&error_description="));
    expect(emptyCode.ok).toBe(false);
    if (!emptyCode.ok) expect(emptyCode.error.message).toBe("the authorization server answered without a code");
  });

  it("the description is cut at OAUTH_CALLBACK_PARAM_CHARS_MAX characters", () => {
    const long = "d".repeat(OAUTH_CALLBACK_PARAM_CHARS_MAX) + "TAIL";
    const o = redirectOutcome(new URLSearchParams({ error: "server_error", error_description: long }));
    expect(o.ok).toBe(false);
    if (!o.ok) expect(o.error.message).toBe(`the authorization server answered server_error (${"d".repeat(OAUTH_CALLBACK_PARAM_CHARS_MAX)})`);
  });
});

describe("startReceiver: where it listens", () => {
  it("listens on 127.0.0.1 at /callback on an ephemeral port, is a native app's receiver, and judges redirect URIs as loopback ones", async () => {
    const r = await started();
    expect(r.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/callback$/);
    expect(r.native).toBe(true);
    expect(r.refusal("http://127.0.0.1:8123/callback")).toBeUndefined();
    expect(r.refusal("http://elsewhere.example/callback")).toMatch(/does not point at this machine/);
    // Not on every interface: the IPv6 loopback at the same port finds nobody.
    const v6 = await new Promise<boolean>((resolve) => {
      const s = connect(Number(new URL(r.redirectUrl).port), "::1");
      s.once("connect", () => { s.destroy(); resolve(true); });
      s.once("error", () => resolve(false));
    });
    expect(v6).toBe(false);
  });

  it("takes the path it is given instead of /callback", async () => {
    const r = await started("s", { path: "/elsewhere/cb" });
    expect(r.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/elsewhere\/cb$/);
    expect(await get(r, "/callback?state=s&code=c")).toMatchObject({ status: 404 });
    expect(await get(r, "/elsewhere/cb?state=s&code=c")).toMatchObject({ status: 200 });
    await expect(r.result).resolves.toEqual({ code: "c" });
  });

  it("listens on the port it is given: a port in use fails the start", async () => {
    const first = await started();
    const port = Number(new URL(first.redirectUrl).port);
    await expect(startReceiver("s", { port })).rejects.toThrow(/EADDRINUSE/);
  });

  it("listens on the port it is given when it is free", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await started("s", { port });
    expect(r.redirectUrl).toBe(`http://127.0.0.1:${port}/callback`);
  });
});

describe("startReceiver: what it refuses, still waiting for the login", () => {
  it("a request of exactly OAUTH_CALLBACK_PARAM_CHARS_MAX characters is read; one character more is refused unread as too long", async () => {
    const r = await started("s");
    const prefix = "/callback?state=wrong&pad=";
    const atBound = prefix + "p".repeat(OAUTH_CALLBACK_PARAM_CHARS_MAX - prefix.length);
    expect(atBound).toHaveLength(OAUTH_CALLBACK_PARAM_CHARS_MAX);
    expect(await get(r, atBound)).toMatchObject({ status: 400, body: PAGES.wrongState });
    const over = await get(r, `${atBound}p`);
    expect(over).toEqual({ status: 400, type: "text/plain; charset=utf-8", cache: "no-store", body: PAGES.tooLong });
    // An overlong redirect with the right state is refused too, and the login still waits.
    const goodPrefix = "/callback?state=s&code=c&pad=";
    expect(await get(r, goodPrefix + "p".repeat(OAUTH_CALLBACK_PARAM_CHARS_MAX + 1 - goodPrefix.length))).toMatchObject({ status: 400, body: PAGES.tooLong });
    expect(await settled(r.result)).toBe(false);
    expect(await get(r, "/callback?state=s&code=c")).toMatchObject({ status: 200 });
  });

  it("another path is 404 'Not found.', even carrying the right state", async () => {
    const r = await started("s");
    expect(await get(r, "/other?state=s&code=c")).toEqual({ status: 404, type: "text/plain; charset=utf-8", cache: "no-store", body: "Not found.\n" });
    expect(await settled(r.result)).toBe(false);
  });

  it("a missing or wrong state is 400 with the wrong-state page, and the right one is still accepted afterwards", async () => {
    const r = await started("s");
    for (const path of ["/callback?code=c", "/callback?state=t&code=c", "/callback?state=&code=c"]) {
      expect(await get(r, path)).toEqual({ status: 400, type: "text/plain; charset=utf-8", cache: "no-store", body: PAGES.wrongState });
    }
    expect(await settled(r.result)).toBe(false);
    expect(await get(r, "/callback?state=s&code=good")).toMatchObject({ status: 200 });
    await expect(r.result).resolves.toEqual({ code: "good" });
  });
});

describe("startReceiver: the one redirect it accepts", () => {
  it("a code with the right state: 200 with the done page, the login resolves with the code and issuer, and the receiver closes", async () => {
    const r = await started("s");
    expect(await get(r, "/callback?state=s&code=abc&iss=https%3A%2F%2Fas.example")).toEqual({ status: 200, type: "text/plain; charset=utf-8", cache: "no-store", body: PAGES.done });
    await expect(r.result).resolves.toStrictEqual({ code: "abc", iss: "https://as.example" });
    await waitFor(() => refusesConnections(r), "the receiver to stop listening after the login");
  });

  it("the authorization server's error with the right state: 400 with the failed page, the login rejects naming the error, and the receiver closes", async () => {
    const r = await started("s");
    expect(await get(r, "/callback?state=s&error=access_denied")).toEqual({ status: 400, type: "text/plain; charset=utf-8", cache: "no-store", body: PAGES.failed });
    await expect(r.result).rejects.toThrow("the authorization server answered access_denied");
    await waitFor(() => refusesConnections(r), "the receiver to stop listening after the failed login");
  });

  it("a second redirect after the accepted one, on the same connection, is refused as a replay and the login keeps the first code", async () => {
    const r = await started("s");
    const sock = connect(Number(new URL(r.redirectUrl).port), "127.0.0.1");
    let data = "";
    sock.setEncoding("utf8");
    sock.on("data", (c: string) => { data += c; });
    const closed = new Promise((resolve) => sock.on("close", resolve));
    sock.write("GET /callback?state=s&code=first HTTP/1.1\r\nHost: x\r\n\r\nGET /callback?state=s&code=second HTTP/1.1\r\nHost: x\r\n\r\n");
    await expect(r.result).resolves.toEqual({ code: "first" });
    await closed;
    expect(data).toMatch(/^HTTP\/1\.1 200 /);
    expect(data).toContain(PAGES.done);
    expect(data).toMatch(/HTTP\/1\.1 400 Bad Request[\s\S]*Refused: this login was already completed/);
  });
});

describe("startReceiver: closing", () => {
  it("close() rejects a login still waiting, stops listening, and may be called again", async () => {
    const r = await started("s");
    r.close();
    await expect(r.result).rejects.toThrow("the login was not completed");
    expect(await get(r, "/callback?state=s&code=c")).toBe("refused");
    r.close();
  });

  it("the login wait is OAUTH_LOGIN_WAIT_MS by default, its timer keeps no process alive, and close() clears it", async () => {
    const realSet = globalThis.setTimeout;
    const made: { fn: () => void; ms: number | undefined; timer: NodeJS.Timeout }[] = [];
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
      const timer = realSet(fn, ms);
      made.push({ fn, ms, timer });
      return timer;
    }) as typeof setTimeout);
    const cleared = vi.spyOn(globalThis, "clearTimeout");
    const r = await started("s");
    expect(made).toHaveLength(1);
    expect(made[0].ms).toBe(OAUTH_LOGIN_WAIT_MS);
    expect(made[0].timer.hasRef()).toBe(false);
    expect(cleared).not.toHaveBeenCalledWith(made[0].timer);
    r.close();
    expect(cleared).toHaveBeenCalledWith(made[0].timer);
  });

  it("when the wait runs out the login rejects naming the default bound, and the receiver stops listening", async () => {
    const realSet = globalThis.setTimeout;
    const made: (() => void)[] = [];
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
      made.push(fn);
      return realSet(fn, ms);
    }) as typeof setTimeout);
    const r = await started("s");
    made[0](); // the wait runs out now
    await expect(r.result).rejects.toThrow(`no login arrived within ${OAUTH_LOGIN_WAIT_MS} ms (OAUTH_LOGIN_WAIT_MS)`);
    expect(await get(r, "/callback?state=s&code=c")).toBe("refused");
  });

  it("a given wait is the timer's delay and the bound its error names", async () => {
    const realSet = globalThis.setTimeout;
    const made: { fn: () => void; ms: number | undefined }[] = [];
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
      made.push({ fn, ms });
      return realSet(fn, ms);
    }) as typeof setTimeout);
    const r = await started("s", { waitMs: 123_456 });
    expect(made[0].ms).toBe(123_456);
    made[0].fn();
    await expect(r.result).rejects.toThrow("no login arrived within 123456 ms (OAUTH_LOGIN_WAIT_MS)");
  });
});
