// After a live reload the model learns the new catalog (issue 18 item 9, spec/host-detection.md
// H14): execute_code's description names the connectors in force, and the host is told its tool
// list changed — tools/list_changed on 2025-11-25, on subscriptions/listen on 2026-07-28.
import { describe, it, expect, afterEach } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAtrium, fixture, nodeServer, type Atrium } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";
import { TOOLS_LIST_TTL_MS } from "../glue/decisions/generated/spec.js";

const gate = (label: string) => nodeServer(fixture("gate-server"), { args: [fixture("gate-server"), label] });
const description = async (a: Atrium) => ((await a.client.request({ method: "tools/list", params: {} })) as { tools: { name: string; description: string }[] }).tools.find((t) => t.name === "execute_code")!.description;
let open: Atrium[] = [];
afterEach(async () => {
  await Promise.all(open.map((a) => a.close()));
  open = [];
});

describe("a live reload reaches the host's tool list", () => {
  it("2025-11-25: atrium declares tools.listChanged, sends tools/list_changed after the reload, and execute_code names the added connector", async () => {
    let changed = 0;
    const a = await startAtrium({ config: { mcpServers: { alpha: gate("A") } }, beforeConnect: (c) => c.setNotificationHandler("notifications/tools/list_changed", () => { changed++; }) });
    open.push(a);
    expect(a.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    expect(await description(a)).toContain("Connectors: alpha.");
    writeFileSync(join(a.dir, "atrium.json"), JSON.stringify({ mcpServers: { alpha: gate("A"), beta: gate("B") } }));
    await waitFor(() => changed > 0, "notifications/tools/list_changed at the host");
    expect(await description(a)).toContain("Connectors: alpha, beta.");
  }, 60_000);

  it("2026-07-28: a host listening for tool list changes hears of the reload, and the listing's ttlMs is TOOLS_LIST_TTL_MS", async () => {
    const a = await startAtrium({ revision: "2026-07-28", config: { mcpServers: { alpha: gate("A") } } });
    open.push(a);
    let changed = 0;
    a.client.setNotificationHandler("notifications/tools/list_changed", () => { changed++; });
    await a.client.listen({ toolsListChanged: true });
    const listed = (await a.client.request({ method: "tools/list", params: {} })) as { ttlMs?: number; tools: unknown[] };
    expect(listed.ttlMs).toBe(TOOLS_LIST_TTL_MS);
    writeFileSync(join(a.dir, "atrium.json"), JSON.stringify({ mcpServers: { alpha: gate("A"), beta: gate("B") } }));
    await waitFor(() => changed > 0, "tools/list_changed on the host's subscription");
    expect(await description(a)).toContain("Connectors: alpha, beta.");
  }, 60_000);
});
