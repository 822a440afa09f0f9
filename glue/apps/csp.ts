// What a served downstream UI carries of the downstream's `_meta.ui` (spec/app-calls.md A7):
// its CSP domains and permissions, unchanged or stricter, and the Content-Security-Policy the
// MCP Apps specification builds from those domains, which the relay writes into its own
// document (a policy a <meta> declares binds the relay and, inherited, the nested page).
import { isJsonObject } from "../support/json-object.js";

const CSP_KEYS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;
type CspKey = (typeof CSP_KEYS)[number];
export type AppCsp = Partial<Record<CspKey, string[]>>;

/** MCP Apps permissions and the Permissions Policy feature each asks for. */
const PERMISSIONS = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" } as const;
type PermissionKey = keyof typeof PERMISSIONS;
export type AppPermissions = Partial<Record<PermissionKey, Record<string, never>>>;

/**
 * One source a declared domain may be: an http(s) or ws(s) origin, a leading `*.` wildcard
 * label allowed, with an optional port and path. Anything else (keywords, schemes such as
 * `data:`, a bare `*`, quotes, `;` or `,`, spaces) could loosen or break the policy and is dropped.
 */
const SOURCE = /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::(?:[0-9]+|\*))?(?:\/[A-Za-z0-9._~!$&()*+=:@%/-]*)?$/;

/** The declared CSP domains, each list keeping only plain sources; undefined when none is declared. */
export function sanitizeCsp(raw: unknown): AppCsp | undefined {
  if (!isJsonObject(raw)) return undefined;
  const out: AppCsp = {};
  for (const key of CSP_KEYS) {
    const list = Object.hasOwn(raw, key) ? raw[key] : undefined;
    if (Array.isArray(list)) out[key] = list.filter((s): s is string => typeof s === "string" && SOURCE.test(s));
  }
  return out;
}

/** The declared permissions the specification names, each as `{}`; undefined when none is declared. */
export function sanitizePermissions(raw: unknown): AppPermissions | undefined {
  if (!isJsonObject(raw)) return undefined;
  const out: AppPermissions = {};
  for (const key of Object.keys(PERMISSIONS) as PermissionKey[]) if (Object.hasOwn(raw, key) && isJsonObject(raw[key])) out[key] = {};
  return out;
}

/** The iframe `allow` attribute granting exactly the declared permissions ("" for none). */
export function allowAttribute(permissions: AppPermissions | undefined): string {
  return (Object.keys(PERMISSIONS) as PermissionKey[]).filter((k) => permissions?.[k] !== undefined).map((k) => PERMISSIONS[k]).join("; ");
}

/**
 * The policy the MCP Apps specification asks a host for — its restrictive default when nothing
 * is declared, the declared domains added to the directives they map to otherwise — closed
 * further: no `'self'` (inside the relay it would name the host's origin, which the downstream
 * never declared), and `frame-src`, `base-uri` and `object-src` closed unless declared.
 */
export function cspFor(csp: AppCsp | undefined): string {
  const resources = csp?.resourceDomains ?? [];
  const connect = csp?.connectDomains ?? [];
  const frames = csp?.frameDomains ?? [];
  const bases = csp?.baseUriDomains ?? [];
  const directive = (name: string, base: string[], extra: string[]) => [name, ...base, ...extra].join(" ");
  return [
    "default-src 'none'",
    directive("script-src", ["'unsafe-inline'"], resources),
    directive("style-src", ["'unsafe-inline'"], resources),
    directive("img-src", ["data:"], resources),
    directive("media-src", ["data:"], resources),
    ...(resources.length ? [directive("font-src", [], resources)] : []),
    connect.length ? directive("connect-src", [], connect) : "connect-src 'none'",
    frames.length ? directive("frame-src", [], frames) : "frame-src 'none'",
    bases.length ? directive("base-uri", [], bases) : "base-uri 'none'",
    "object-src 'none'",
  ].join("; ");
}
