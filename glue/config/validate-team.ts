// Team mode's config sections: atrium.http (where `serve --http` listens, which origins it
// serves, its public URL, its resource-server settings and its metrics), atrium.access (which
// connectors a principal's groups may use; the core decides with these rules, spec/access.md) and
// atrium.store (the shared store replicas keep their state in).
import { DEFAULT_LISTEN, DEFAULT_STORE_PREFIX, HTTP_AUTH_KEYS, ACCESS_RULE_KEYS, type HttpAuthConfig, type HttpConfig, type HttpListen, type HttpMetrics, type StoreConfig } from "./schema.js";
import { STORE_PREFIX_CHARS_MAX } from "../decisions/generated/spec.js";
import type { AccessRuleConfig } from "../decisions/facts/access.js";
import { PORT_MAX } from "../support/wire.js";
import { isLoopbackHost } from "../support/loopback-host.js";
import { expected, fail, httpUrl, list, own, section, show, text, type Ctx, type Obj } from "./readers.js";

/** "HOST:PORT" ("[::1]:8787" for IPv6) as a host and a port, or why it is not one. */
export function parseListen(value: string): HttpListen | string {
  const m = /^(?:\[(?<v6>[0-9A-Fa-f:.]+)\]|(?<name>[A-Za-z0-9.-]+)):(?<port>\d+)$/.exec(value)?.groups;
  if (!m) return `must be HOST:PORT (for example "${DEFAULT_LISTEN}" or "[::1]:8787")`;
  const port = Number(m.port);
  if (port > PORT_MAX) return `port must be from 0 to ${PORT_MAX}, got ${m.port}`;
  return { host: m.v6 ?? m.name, port };
}

export function httpOf(ctx: Ctx, block: Obj): HttpConfig {
  const path = "atrium.http";
  const listenText = text(ctx, `${path}.listen`, own(block, "listen")) ?? DEFAULT_LISTEN;
  const parsed = parseListen(listenText);
  if (typeof parsed === "string") fail(ctx, `${path}.listen`, parsed);
  const listen = typeof parsed === "string" ? (parseListen(DEFAULT_LISTEN) as HttpListen) : parsed;
  const allowedOrigins = list(ctx, `${path}.allowedOrigins`, own(block, "allowedOrigins"), (p, v) => origin(ctx, p, v));
  const publicUrl = httpUrl(ctx, `${path}.publicUrl`, own(block, "publicUrl")) ?? null;
  const rawAuth = own(block, "auth");
  const auth = rawAuth === undefined || rawAuth === null ? null : authOf(ctx, section(ctx, `${path}.auth`, rawAuth, HTTP_AUTH_KEYS));
  const metrics = metricsOf(ctx, `${path}.metrics`, own(block, "metrics"), rawAuth !== undefined && rawAuth !== null);
  return { listen, allowedOrigins, publicUrl, auth, metrics };
}

/** atrium.http.metrics: true (the main listener; not with auth), false, or "HOST:PORT" (a listener of its own, no token). */
function metricsOf(ctx: Ctx, path: string, value: unknown, withAuth: boolean): HttpMetrics {
  if (value === undefined || value === null) return withAuth ? { at: "off" } : { at: "listener" };
  if (value === false) return { at: "off" };
  if (value === true) {
    if (withAuth) fail(ctx, path, `true would serve /metrics without a token on the listener atrium.http.auth guards; name a listener of its own instead ("HOST:PORT", e.g. "127.0.0.1:9464"), or leave it out`);
    return withAuth ? { at: "off" } : { at: "listener" };
  }
  if (typeof value !== "string") {
    fail(ctx, path, expected(`true, false or "HOST:PORT" (a listener of its own for /metrics)`, value));
    return { at: "off" };
  }
  const listen = parseListen(value);
  if (typeof listen === "string") {
    fail(ctx, path, listen);
    return { at: "off" };
  }
  return { at: "own", listen };
}

/** An origin as a browser sends it: scheme, host and port only ("https://chat.example.com"). */
function origin(ctx: Ctx, path: string, value: unknown): string | undefined {
  const s = text(ctx, path, value);
  if (s === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return fail(ctx, path, `is not an origin: ${show(s, ctx)} (an origin is scheme://host[:port], e.g. "https://chat.example.com")`);
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.origin !== s) return fail(ctx, path, `must be an origin as a browser sends it (scheme://host[:port], no path or slash), got ${show(s, ctx)}`);
  return s;
}

