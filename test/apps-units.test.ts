// glue/apps/ in process, with the real core (spec/app-calls.md A6–A7): the relay document a
// downstream UI is served in (resources.ts: which host, which item, which mime, the size bound,
// the downstream's CSP and permissions carried sanitized), a direct result's UI moved under
// atrium's URI (result-meta.ts), the URI itself (uri.ts), the policy and permissions
// (csp.ts) and the relay page's own markup (relay-page.ts). The connector is a small fake
// answering resources/read; its document goes through the one call path (calls/invoke.ts).
import { describe, expect, it } from "vitest";
import { ProtocolError } from "@modelcontextprotocol/server";
import { AppResources } from "../glue/apps/resources.js";
import { appMeta, withAppUi } from "../glue/apps/result-meta.js";
import { atriumUiUri, parseAtriumUiUri } from "../glue/apps/uri.js";
import { allowAttribute, cspFor, sanitizeCsp, sanitizePermissions } from "../glue/apps/csp.js";
import { APP_CALL_TOOL, relayPage } from "../glue/apps/relay-page.js";
import { DownstreamAccess, type DownstreamLink } from "../glue/calls/invoke.js";
import type { Catalog } from "../glue/catalog/catalog.js";
import { core, type HostDecision } from "../glue/decisions/core.js";
import { APP_MIME_TYPE, APP_RESOURCE_BYTES_MAX, HostKind } from "../glue/decisions/generated/spec.js";
import { AtriumError } from "../glue/support/errors.js";
import { LOCAL_PRINCIPAL } from "../glue/support/principal.js";

const appsHost = { kind: HostKind.apps } as HostDecision;
const plainHost = { kind: HostKind.plain } as HostDecision;
const BOARD = "ui://atrium/c/board/board/app.html";

/** A catalog with connector `board` and a link whose resources/read answers `answer` (or throws it). */
function resourcesOf(answer: Record<string, unknown> | Error, opts: { redacts?: boolean } = {}) {
  const reads: string[] = [];
  const link = {
    readResource: async (uri: string) => { reads.push(uri); if (answer instanceof Error) throw answer; return answer; },
    redactsSecrets: () => opts.redacts ?? false,
  } as unknown as DownstreamLink;
  const catalog = {
    owner: LOCAL_PRINCIPAL.id,
    viewOf: (address: unknown) => (address === "board." ? { id: "board", whenSettled: async () => {} } : undefined),
  } as unknown as Catalog;
  const resources = new AppResources({ core: core(), catalog, downstream: DownstreamAccess.grant({ link: (id) => (id === "board" ? link : undefined) }) });
  return { resources, reads };
}

const doc = (extra: Record<string, unknown> = {}) => ({ uri: "ui://board/app.html", mimeType: APP_MIME_TYPE, text: "<p>board</p>", ...extra });
/** The text of the one item `read` served. */
const servedText = (out: Awaited<ReturnType<AppResources["read"]>>) => (out!.contents[0] as { text: string }).text;
/** The downstream page a relay document carries. */
const carried = (relay: string) => Buffer.from(JSON.parse(/<script type="application\/json" id="atrium-relay">(.*?)<\/script>/s.exec(relay)![1]!).html, "base64").toString("utf8");

async function failureOf(p: Promise<unknown>): Promise<ProtocolError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(ProtocolError);
  return e as ProtocolError;
}

