import { describe, it, expect } from "vitest";
import { buildAliases } from "../glue/sandbox/aliases.js";
import { toIdentifier } from "../glue/catalog/resolver.js";
import { guestGlobals } from "../glue/sandbox/guest-config.js";
import type { CatalogEntry } from "../glue/catalog/entry.js";

const entry = (connectorId: string, name: string): CatalogEntry => ({ address: `${connectorId}.${name}`, connectorId, name, description: "", inputSchema: {}, safety: "read_only", reason: "annotated_read_only", maxResultBytes: 50_000, appVisibility: 0, appWrites: false });

describe("guest identifiers for connectors and tools", () => {
  it("turns non-identifier characters into _, prefixes a leading digit, suffixes a reserved word", () => {
    expect(toIdentifier("get-sum")).toBe("get_sum");
    expect(toIdentifier("my.tool/v2")).toBe("my_tool_v2");
    expect(toIdentifier("2fa")).toBe("_2fa");
    expect(toIdentifier("delete")).toBe("delete_");
    expect(toIdentifier("list_incidents")).toBe("list_incidents");
    expect(toIdentifier("")).toBe("_");
  });

  it("ambiguous_tool_alias: two tools with one identifier get no address (fail closed)", () => {
    const [c] = buildAliases([entry("x", "get-item"), entry("x", "get_item"), entry("x", "other")], ["x"]);
    expect(c.tools.find((t) => t.ident === "get_item")).toEqual({ ident: "get_item", address: null, candidates: ["x.get-item", "x.get_item"] });
    expect(c.tools.find((t) => t.ident === "other")?.address).toBe("x.other");
  });

  it("ambiguous_tool_alias: two connectors with one identifier are both marked ambiguous", () => {
    const aliases = buildAliases([entry("my-db", "q"), entry("my_db", "q")], ["my-db", "my_db"]);
    expect(aliases.map((c) => c.ambiguousWith)).toEqual([["my_db"], ["my-db"]]);
  });

  it("a connector named like a guest global (atrium, console) gets no global", () => {
    expect(buildAliases([entry("console", "log")], ["console"])).toEqual([]);
  });
});

describe("the guest globals a run gets", () => {
  it("connectors sharing an identifier become one global whose calls all refuse with ambiguous_tool_alias naming both ids", () => {
    const globals = guestGlobals(buildAliases([entry("my-db", "q"), entry("my_db", "q"), entry("desk", "q")], ["my-db", "my_db", "desk"]));
    expect(globals.map((g) => g.ident)).toEqual(["my_db", "desk"]);
    const body = JSON.parse(globals[0]!.ambiguous!);
    expect(body).toMatchObject({ code: "ambiguous_tool_alias", retryable: false });
    for (const s of ["my-db", "my_db", "atrium.call"]) expect(body.message).toContain(s);
    expect(globals[1]).toEqual({ ident: "desk", connectorId: "desk", tools: [{ ident: "q", address: "desk.q" }] });
  });

  it("two tools sharing an identifier refuse just that name, typed, naming both tools", () => {
    const [g] = guestGlobals(buildAliases([entry("x", "get-item"), entry("x", "get_item"), entry("x", "other")], ["x"]));
    const item = g!.tools.find((t) => t.ident === "get_item")!;
    expect(item.address).toBeUndefined();
    expect(JSON.parse(item.ambiguous!).message).toContain("x.get-item, x.get_item");
    expect(g!.tools.find((t) => t.ident === "other")).toEqual({ ident: "other", address: "x.other" });
  });
});