function authOf(ctx: Ctx, block: Obj): HttpAuthConfig | null {
  const path = "atrium.http.auth";
  const issuer = httpUrl(ctx, `${path}.issuer`, own(block, "issuer"));
  if (own(block, "issuer") === undefined) fail(ctx, `${path}.issuer`, `missing: the authorization server's issuer identifier (its tokens' "iss"), e.g. "https://login.example.com"`);
  else if (issuer !== undefined) {
    const u = new URL(issuer);
    if (u.protocol !== "https:" && !isLoopbackHost(u.hostname)) fail(ctx, `${path}.issuer`, `must be an https:// URL (http:// only on this machine), got ${show(issuer, ctx)}`);
    else if (u.search !== "" || u.hash !== "") fail(ctx, `${path}.issuer`, `must not carry a query or fragment (RFC 8414), got ${show(issuer, ctx)}`);
  }
  const audience = text(ctx, `${path}.audience`, own(block, "audience"));
  if (own(block, "audience") === undefined) fail(ctx, `${path}.audience`, `missing: what this atrium's tokens name in "aud", usually its public URL followed by /mcp`);
  const requiredScopes = list(ctx, `${path}.requiredScopes`, own(block, "requiredScopes"), (p, v) => scope(ctx, p, v));
  const groupsClaim = text(ctx, `${path}.groupsClaim`, own(block, "groupsClaim")) ?? "groups";
  return issuer !== undefined && audience !== undefined ? { issuer, audience, requiredScopes, groupsClaim } : null;
}

/** A scope token (RFC 6749 §3.3: printable ASCII but space, quote and backslash). */
function scope(ctx: Ctx, path: string, value: unknown): string | undefined {
  const s = text(ctx, path, value);
  if (s !== undefined && !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s)) return fail(ctx, path, `is not a scope token (printable characters, no space, quote or backslash): ${show(s, ctx)}`);
  return s;
}

/** atrium.access: null when absent; each rule's connectors must name connectors of mcpServers. */
export function accessOf(ctx: Ctx, value: unknown, connectorIds: ReadonlySet<string>): AccessRuleConfig[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) return fail(ctx, "atrium.access", expected("an array of rules ({ \"groups\"?: [...], \"connectors\": [...] })", value)) ?? null;
  return list(ctx, "atrium.access", value, (p, v) => {
    const rule = section(ctx, p, v, ACCESS_RULE_KEYS);
    if (own(rule, "connectors") === undefined) fail(ctx, `${p}.connectors`, `missing: the connector ids this rule grants`);
    const connectors = list(ctx, `${p}.connectors`, own(rule, "connectors"), (q, id) => {
      const s = text(ctx, q, id);
      if (s !== undefined && !connectorIds.has(s)) return fail(ctx, q, `${show(s, ctx)} is not a connector in mcpServers`);
      return s;
    });
    const groups = own(rule, "groups") === undefined ? undefined : list(ctx, `${p}.groups`, own(rule, "groups"), (q, g) => text(ctx, q, g));
    return groups === undefined ? { connectors } : { groups, connectors };
  });
}

/** atrium.store: a redis:// or rediss:// URL and a key prefix (printable, no spaces, at most STORE_PREFIX_CHARS_MAX). */
export function storeOf(ctx: Ctx, block: Obj): StoreConfig | null {
  const path = "atrium.store";
  const url = text(ctx, `${path}.url`, own(block, "url"));
  if (own(block, "url") === undefined) fail(ctx, `${path}.url`, `missing: the Redis or Valkey server, e.g. "redis://127.0.0.1:6379" (rediss:// for TLS)`);
  else if (url !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch {
      u = undefined;
    }
    // The URL may carry a password: never echo it back.
    if (!u || (u.protocol !== "redis:" && u.protocol !== "rediss:") || u.hostname === "") return fail(ctx, `${path}.url`, `must be a redis:// or rediss:// URL with a host (its text is not shown: it may hold a password)`) ?? null;
  }
  const keyPrefix = text(ctx, `${path}.keyPrefix`, own(block, "keyPrefix")) ?? DEFAULT_STORE_PREFIX;
  if (!/^[\x21-\x7E]+$/.test(keyPrefix) || keyPrefix.length > STORE_PREFIX_CHARS_MAX) fail(ctx, `${path}.keyPrefix`, `must be 1 to ${STORE_PREFIX_CHARS_MAX} printable characters without spaces, got ${show(keyPrefix, ctx)}`);
  return url !== undefined ? { url, keyPrefix } : null;
}
