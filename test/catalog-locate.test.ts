// A call's address is read once (glue/catalog/catalog.ts `locate`: split and matched once): the
// connector it names is what the call waits for, and the tool it resolves to is read on the
// catalog as it is once the wait is over. Real connectors in a real registry: the gate fixture and
// a server whose start is held until a file exists (slow-start-server), reloaded by the registry.
import { describe, it, expect, afterEach } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixture, nodeServer } from "./harness/atrium-client.js";
import { ConnectorRegistry } from "../glue/connectors/registry.js";
import { Catalog } from "../glue/catalog/catalog.js";
import { validateConfig } from "../glue/config/validate.js";
import { core } from "../glue/decisions/core.js";
import type { AtriumConfig } from "../glue/config/schema.js";

const valid = (raw: unknown): AtriumConfig => {
  const r = validateConfig(raw, core());
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
};
const gate = nodeServer(fixture("gate-server"), { args: [fixture("gate-server"), "A"] });
/** A connector whose start (its initialize) waits until the file at `held` exists. */
const held = (file: string) => nodeServer(fixture("slow-start-server"), { env: { SLOW_GATE: file } });

let registry: ConnectorRegistry | undefined;
afterEach(async () => { await registry?.stopAll(); registry = undefined; });

function setUp() {
  const file = join(mkdtempSync(join(tmpdir(), "atrium-locate-")), "open");
  registry = new ConnectorRegistry(valid({ mcpServers: { a: gate, slow: held(file) } }), "test");
  void registry.startAll();
  return { registry, catalog: new Catalog(registry, core()), open: () => writeFileSync(file, "") };
}

describe("an address is read once, and resolved on the catalog as it is after the wait", () => {
  it("an address located while its connector starts names that connector, and resolves to its tool once the start is done", async () => {
    const { catalog, open } = setUp();
    const at = catalog.locate("slow.peek_pebbles");
    expect(at.view?.id).toBe("slow");
    expect(at.view?.state).toBe("starting");
    open();
    await at.view!.whenSettled();
    expect(at.resolve().entry.address).toBe("slow.peek_pebbles");
  });

  it("a connector a reload removed while a call waited for it is a typed unknown_address saying a reload removed it", async () => {
    const { registry, catalog } = setUp();
    const at = catalog.locate("slow.peek_pebbles");
    expect(at.view?.id).toBe("slow");
    await registry.apply(valid({ mcpServers: { a: gate } }));
    expect(() => at.resolve()).toThrow(expect.objectContaining({ code: "unknown_address", message: expect.stringContaining("reload") }));
  });

  it("the identifier form names its connector and tool as the exact address does; the view and the entry agree with viewOf and resolve", async () => {
    const { catalog } = setUp();
    await catalog.viewOf("a.whoami")!.whenSettled();
    const at = catalog.locate("a.whoami");
    expect(at.view?.id).toBe("a");
    expect(at.resolve().entry).toBe(catalog.resolve("a.whoami").entry);
    expect(catalog.locate("a.who_ami").view?.id).toBe("a");
    expect(() => catalog.locate("a.who_ami").resolve()).toThrow(expect.objectContaining({ code: "unknown_tool" }));
    expect(catalog.locate("nothere.x").view).toBeUndefined();
    expect(() => catalog.locate(42).resolve()).toThrow(expect.objectContaining({ code: "unknown_address" }));
  });
});
