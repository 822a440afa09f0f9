// One HTTP exchange with a server atrium does not run (a login's auth answers, an issuer's metadata
// and key set) under a deadline, answer read included, so a server that does not answer ends the
// exchange with an error naming the bound instead of holding a request open.
import { OAUTH_HTTP_MS } from "../decisions/generated/spec.js";

/** An exchange that did not answer within OAUTH_HTTP_MS. */
export class NoAnswerInTime extends Error {}

/**
 * Runs one exchange (`exchange` gets the signal to send with its request and to read its answer
 * under) within OAUTH_HTTP_MS, or the caller's own signal if that ends first; past the deadline it
 * fails with an error naming the bound.
 */
export async function withinDeadline<T>(what: string, signal: AbortSignal | null | undefined, exchange: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = AbortSignal.timeout(OAUTH_HTTP_MS);
  try {
    return await exchange(signal ? AbortSignal.any([signal, deadline]) : deadline);
  } catch (e) {
    if (deadline.aborted && !signal?.aborted) throw new NoAnswerInTime(`${what} did not answer within ${OAUTH_HTTP_MS} ms (OAUTH_HTTP_MS)`);
    throw e;
  }
}