describe("A7: a downstream UI document is served inside atrium's relay, to an Apps host only", () => {
  it("an Apps host gets one item under atrium's URI, of the app mime, whose relay carries the downstream's page", async () => {
    const { resources, reads } = resourcesOf({ contents: [doc()] });
    const out = await resources.read(BOARD, appsHost);
    expect(reads).toEqual(["ui://board/app.html"]);
    expect(out!.contents).toHaveLength(1);
    const item = out!.contents[0] as { uri: string; mimeType: string; text: string; _meta?: unknown };
    expect(item.uri).toBe(BOARD);
    expect(item.mimeType).toBe(APP_MIME_TYPE);
    expect(carried(item.text)).toContain("<p>board</p>");
    expect(item).not.toHaveProperty("_meta");
  });

  it("a plain host, or a URI that is not one of atrium's app URIs, is served nothing and nothing is read", async () => {
    const { resources, reads } = resourcesOf({ contents: [doc()] });
    expect(await resources.read(BOARD, plainHost)).toBeUndefined();
    expect(await resources.read("ui://board/app.html", appsHost)).toBeUndefined();
    expect(await resources.read("ui://atrium/c/other/x.html", appsHost)).toBeUndefined();
    expect(reads).toEqual([]);
  });

  it("the item named by the downstream URI is served, else the first; an answer with no item is nothing", async () => {
    const { resources } = resourcesOf({ contents: [doc({ uri: "ui://board/other.html", text: "<p>other</p>" }), doc({ text: "<p>named</p>" }), "not an object"] });
    expect(carried(servedText(await resources.read(BOARD, appsHost)))).toContain("<p>named</p>");
    const first = resourcesOf({ contents: [doc({ uri: "ui://board/other.html", text: "<p>other</p>" })] });
    expect(carried(servedText(await first.resources.read(BOARD, appsHost)))).toContain("<p>other</p>");
    for (const answer of [{}, { contents: "x" }, { contents: [1, null] }]) expect(await resourcesOf(answer).resources.read(BOARD, appsHost)).toBeUndefined();
  });

  it("a document served as base64 (blob) is carried decoded", async () => {
    const { resources } = resourcesOf({ contents: [doc({ text: undefined, blob: Buffer.from("<p>from blob</p>").toString("base64") })] });
    expect(carried(servedText(await resources.read(BOARD, appsHost)))).toContain("<p>from blob</p>");
  });

  it("a document of another mime, without text or blob, or over APP_RESOURCE_BYTES_MAX fails, saying which", async () => {
    const wrongMime = await failureOf(resourcesOf({ contents: [doc({ mimeType: "text/html" })] }).resources.read(BOARD, appsHost));
    expect(wrongMime.message).toContain(`connector board answered "text/html", not an MCP App document (${APP_MIME_TYPE})`);
    const noMime = await failureOf(resourcesOf({ contents: [doc({ mimeType: 7 })] }).resources.read(BOARD, appsHost));
    expect(noMime.message).toContain('answered ""');
    const empty = await failureOf(resourcesOf({ contents: [doc({ text: 5 })] }).resources.read(BOARD, appsHost));
    expect(empty.message).toContain("connector board answered without text or blob");
    const big = await failureOf(resourcesOf({ contents: [doc({ text: "x".repeat(APP_RESOURCE_BYTES_MAX + 1) })] }).resources.read(BOARD, appsHost));
    expect(big.message).toContain(`is ${APP_RESOURCE_BYTES_MAX + 1} bytes; atrium relays at most ${APP_RESOURCE_BYTES_MAX}`);
    expect(big.message.startsWith(`MCP error ${big.code}: ${BOARD}: `)).toBe(true);
  });

  it("a document exactly at APP_RESOURCE_BYTES_MAX is served", async () => {
    const out = await resourcesOf({ contents: [doc({ text: "x".repeat(APP_RESOURCE_BYTES_MAX) })] }).resources.read(BOARD, appsHost);
    expect(out!.contents).toHaveLength(1);
  });

  it("a connector whose read fails: a protocol error naming the URI and the connector's typed message", async () => {
    const e = await failureOf(resourcesOf(new AtriumError("unavailable", "board is restarting")).resources.read(BOARD, appsHost));
    expect(e.message).toContain(`${BOARD}: board is restarting`);
    const other = await failureOf(resourcesOf(new Error("socket closed")).resources.read(BOARD, appsHost));
    expect(other.message).toContain("Error: socket closed");
  });

  it("the downstream's declared CSP domains, permissions and border preference are carried, sanitized, and bind the relay", async () => {
    const ui = { csp: { connectDomains: ["https://api.board.test", "*"] }, permissions: { camera: {}, usb: {} }, prefersBorder: false };
    const { resources } = resourcesOf({ contents: [doc({ _meta: { ui } })] });
    const item = (await resources.read(BOARD, appsHost))!.contents[0] as { text: string; _meta: unknown };
    expect(item._meta).toEqual({ ui: { csp: { connectDomains: ["https://api.board.test"] }, permissions: { camera: {} }, prefersBorder: false } });
    expect(item.text).toContain("connect-src https://api.board.test;");
    expect(JSON.parse(/id="atrium-relay">(.*?)<\/script>/s.exec(item.text)![1]!).allow).toBe("camera");
  });

  it("a border preference that is not a boolean, and a _meta.ui that is not an object, carry nothing", async () => {
    for (const meta of [{ ui: { prefersBorder: "yes" } }, { ui: "x" }, "x"]) {
      const item = (await resourcesOf({ contents: [doc({ _meta: meta })] }).resources.read(BOARD, appsHost))!.contents[0] as Record<string, unknown>;
      expect(item).not.toHaveProperty("_meta");
      expect(item.text as string).toContain("connect-src 'none'");
    }
  });
});

