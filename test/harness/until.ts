// Polling for a state a test cannot await directly (a child process, a file, a connector's state).

/** Polls `check` every `everyMs` until it holds or `ms` pass; whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 20_000, everyMs = 50): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return false;
}

/** The same, where running out of time is the test's failure: it names `what` it waited for. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  if (!(await eventually(check, ms))) throw new Error(`gave up waiting: ${what}`);
}
