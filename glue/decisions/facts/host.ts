// Reduces a client's declared capabilities to the host-detection facts of
// spec/host-detection.md. Shapes only; the core decides what they mean.
import { CLIENT_CAPABILITIES_META_KEY } from "@modelcontextprotocol/server";
import type { Core, HostFacts } from "../core.js";
import { DeliveryOverride, ExtState, MimeState, Revision, UI_EXTENSION_ID } from "../generated/spec.js";
import { isJsonObject } from "../../support/json-object.js";


export type DeliveryOverrideName = keyof typeof DeliveryOverride;

export function hostFacts(core: Core, capabilities: unknown, override: DeliveryOverrideName, fileFallback: boolean): HostFacts {
  const facts: HostFacts = { ext: ExtState.absent, mime: MimeState.absent, appMime: false, override: DeliveryOverride[override], fileFallback };
  if (!isJsonObject(capabilities) || capabilities.extensions === undefined) return facts;
  const extensions = capabilities.extensions;
  if (!isJsonObject(extensions)) return { ...facts, ext: ExtState.malformed };
  if (!Object.hasOwn(extensions, UI_EXTENSION_ID)) return facts;
  const ext = extensions[UI_EXTENSION_ID];
  if (!isJsonObject(ext)) return { ...facts, ext: ExtState.malformed };
  if (!Object.hasOwn(ext, "mimeTypes")) return { ...facts, ext: ExtState.object };
  const list = ext.mimeTypes;
  if (!Array.isArray(list) || list.some((m) => typeof m !== "string")) return { ...facts, ext: ExtState.object, mime: MimeState.malformed };
  return { ...facts, ext: ExtState.object, mime: MimeState.list, appMime: list.some((m) => core.mimeIsApp(m)) };
}

/**
 * H13: whose capabilities judge a request. 2025-11-25: the session's, declared at initialize
 * (a request's `_meta` cannot change them). 2026-07-28: the request's own `_meta`, and nothing
 * else (absent or malformed → undefined, which hostFacts reads as a plain host).
 */
export function requestCapabilities(revision: Revision, session: unknown, meta: unknown): unknown {
  if (revision !== Revision.r2026_07_28) return session;
  return isJsonObject(meta) && Object.hasOwn(meta, CLIENT_CAPABILITIES_META_KEY) ? meta[CLIENT_CAPABILITIES_META_KEY] : undefined;
}