describe("A6: a direct result names the tool's UI under atrium's URI on an Apps host", () => {
  const shaped = { content: [{ type: "text" as const, text: "done" }] };

  it("an Apps host, a result as the tool gave it, a UI named: _meta rewritten in both keys", () => {
    const out = withAppUi(core(), appsHost, { connector: "board", toolUi: "ui://board/app.html", downstreamMeta: { hydrate: 1 }, shaped, asIs: true });
    expect(out).toEqual({ ...shaped, _meta: { hydrate: 1, ui: { resourceUri: BOARD }, "ui/resourceUri": BOARD } });
  });

  it("the result's own UI wins over the tool's", () => {
    const out = withAppUi(core(), appsHost, { connector: "board", toolUi: "ui://board/app.html", downstreamMeta: { ui: { resourceUri: "ui://board/other.html" } }, shaped, asIs: true });
    expect(out._meta).toMatchObject({ "ui/resourceUri": "ui://atrium/c/board/board/other.html" });
  });

  it("a plain host, a reshaped result, or no UI named: the result as it was", () => {
    expect(withAppUi(core(), plainHost, { connector: "board", toolUi: "ui://board/app.html", shaped, asIs: true })).toBe(shaped);
    expect(withAppUi(core(), appsHost, { connector: "board", toolUi: "ui://board/app.html", shaped, asIs: false })).toBe(shaped);
    expect(withAppUi(core(), appsHost, { connector: "board", downstreamMeta: { hydrate: 1 }, shaped, asIs: true })).toBe(shaped);
  });

  it("appMeta keeps the other keys of a nested ui object, and names no UI when there is none", () => {
    expect(appMeta("board", { ui: { visibility: ["app"] } }, "ui://board/app.html")).toEqual({ ui: { visibility: ["app"], resourceUri: BOARD }, "ui/resourceUri": BOARD });
    expect(appMeta("board", { ui: "not an object" }, "ui://board/app.html")).toEqual({ ui: { resourceUri: BOARD }, "ui/resourceUri": BOARD });
    expect(appMeta("board", undefined, "ui://board/app.html")).toEqual({ ui: { resourceUri: BOARD }, "ui/resourceUri": BOARD });
    expect(appMeta("board", undefined)).toBeUndefined();
  });
});

describe("atrium's URI for a downstream UI", () => {
  it("names the connector in its first segment and round-trips", () => {
    expect(atriumUiUri("board", "ui://board/app.html")).toBe(BOARD);
    expect(parseAtriumUiUri(BOARD)).toEqual({ connector: "board", downstream: "ui://board/app.html" });
    expect(parseAtriumUiUri("ui://atrium/c/b/x")).toEqual({ connector: "b", downstream: "ui://x" });
  });

  it("anything else is not one: another prefix, no connector, an invalid connector id, no path", () => {
    for (const uri of ["ui://atrium/view/v1", "ui://atrium/c/", "ui://atrium/c/board", "ui://atrium/c/board/", "ui://atrium/c/Board/x", "ui://atrium/c//x", "x ui://atrium/c/board/x"]) expect(parseAtriumUiUri(uri)).toBeUndefined();
  });
});

