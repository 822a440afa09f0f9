// The HTTP bench's requests: one timed answer and its error code, and waiting for the connectors
// to settle; shared by the Streamable HTTP table (http.ts) and the fairness table (http-fairness.ts).
import type { CallToolResult } from "@modelcontextprotocol/client";

export type Call = (tool: string, args: Record<string, unknown>) => Promise<CallToolResult>;
export type Measure = { label: string; tool: string; args: Record<string, unknown> };

/** The error code of an answer, or undefined when it succeeded (a program: ok; a search: not isError). */
function failureOf(tool: string, r: CallToolResult): string | undefined {
  const sc = r.structuredContent as { ok?: boolean; error?: { code?: string } } | undefined;
  if (tool === "execute_code") return sc?.ok === true ? undefined : (sc?.error?.code ?? "no envelope");
  return r.isError ? (sc?.error?.code ?? "isError") : undefined;
}

/** A request that threw (an HTTP refusal such as 429 rate_limited, 401, 503): atrium's error code in the body when there is one. */
export function thrownCode(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const code = /"code":"([a-z_]+)"/.exec(m)?.[1];
  if (code) return code;
  const status = /HTTP (\d{3})/.exec(m)?.[1];
  return status ? `HTTP ${status}` : `thrown: ${m.slice(0, 80)}`;
}

/** One answer: its latency, its error code (undefined when it succeeded), and the answer when one came. */
export async function once(call: Call, m: Measure): Promise<{ ms: number; code?: string; result?: CallToolResult }> {
  const t = performance.now();
  let code: string | undefined;
  let result: CallToolResult | undefined;
  try {
    result = await call(m.tool, m.args);
    code = failureOf(m.tool, result);
  } catch (e) {
    code = thrownCode(e);
  }
  return { ms: performance.now() - t, code, result };
}

/** Polls search_tools until no connector is still in its first start attempt (serve --http starts them in the background). */
export async function settled(call: Call, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const r = (await call("search_tools", { query: "", limit: 1 })).structuredContent as { unavailable?: { state: string }[] } | undefined;
    if (!r?.unavailable?.some((u) => u.state === "starting")) return;
    await new Promise((res) => setTimeout(res, 50));
  }
}
