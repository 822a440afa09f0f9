// Waits for a promise, but no longer than an abort signal or a deadline allows. Never
// rejects: the caller looks at the state it was waiting for and decides what to answer.
export function abortable(p: Promise<unknown>, signal?: AbortSignal, timeoutMs?: number): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
    timer?.unref();
    signal?.addEventListener("abort", done, { once: true });
    p.then(done, done);
  });
}
