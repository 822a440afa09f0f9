// `atrium doctor` starts every connector and writes its report; it runs no program, so it starts
// no sandbox pool (issue 23 item 6): no SandboxPool is made, so no QuickJS module is compiled and
// no worker thread spawned. In process, against the real demo connector (a child process); the
// pool's constructor is counted, and the count is shown to count on an app that is asked for its pool.
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../glue/app.js";
import { doctor } from "../glue/commands/doctor.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";
import { demoServer, nodeServer } from "./harness/atrium-client.js";

const made = vi.hoisted(() => ({ pools: 0 }));
vi.mock("../glue/sandbox/pool.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../glue/sandbox/pool.js")>();
  class CountedPool extends real.SandboxPool {
    constructor(...args: ConstructorParameters<typeof real.SandboxPool>) {
      super(...args);
      made.pools++;
    }
  }
  return { ...real, SandboxPool: CountedPool };
});

function demoConfig() {
  const r = validateConfig({ mcpServers: { desk: nodeServer(demoServer) }, atrium: { log: { enabled: false }, search: { semantic: false } } }, core());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

describe("atrium doctor and the sandbox", () => {
  it("doctor reports a healthy connector without starting a sandbox pool", async () => {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => { out.push(String(chunk)); return true; });
    let code: number;
    try {
      code = await doctor(demoConfig(), "the test's config", "0.0.0-test");
    } finally {
      write.mockRestore();
    }
    expect(out.join("")).toMatch(/^ok {3}desk /m);
    expect(code).toBe(0);
    expect(made.pools).toBe(0);
  });

  it("the count counts: an app asked for its pool has made one", async () => {
    const before = made.pools;
    const app = createApp(demoConfig(), "0.0.0-test");
    await app.pool.close();
    expect(made.pools).toBe(before + 1);
  });
});
