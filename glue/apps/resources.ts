// resources/read of a downstream UI (ui://atrium/c/<connector>/…, spec/app-calls.md A7): the
// connector's own document, read through the one call path (calls/invoke.ts readAppResource),
// bounded, and served inside atrium's relay (relay-page.ts) with the downstream's CSP domains
// and permissions carried unchanged or stricter (csp.ts). Only an Apps host is served; to any
// other the URI does not exist.
import { ProtocolError, ProtocolErrorCode, type ReadResourceResult } from "@modelcontextprotocol/server";
import type { Core, HostDecision } from "../decisions/core.js";
import type { Catalog } from "../catalog/catalog.js";
import { readAppResource, type DownstreamAccess } from "../calls/invoke.js";
import { APP_MIME_TYPE, APP_RESOURCE_BYTES_MAX, AppResource } from "../decisions/generated/spec.js";
import { AtriumError, clampEcho } from "../support/errors.js";
import { isJsonObject } from "../support/json-object.js";
import { parseAtriumUiUri } from "./uri.js";
import { allowAttribute, cspFor, sanitizeCsp, sanitizePermissions } from "./csp.js";
import { relayPage } from "./relay-page.js";

/** A protocol error worded like atrium's others ("MCP error <code>: …"). */
const failure = (message: string) => new ProtocolError(ProtocolErrorCode.InternalError, `MCP error ${ProtocolErrorCode.InternalError}: ${clampEcho(message)}`);

export class AppResources {
  constructor(private readonly deps: { core: Core; catalog: Catalog; downstream: DownstreamAccess }) {}

  /** The relay document for `uri`, or undefined when atrium serves this host no such resource. */
  /** `catalog`: the catalog as the asking principal sees it (an app of a connector outside it is not served). */
  async read(uri: string, host: HostDecision, signal?: AbortSignal, catalog: Catalog = this.deps.catalog): Promise<ReadResourceResult | undefined> {
    const target = parseAtriumUiUri(uri);
    if (!target) return undefined;
    // A7 for a document of the app mime: a host this would not serve is not served any (nothing is read for it).
    if (this.deps.core.appResource(host.kind, true) !== AppResource.served) return undefined;
    let raw: Record<string, unknown> | undefined;
    try {
      raw = await readAppResource({ ...this.deps, catalog }, target.connector, target.downstream, signal);
    } catch (e) {
      throw failure(`${uri}: ${e instanceof AtriumError ? e.message : String(e)}`);
    }
    const contents = raw && Array.isArray(raw.contents) ? raw.contents.filter(isJsonObject) : [];
    const item = contents.find((c) => c.uri === target.downstream) ?? contents[0];
    if (!item) return undefined;
    const mime = typeof item.mimeType === "string" ? item.mimeType : "";
    if (this.deps.core.appResource(host.kind, this.deps.core.mimeIsApp(mime)) !== AppResource.served) throw failure(`${uri}: connector ${target.connector} answered ${JSON.stringify(mime)}, not an MCP App document (${APP_MIME_TYPE}); atrium relays MCP App documents only`);
    const html = typeof item.text === "string" ? item.text : typeof item.blob === "string" ? Buffer.from(item.blob, "base64").toString("utf8") : undefined;
    if (html === undefined) throw failure(`${uri}: connector ${target.connector} answered without text or blob`);
    const bytes = Buffer.byteLength(html);
    if (bytes > APP_RESOURCE_BYTES_MAX) throw failure(`${uri}: the document of connector ${target.connector} is ${bytes} bytes; atrium relays at most ${APP_RESOURCE_BYTES_MAX} (APP_RESOURCE_BYTES_MAX)`);
    const declared = isJsonObject(item._meta) && isJsonObject(item._meta.ui) ? item._meta.ui : {};
    const csp = sanitizeCsp(declared.csp);
    const permissions = sanitizePermissions(declared.permissions);
    const ui = { ...(csp && { csp }), ...(permissions && { permissions }), ...(typeof declared.prefersBorder === "boolean" && { prefersBorder: declared.prefersBorder }) };
    const text = relayPage({ connector: target.connector, html, csp: cspFor(csp), allow: allowAttribute(permissions) });
    return { contents: [{ uri, mimeType: APP_MIME_TYPE, text, ...(Object.keys(ui).length > 0 && { _meta: { ui } }) }] };
  }
}
