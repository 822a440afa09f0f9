// Reads an HTTP answer's body under a byte cap, before anything parses it: a declared length past
// the cap is refused unread, and the body is counted while it arrives and cancelled past the cap.
// Used for every answer atrium reads from a server it does not run as a connector (auth answers,
// an embedding endpoint), and for a remote connector's 400 that may refuse its session.

/** The body went past its cap; `declared` is the content-length that did, when it was that. */
export class OversizedAnswer extends Error {
  constructor(message: string, readonly declared?: number) {
    super(message);
  }
}

/** The body of `res`, at most `max` bytes; throws OversizedAnswer past it (the rest is not read). */
export async function readBodyCapped(res: Response, max: number, what: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) {
    await res.body?.cancel().catch(() => {});
    throw new OversizedAnswer(`${what} answered more than ${max} bytes (content-length ${declared}); refused unread`, declared);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new OversizedAnswer(`${what} answered more than ${max} bytes; refused unread`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
