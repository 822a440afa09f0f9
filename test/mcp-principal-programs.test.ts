// principal_programs (spec/budgets.md): programs one principal may run at once. Past it,
// execute_code answers rate_limited with retryAfterMs and starts nothing, while another principal's
// program runs; a slot frees when a run ends. The window is proved by order (four runs held at a
// gate the test opens), never by time. `local` (one person's atrium) is not counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { CallToolResultSchema } from "@modelcontextprotocol/core";
import { createApp } from "../glue/app.js";
import { core } from "../glue/decisions/core.js";
import { validateConfig } from "../glue/config/validate.js";
import { Revision } from "../glue/decisions/generated/spec.js";
import { MemoryProgramSlots } from "../glue/mcp/program-slots.js";
import { LOCAL_PRINCIPAL, tokenPrincipal, type Principal } from "../glue/support/principal.js";
import { fixture, nodeServer, programValue } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

const alice = tokenPrincipal("https://login.example", "alice", [], []);
const bob = tokenPrincipal("https://login.example", "bob", [], []);

describe("principal_programs: the slots", () => {
  it("admits `limit` runs per principal, refuses the next with the time until the soonest run's wall clock ends, and frees a slot on release (once)", () => {
    const s = new MemoryProgramSlots(core(), 2);
    const a1 = s.take(alice, 1_000, 30_000);
    const a2 = s.take(alice, 5_000, 30_000);
    expect(a1.ok && a2.ok).toBe(true);
    expect(s.take(alice, 10_000, 30_000)).toEqual({ ok: false, retryAfterMs: 21_000, limit: 2 });
    expect(s.take(bob, 10_000, 30_000).ok).toBe(true);
    if (a1.ok) { a1.release(); a1.release(); }
    expect(s.take(alice, 11_000, 30_000).ok).toBe(true);
    expect(s.take(alice, 12_000, 30_000)).toMatchObject({ ok: false });
  });

  it("does not count the local principal (stdio and loopback without auth)", () => {
    const s = new MemoryProgramSlots(core(), 1);
    for (let i = 0; i < 5; i++) expect(s.take(LOCAL_PRINCIPAL, i, 30_000).ok).toBe(true);
  });

  it("uses the budget's default when no limit is given (4)", () => {
    const s = new MemoryProgramSlots(core());
    for (let i = 0; i < 4; i++) expect(s.take(alice, i, 30_000).ok).toBe(true);
    expect(s.take(alice, 4, 30_000)).toMatchObject({ ok: false, limit: 4 });
  });
});

describe("principal_programs: execute_code", () => {
  let app: ReturnType<typeof createApp>;
  const clients: Client[] = [];
  const dir = mkdtempSync(join(tmpdir(), "atrium-slots-"));
  async function clientFor(principal: Principal) {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await app.serverFor(Revision.r2025_11_25, principal).connect(b);
    const client = new Client({ name: "slots-test", version: "0" });
    await client.connect(a);
    clients.push(client);
    return async (code: string) => (await client.request({ method: "tools/call", params: { name: "execute_code", arguments: { code } } }, CallToolResultSchema, { timeout: 60_000 })) as { isError?: boolean; structuredContent?: any; content: any[] };
  }
  beforeAll(async () => {
    const r = validateConfig({ mcpServers: { gate: nodeServer(fixture("gate-server")) }, atrium: { log: { enabled: false }, search: { semantic: false }, sandbox: { workers: 6 } } }, core());
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    app = createApp(r.config, "0.0.0-test");
    await app.registry.startAll();
    await waitFor(() => app.registry.connectors.every((c) => c.state === "ready"), "the gate connector ready");
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await app.registry.stopAll();
    await app.pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a fifth program of one principal answers rate_limited with retryAfterMs and runs nothing; another principal runs meanwhile; a slot frees when a run ends", async () => {
    const runA = await clientFor(alice);
    const runB = await clientFor(bob);
    const open = join(dir, "open");
    const held = Array.from({ length: 5 }, (_, i) => runA(`const r = await gate.wait_for_file({ path: ${JSON.stringify(`${open}`)} }); return ${i}`));
    // Four hold their slots at the gate; whichever of the five came fifth is refused at once.
    const first = await Promise.race(held.map((p, i) => p.then((r) => ({ i, r }))));
    expect(first.r.isError).toBe(true);
    expect(first.r.structuredContent.error).toMatchObject({ code: "rate_limited", retryable: true });
    expect(first.r.structuredContent.error.details.retryAfterMs).toBeGreaterThan(0);
    // Bob is not Alice's fifth: his program runs while hers are held.
    expect(programValue(await runB("return 'bob ran'"))).toBe("bob ran");
    writeFileSync(open, "");
    const rest = await Promise.all(held.filter((_, i) => i !== first.i));
    expect(rest.map((r) => programValue(r)).sort()).toEqual([0, 1, 2, 3, 4].filter((i) => i !== first.i));
    // The four ended, so their slots are free again.
    expect(programValue(await runA("return 'again'"))).toBe("again");
  });
});
