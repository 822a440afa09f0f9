// A stand-in embedding endpoint for tests: a real local HTTP server speaking Ollama's embed API
// (POST {model, input} → {embeddings}) or OpenAI's /v1/embeddings (→ {data: [{embedding}]}),
// with vectors made from the text's letters (deterministic, no meaning). It records every text
// it was asked for, and can misbehave on purpose: an HTTP error, a hang, a wrong width, a
// non-number, an oversized body; or hold each answer until the test releases it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Misbehaviour = "status500" | "hang" | "wrongWidth" | "notNumbers" | "oversized" | "wrongCount";

export interface StandIn {
  url: string;
  /** Every request body, in order. */
  requests: { model: string; input: string[] }[];
  /** Every text embedded, in order. */
  texts(): string[];
  /** From now on every request (from the n-th on, 0-based) misbehaves this way. */
  misbehave(how: Misbehaviour | undefined, fromRequest?: number): void;
  /** Answers are held until release() (the request is still recorded on arrival). */
  hold(): void;
  release(): void;
  /** Resolves when `n` requests have arrived. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

/** A vector of `dims` from the text's letters: counts of each letter code modulo dims, plus one. */
function letterVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const ch of text.toLowerCase()) v[ch.codePointAt(0)! % dims] += 1;
  v[0] += 1;
  return v;
}

export async function startStandIn(api: "ollama" | "openai", dims = 8): Promise<StandIn> {
  const requests: { model: string; input: string[] }[] = [];
  let how: Misbehaviour | undefined;
  let from = 0;
  let held: (() => void)[] | undefined;
  const waiters: { n: number; done: () => void }[] = [];
  const open = new Set<ServerResponse>();

  const answer = (res: ServerResponse, body: { model: string; input: string[] }, index: number) => {
    const bad = how !== undefined && index >= from ? how : undefined;
    if (bad === "hang") return; // never answers; close() ends it
    if (bad === "status500") return void res.writeHead(500, { "content-type": "text/plain" }).end("model not loaded");
    if (bad === "oversized") {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = "[" + "1,".repeat(1 << 19) ; // 1 MiB of a never-ending list
      const write = () => { while (res.write(chunk)) { /* until the socket pushes back */ } };
      res.on("drain", write);
      write();
      return;
    }
    let vectors = body.input.map((t) => letterVector(t, dims) as unknown[]);
    if (bad === "wrongWidth") vectors = vectors.map((v) => [...v, 1]);
    if (bad === "notNumbers") vectors = vectors.map((v) => v.map((x, i) => (i === 0 ? "x" : x)));
    if (bad === "wrongCount") vectors = vectors.slice(1);
    const payload = api === "ollama" ? { model: body.model, embeddings: vectors } : { object: "list", data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })), model: body.model };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    let raw = "";
    req.on("data", (c: Buffer) => { raw += c.toString(); });
    req.on("end", () => {
      const body = JSON.parse(raw) as { model: string; input: string[] };
      const index = requests.length;
      requests.push(body);
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.done();
      if (held) held.push(() => answer(res, body, index));
      else answer(res, body, index);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${api === "ollama" ? "/api/embed" : "/v1/embeddings"}`,
    requests,
    texts: () => requests.flatMap((r) => r.input),
    misbehave(m, n = 0) { how = m; from = n; },
    hold() { held ??= []; },
    release() { const h = held ?? []; held = undefined; for (const f of h) f(); },
    arrived(n) {
      return requests.length >= n ? Promise.resolve() : new Promise<void>((done) => waiters.push({ n, done }));
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
