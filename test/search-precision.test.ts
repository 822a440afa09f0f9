// Search precision on real catalogs (issue 18, item 16): the captured tools/list answers of real
// npm MCP servers (test/bench/search/catalogs) built into a real Catalog as the bench does, under
// the connector ids a new user gave them, and the demo desk behind a spawned atrium over stdio.
// Each case is a mechanism: a query whose words mostly miss does not score high; a word a tool
// only mentions in its description is no match of its name; a shell shorthand stands for the
// words it abbreviates; a query naming a connector favours that connector's tools; a tool's
// enum values are words people search by.
import { describe, it, expect } from "vitest";
import { findTools } from "../glue/calls/discovery.js";
import { loadCatalogs } from "./bench/search/data.js";
import { buildCatalog } from "./bench/search/catalog.js";

const captured = loadCatalogs();
/** The captured servers named, each under the connector id the user gave it. */
const catalogOf = (ids: Record<string, string>) =>
  buildCatalog(Object.entries(ids).map(([server, id]) => ({ id, tools: captured.find((c) => c.server === server)!.tools })));
// What the new user ran: filesystem, memory, everything, sequential-thinking, Playwright
// (as "browser") and a git server, no clock and no calendar.
const field = catalogOf({ filesystem: "fs", memory: "memory", everything: "everything", thinking: "thinking", playwright: "browser", git: "git" });
const all = buildCatalog(captured.map((c) => ({ id: c.server, tools: c.tools })));
type Catalog = typeof all;
const find = (catalog: Catalog, query: string) => findTools(catalog, { query }).results;
const first = (catalog: Catalog, query: string) => find(catalog, query)[0];

describe("a query whose words mostly miss does not score high", () => {
  it("a one-word need no tool names, only mentioned in a description, comes back weak", () => {
    // "time" is in browser_wait_for's description ("a specified time to pass"), nowhere in a name.
    const found = find(field, "what time is it");
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((r) => r.weak)).toBe(true);
  });

  it("where tools name the query's own verb, a tool only a synonym names ranks below them (delete, not drop)", () => {
    const found = find(field, "delete a file").map((r) => r.address);
    // browser_drop ("Drop files"): "drop" only stands for delete; memory's delete_* tools say it.
    expect(found[0]).toMatch(/\.delete_/);
    expect(found.indexOf("browser.browser_drop")).toBeGreaterThan(found.indexOf("memory.delete_entities"));
  });

  it("a tool whose name holds one of a query's four content words, the rest missing, comes back weak", () => {
    // stripe.list_invoices names "invoices"; nothing archives, nothing is about pdfs or age.
    const found = find(all, "archive old pdf invoices");
    expect(found[0]?.address).toBe("stripe.list_invoices");
    expect(found.every((r) => r.weak)).toBe(true);
  });
});

describe("a shell shorthand stands for the words it abbreviates", () => {
  it("ls lists a directory, mkdir creates one, mv moves a file", () => {
    expect(first(field, "ls")?.address).toMatch(/^fs\.list_directory/);
    expect(first(field, "mkdir")?.address).toBe("fs.create_directory");
    expect(first(field, "mv")?.address).toBe("fs.move_file");
  });
});

describe("a query naming a connector favours that connector's tools", () => {
  it("…on github picks GitHub's tool over Linear's twin and over a sibling that shares fewer words", () => {
    expect(first(all, "create an issue on github")?.address).toBe("github.create_issue");
    expect(first(all, "create an issue in linear")?.address).toBe("linear.linear_create_issue");
  });

  it("…in sentry picks Sentry's tool where GitHub has the same name", () => {
    expect(first(all, "search issues in sentry")?.address).toBe("sentry.search_issues");
    expect(first(all, "update an issue in sentry")?.address).toBe("sentry.update_issue");
  });

  it("a connector's name however it is cased (GitHub, not git and hub) names that connector, not the git server", () => {
    expect(first(all, "commit history on GitHub")?.address).toBe("github.list_commits");
  });

  it("a query that is only a connector's name still finds that connector's tools", () => {
    expect(find(all, "slack").slice(0, 3).every((r) => r.address.startsWith("slack."))).toBe(true);
  });
});
