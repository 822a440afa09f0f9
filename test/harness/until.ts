// The one polling helper of the suites: waiting for a state a test cannot await directly (a child
// process, a file, a connector's state, a port, a page). Running out of time is the test's
// failure, named by what it waited for. The time only ends a hung wait; it never measures
// anything, so it is long: a loaded machine is slow, not wrong. A check may throw to stop early
// (the child that should have answered has exited).

/** How long a wait may take before the test fails: far longer than anything takes on a loaded machine. */
export const WAIT_MS = 30_000;
const EVERY_MS = 25;

/** Polls `check` until it holds; fails naming `what` once `ms` have passed. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = WAIT_MS): Promise<void> {
  await waitForValue(async () => ((await check()) ? true : undefined), what, ms);
}

/** Polls `get` until it gives a value other than undefined, and returns that value. */
export async function waitForValue<T>(get: () => T | undefined | Promise<T | undefined>, what: string, ms = WAIT_MS): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await get();
    if (value !== undefined) return value;
    if (Date.now() >= end) throw new Error(`gave up waiting after ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, EVERY_MS));
  }
}
