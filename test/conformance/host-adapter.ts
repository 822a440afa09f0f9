// The client under test for the official MCP conformance framework (@modelcontextprotocol/conformance,
// in test/servers): the framework runs `node dist/test/conformance/host-adapter.js <server-url>` once
// per client scenario. This adapter plays the host: it starts a real atrium over stdio with the
// scenario's server as its one remote connector, logs in through authorize_connector when atrium
// asks (the framework's authorization server approves at once, so following its redirect to
// atrium's loopback receiver is the click-through), lists the tools with search_tools and calls each
// (call_destructive_tool, approvals answered yes), authorizing again when a call answers auth_required.
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startAtrium, type Atrium } from "../harness/atrium-client.js";

const CONNECTOR = "conf";
const serverUrl = process.argv[process.argv.length - 1] ?? "";
const log = (...a: unknown[]) => process.stderr.write(`[host-adapter] ${a.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(" ")}\n`);

/** Follows the authorization URL's redirects until the browser would land on atrium's loopback receiver, and lands there. */
async function clickThrough(authorizationUrl: string): Promise<void> {
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    const r = await fetch(url, { redirect: "manual" });
    const next = r.headers.get("location");
    await r.text().catch(() => "");
    if (!next) {
      log("login landed", r.status, url);
      return;
    }
    url = new URL(next, url).href;
  }
}

/** authorize_connector until the connector is ready (or atrium says why not). */
async function authorize(a: Atrium): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = await a.call("authorize_connector", { connector: CONNECTOR }, 60_000);
    const s = r.structuredContent as any;
    log("authorize_connector", s);
    if (s?.status === "ready") return true;
    if (s?.status === "login_pending" && typeof s.authorizationUrl === "string") {
      const [again] = await Promise.all([a.call("authorize_connector", { connector: CONNECTOR }, 60_000), clickThrough(s.authorizationUrl)]);
      log("authorize_connector (after login)", again.structuredContent);
      if ((again.structuredContent as any)?.status === "ready") return true;
      continue;
    }
    return false;
  }
  return false;
}

/** What a person accepting the form would send: atrium's approval question answered "run once", any other field its default. */
function answer(schema: any): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [name, field] of Object.entries<any>(schema?.properties ?? {})) if (field && "default" in field) out[name] = field.default;
  if (schema?.properties?.choice) out.choice = "run_once";
  return out;
}

async function tools(a: Atrium): Promise<{ address: string; unavailable: any[] }> {
  const s = (await a.json("search_tools", { query: "", connector: CONNECTOR, limit: 50 })) as any;
  log("search_tools", s);
  return { address: (s?.results ?? s?.tools ?? []).map((t: any) => t.address)[0], unavailable: s?.unavailable ?? [] };
}

/**
 * The connector's `oauth` block, as an operator would write it. A scenario's context (the
 * framework's MCP_CONFORMANCE_CONTEXT) that hands out client credentials is a machine client
 * (SEP-1046: `grant: client_credentials`, a secret, or a private key written to a file); every
 * other scenario gets the operator's published Client ID Metadata Document URL, which atrium uses
 * only where the authorization server advertises support (the fixed URL the CIMD scenario expects).
 */
function oauthBlock(): Record<string, string> {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, string>;
  if (context.client_id && context.client_secret) return { grant: "client_credentials", clientId: context.client_id, clientSecret: context.client_secret };
  if (context.client_id && context.private_key_pem) {
    const keyFile = join(mkdtempSync(join(tmpdir(), "atrium-conformance-key-")), "client.pem");
    writeFileSync(keyFile, context.private_key_pem, { mode: 0o600 });
    return { grant: "client_credentials", clientId: context.client_id, privateKeyFile: keyFile, signingAlgorithm: context.signing_algorithm ?? "ES256" };
  }
  return { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
}

async function main(): Promise<void> {
  const a = await startAtrium({
    config: { mcpServers: { [CONNECTOR]: { url: serverUrl, oauth: oauthBlock() } } },
    env: { ATRIUM_KEYRING: "off" },
    capabilities: { elicitation: { form: {} } },
    beforeConnect: (client) => client.setRequestHandler("elicitation/create", async (request) => ({ action: "accept", content: answer((request.params as any)?.requestedSchema) })),
  });
  try {
    let listed = await tools(a);
    if (listed.unavailable.some((u) => u.state === "needs_auth")) {
      await authorize(a);
      listed = await tools(a);
    }
    const calls = listed.address ? [listed.address] : [];
    for (const address of calls) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const r = await a.call("call_destructive_tool", { address, args: {}, reason: "conformance scenario" }, 60_000);
        const s = r.structuredContent as any;
        log("call", address, r);
        if (s?.error?.code === "auth_required" && (await authorize(a))) continue;
        break;
      }
    }
  } finally {
    log("atrium stderr", a.stderr().slice(-4000));
    await a.close();
  }
}

main().then(() => process.exit(0), (e) => {
  log("failed", String(e?.stack ?? e));
  process.exit(1);
});