describe("the policy and permissions a relay declares", () => {
  it("only plain http(s) and ws(s) sources are kept, per list; a list that is not an array is dropped", () => {
    expect(sanitizeCsp({ connectDomains: ["https://a.test", "http://b.test:8080/p/", "ws://c.test:*", "wss://*.d.test", "*", "data:", "'self'", "https://a.test; x", "ftp://e.test", 1], resourceDomains: "https://x.test", frameDomains: ["https://f.test"], baseUriDomains: [], other: ["https://o.test"] }))
      .toEqual({ connectDomains: ["https://a.test", "http://b.test:8080/p/", "ws://c.test:*", "wss://*.d.test"], frameDomains: ["https://f.test"], baseUriDomains: [] });
    // A JSON value that is not a string is dropped even when it would read as a source once turned into one.
    expect(sanitizeCsp({ connectDomains: [["https://a.test"]] })).toEqual({ connectDomains: [] });
    expect(sanitizeCsp([])).toBeUndefined();
    expect(sanitizeCsp({})).toEqual({});
    expect(sanitizeCsp({ connectDomains: ["https://a.test/"] })).toEqual({ connectDomains: ["https://a.test/"] });
    expect(sanitizeCsp({ connectDomains: ["xhttps://a.test", "https://a.test x", "https://*.*.a.test"] })).toEqual({ connectDomains: [] });
  });

  it("permissions: the four the specification names, each only when declared as an object", () => {
    expect(sanitizePermissions({ camera: {}, microphone: {}, geolocation: true, clipboardWrite: {}, usb: {} })).toEqual({ camera: {}, microphone: {}, clipboardWrite: {} });
    expect(sanitizePermissions("camera")).toBeUndefined();
    expect(sanitizePermissions({})).toEqual({});
    expect(allowAttribute({ camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} })).toBe("camera; microphone; geolocation; clipboard-write");
    expect(allowAttribute({})).toBe("");
  });

  it("declared domains open exactly their directives; fonts only with resource domains", () => {
    expect(cspFor({ resourceDomains: ["https://cdn.test"], connectDomains: ["https://api.test"] })).toBe(
      "default-src 'none'; script-src 'unsafe-inline' https://cdn.test; style-src 'unsafe-inline' https://cdn.test; img-src data: https://cdn.test; media-src data: https://cdn.test; font-src https://cdn.test; connect-src https://api.test; frame-src 'none'; base-uri 'none'; object-src 'none'",
    );
    expect(cspFor({ frameDomains: ["https://video.test"], baseUriDomains: ["https://cdn.test"] })).toBe(
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; connect-src 'none'; frame-src https://video.test; base-uri https://cdn.test; object-src 'none'",
    );
    expect(cspFor(undefined)).toBe("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'; object-src 'none'");
    expect(cspFor({})).toBe(cspFor(undefined));
  });
});

describe("the relay page's own markup", () => {
  it("declares the policy and names the connector in escaped attributes, and hands the relay its config", () => {
    const page = relayPage({ connector: 'b"<&', html: "<p>x</p>", csp: `default-src 'none'; x"<&`, allow: "camera" });
    // A whole document whose nested frame fills it.
    expect(page.split("\n")).toEqual([
      "<!doctype html>",
      '<html lang="en"><head><meta charset="utf-8">',
      expect.stringMatching(/^<meta http-equiv="Content-Security-Policy" content=".*">$/),
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      expect.stringMatching(/^<title>.*<\/title>$/),
      "<style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}#app{display:block;border:0;width:100%;height:100%}</style>",
      "</head><body>",
      expect.stringMatching(/^<script type="application\/json" id="atrium-relay">.*<\/script>$/),
      expect.stringMatching(/^<script>\(\(\) => \{/),
      ...page.split("\n").slice(9, -1),
      "</body></html>",
    ]);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; x&quot;&lt;&amp;">`);
    expect(page).toContain("<title>b&quot;&lt;&amp;</title>");
    const config = JSON.parse(/id="atrium-relay">(.*?)<\/script>/s.exec(page)![1]!);
    expect(config).toMatchObject({ connector: 'b"<&', tool: APP_CALL_TOOL, allow: "camera", methodNotFound: -32601 });
    expect(page).toContain('frame.setAttribute("sandbox", "allow-scripts allow-forms")');
  });

  it("a page's doctype stays first, after a byte-order mark, spaces and comments; the guard comes next", () => {
    const page = carried(relayPage({ connector: "b", html: "\uFEFF <!-- a --><!DOCTYPE html><p>x</p>", csp: "", allow: "" }));
    expect(page.startsWith("\uFEFF <!-- a --><!DOCTYPE html><meta http-equiv=")).toBe(true);
    expect(page.match(/<!DOCTYPE/g)).toHaveLength(1);
    expect(page.endsWith("</script><p>x</p>")).toBe(true);
    expect(carried(relayPage({ connector: "b", html: "<p>x</p><!doctype html>", csp: "", allow: "" })).startsWith("<meta http-equiv=")).toBe(true);
  });
});
