// Bring-your-own embedder: an operator's endpoint (atrium.search.embedder), Ollama's embed API
// (POST {model, input} → {embeddings}) or an OpenAI-compatible /v1/embeddings (POST {model,
// input} → {data: [{embedding}]}). Every answer is read under a byte cap before it is parsed,
// every request has a deadline, and an answer of the wrong count, width or kind is an error:
// the worker then drops the endpoint for the bundled model (worker.ts).
import { EMBED_DIMS_MAX, EMBED_ENDPOINT_MS, EMBED_RESPONSE_BYTES_MAX } from "../decisions/generated/spec.js";
import type { EmbedApi, EmbedderConfig } from "../config/schema.js";
import { isJsonObject } from "../support/json-object.js";
import { unitLength, type Embedder } from "./embedder.js";
import { OversizedAnswer, readBodyCapped } from "../support/read-body-capped.js";

/** atrium.search.embedder, validated (config/validate.ts). */
export type EndpointSettings = EmbedderConfig;

/** How an endpoint is named in doctor and the log. */
export const endpointName = (s: EndpointSettings) => `${s.url} (${s.api}, model ${JSON.stringify(s.model)})`;

/** The endpoint, once it answered a probe: its width is learned then and held to after. */
export async function connectEndpoint(settings: EndpointSettings): Promise<Embedder> {
  const [probe] = await post(settings, ["probe"], undefined);
  const dims = probe!.length;
  return {
    id: `endpoint:${settings.api}:${settings.url}#${settings.model}`,
    dims,
    embed: (texts) => (texts.length === 0 ? Promise.resolve([]) : post(settings, texts, dims)),
  };
}

async function post(s: EndpointSettings, texts: string[], dims: number | undefined): Promise<Float32Array[]> {
  let response: Response;
  const signal = AbortSignal.timeout(EMBED_ENDPOINT_MS);
  try {
    response = await fetch(s.url, {
      method: "POST",
      headers: { ...s.headers, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ model: s.model, input: texts }),
      signal,
      redirect: "error",
    });
  } catch (e) {
    throw new Error(signal.aborted ? `no answer within ${EMBED_ENDPOINT_MS} ms` : `request failed: ${reason(e)}`);
  }
  if (!response.ok) {
    void response.body?.cancel().catch(() => {});
    throw new Error(`answered HTTP ${response.status}`);
  }
  const text = await readCapped(response, signal);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error("answered something that is not JSON");
  }
  return vectorsOf(s.api, body, texts.length, dims);
}

/** The body as text, refused past EMBED_RESPONSE_BYTES_MAX (counted while it arrives). */
async function readCapped(response: Response, signal: AbortSignal): Promise<string> {
  try {
    return Buffer.from(await readBodyCapped(response, EMBED_RESPONSE_BYTES_MAX, "the endpoint")).toString("utf8");
  } catch (e) {
    if (e instanceof OversizedAnswer) throw new Error(e.declared !== undefined ? `answer of ${e.declared} bytes is over ${EMBED_RESPONSE_BYTES_MAX}` : `answer is over ${EMBED_RESPONSE_BYTES_MAX} bytes`);
    void response.body?.cancel().catch(() => {});
    throw new Error(signal.aborted ? `no full answer within ${EMBED_ENDPOINT_MS} ms` : reason(e));
  }
}

/** The vectors of an answer, each checked: one per text, one width, finite numbers only. */
function vectorsOf(api: EmbedApi, body: unknown, count: number, dims: number | undefined): Float32Array[] {
  const raw: unknown[] | undefined = api === "ollama"
    ? (isJsonObject(body) && Array.isArray(body.embeddings) ? body.embeddings : undefined)
    : isJsonObject(body) && Array.isArray(body.data)
      ? body.data.map((d) => (isJsonObject(d) ? d.embedding : undefined))
      : undefined;
  if (!raw) throw new Error(api === "ollama" ? `answer has no "embeddings" list` : `answer has no "data" list`);
  if (raw.length !== count) throw new Error(`answered ${raw.length} vectors for ${count} texts`);
  const width = dims ?? (Array.isArray(raw[0]) ? raw[0].length : 0);
  if (width < 1 || width > EMBED_DIMS_MAX) throw new Error(`vectors ${width} wide (accepted: 1 to ${EMBED_DIMS_MAX})`);
  return raw.map((v) => {
    if (!Array.isArray(v)) throw new Error("a vector is not a list of numbers");
    if (v.length !== width) throw new Error(`a vector is ${v.length} wide, not ${width}${dims === undefined ? " like the first" : " like the endpoint's first answer"}`);
    const out = new Float32Array(width);
    for (let i = 0; i < width; i++) {
      const x = v[i];
      if (typeof x !== "number" || !Number.isFinite(x)) throw new Error("a vector holds something that is not a finite number");
      out[i] = x;
    }
    return unitLength(out);
  });
}

const reason = (e: unknown) => (e instanceof Error ? (e.cause instanceof Error ? `${e.message} (${e.cause.message})` : e.message) : String(e));
