// The word rules behind doctor's advice: which tool names look read-only (a suggestion only),
// and which real names a mistyped readOnlyTools/approvalTools entry was probably meant to be.
import { describe, it, expect } from "vitest";
import { dataFlowSuggestion, firstWord, looksReadOnly, readOnlySuggestion, unlistedTools } from "../glue/commands/doctor-advice.js";
import { nearestNames } from "../glue/support/text/nearest-names.js";

describe("doctor advice", () => {
  it("reads the first word of snake_case, kebab-case, dotted and camelCase names", () => {
    expect(["list_issues", "getUser", "search-code", "query.run", "HTTPGet", "describe"].map(firstWord)).toEqual(["list", "get", "search", "query", "httpget", "describe"]);
  });

  it("a name looks read-only only when its whole first word is a reading verb", () => {
    expect(["get_note", "listNotes", "stat-notes", "fetch_url", "view"].filter(looksReadOnly)).toHaveLength(5);
    expect(["getaway_car", "status_update", "delete_note", "set_value", "lister"].filter(looksReadOnly)).toEqual([]);
  });

  it("nearest names: the closest by edits, else names containing the entry, else none", () => {
    const tools = ["list_incidents", "get_incident", "close_incident", "list_services"];
    expect(nearestNames("list_incident", tools)).toEqual(["list_incidents"]);
    expect(nearestNames("LIST_SERVICES", tools)).toEqual(["list_services"]);
    expect(nearestNames("incident", tools)).toEqual(["list_incidents", "get_incident", "close_incident"]);
    expect(nearestNames("nosuchtool", tools)).toEqual([]);
    expect(nearestNames("ab", ["xy", "abc"])).toEqual(["abc"]);
  });

  it("unlisted entries come from both lists, and listed ones are not reported", () => {
    expect(unlistedTools({ readOnlyTools: ["get_note", "get_notes"], approvalTools: ["purge"] }, ["get_note", "add_note"])).toEqual([
      { list: "readOnlyTools", name: "get_notes", nearest: ["get_note"] },
      { list: "approvalTools", name: "purge", nearest: [] },
    ]);
  });

  it("a keepOutsidePrograms name the server does not have is flagged like the other lists", () => {
    expect(unlistedTools({ readOnlyTools: [], approvalTools: [], keepOutsidePrograms: ["add_note", "add_notes"] }, ["get_note", "add_note"])).toEqual([
      { list: "keepOutsidePrograms", name: "add_notes", nearest: ["add_note"] },
    ]);
  });

  it("the suggested line keeps the operator's list first and adds only names that look read-only", () => {
    expect(readOnlySuggestion([], ["send_digest", "list_notes", "get_note"])).toBe(`"readOnlyTools": ["get_note", "list_notes"]`);
    expect(readOnlySuggestion(["send_digest"], ["list_notes", "send_digest"])).toBe(`"readOnlyTools": ["send_digest", "list_notes"]`);
    expect(readOnlySuggestion([], ["add_note", "send_digest"])).toBeUndefined();
  });

  it("for server-memory's unannotated listing (its releases before annotations) suggests every tool that only reads, open_nodes included", () => {
    const memory = ["create_entities", "create_relations", "add_observations", "delete_entities", "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes"];
    expect(readOnlySuggestion([], memory)).toBe(`"readOnlyTools": ["open_nodes", "read_graph", "search_nodes"]`);
  });
  it("data-flow guard: well-known servers of private data and of egress are named, by whole words of the id, command or URL, unless already set", () => {
    const none = { privateData: false, egress: false };
    expect(dataFlowSuggestion("fs", "npx -y @modelcontextprotocol/server-filesystem /home/me", none).settings).toEqual(['"data": "private"']);
    expect(dataFlowSuggestion("pg", "npx -y @modelcontextprotocol/server-postgres postgresql://localhost/app", none).settings).toEqual(['"data": "private"']);
    expect(dataFlowSuggestion("web", "uvx mcp-server-fetch", none).settings).toEqual(['"egress": true']);
    expect(dataFlowSuggestion("b", "npx -y @modelcontextprotocol/server-brave-search", none).settings).toEqual(['"egress": true']);
    expect(dataFlowSuggestion("slack", "https://mcp.example.com/slack", none).settings).toEqual(['"egress": true']);
    expect(dataFlowSuggestion("fs", "npx -y @modelcontextprotocol/server-filesystem /home/me", { privateData: true, egress: false }).settings).toEqual([]);
    // Whole words only: github is not git, everything names neither.
    expect(dataFlowSuggestion("gh", "npx -y @modelcontextprotocol/server-github", none).settings).toEqual([]);
    expect(dataFlowSuggestion("demo", "npx -y @modelcontextprotocol/server-everything", none).settings).toEqual([]);
  });
});
