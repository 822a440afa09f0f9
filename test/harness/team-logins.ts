// What the per-user login suites share: a team token for a principal (client credentials at the
// team's authorization server), the `sub` a protected server verified through call_tool, and
// authorize_connector asked until it hands a login URL.
import type { HttpClient } from "./atrium-http.js";
import { waitFor } from "./until.js";

/** An access token for atrium's resource, for the principal `clientId` (its secret is `secret-<clientId>`). */
export async function teamToken(issuer: string, resource: string, clientId: string): Promise<string> {
  const res = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${clientId}:secret-${clientId}`).toString("base64")}` },
    body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: "mcp:read" }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token for ${clientId}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The team authorization server's clients, one per principal. */
export const teamClients = (ids: string[]) => ids.map((id) => ({ client_id: id, client_secret: `secret-${id}`, grant_types: ["client_credentials"], response_types: [], redirect_uris: [], scope: "mcp:read" }));

export const structured = (r: { structuredContent?: unknown }) => r.structuredContent as any;

/** The `sub` the protected server verified on the caller's token, as whoami answers it through call_tool. */
export async function whoami(c: HttpClient, connector = "crm"): Promise<{ sub?: string; error?: string }> {
  const r = await c.call("call_tool", { address: `${connector}.whoami`, args: {} });
  const s = structured(r);
  if (r.isError) return { error: s?.error?.code };
  const text = (s?.result?.content ?? s?.content ?? r.content)?.find?.((b: any) => b.type === "text")?.text ?? JSON.stringify(s);
  return { sub: JSON.parse(/\{.*\}/s.exec(text)![0]).sub };
}

/** authorize_connector until it hands a URL (the principal's instance settles into needs_auth first). */
export async function loginUrl(c: HttpClient, connector = "crm"): Promise<string> {
  let url = "";
  await waitFor(async () => {
    const r = await c.call("authorize_connector", { connector });
    url = structured(r)?.authorizationUrl ?? "";
    return url !== "";
  }, `a login URL for ${connector}`);
  return url;
}
