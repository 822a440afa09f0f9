import { describe, it, expect } from "vitest";
import type { CatalogEntry, Safety } from "../glue/catalog/entry.js";
import { stem, words } from "../glue/catalog/tokenize.js";
import { buildSearchIndex, searchIndex } from "../glue/catalog/search-index.js";
import { SCHEMA_DEPTH_MAX, SEARCH_PAGE_MAX } from "../glue/decisions/generated/spec.js";
import { compactSchema, ENUM_OMITTED } from "../glue/catalog/compact-schema.js";
import { shortDescription } from "../glue/catalog/describe.js";

// ---- fixture: a realistic catalog across six connectors -------------------------------

type Props = Record<string, string>; // name → type; a trailing "?" marks it optional
function schema(props: Props): unknown {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [raw, type] of Object.entries(props)) {
    const name = raw.replace(/\?$/, "");
    properties[name] = { type };
    if (!raw.endsWith("?")) required.push(name);
  }
  return { type: "object", properties, required };
}

function tool(connectorId: string, name: string, description: string, safety: Safety, props: Props = {}): CatalogEntry {
  return {
    address: `${connectorId}.${name}`,
    connectorId,
    name,
    description,
    inputSchema: schema(props),
    safety,
    reason: safety === "read_only" ? "annotated_read_only" : "read_only_absent",
    maxResultBytes: 50_000,
    appVisibility: 0,
    appWrites: false,
  };
}
const R: Safety = "read_only";
const A: Safety = "approval";
const repo = { owner: "string", repo: "string" };

const CATALOG: CatalogEntry[] = [
  tool("github", "list_issues", "List issues in a GitHub repository, filtered by state and labels.", R, { ...repo, "state?": "string", "labels?": "array" }),
  tool("github", "get_issue", "Get the details of one issue in a GitHub repository.", R, { ...repo, issue_number: "number" }),
  tool("github", "create_issue", "Create a new issue in a GitHub repository.", A, { ...repo, title: "string", "body?": "string" }),
  tool("github", "update_issue", "Update an existing issue: title, body, state, labels or assignees.", A, { ...repo, issue_number: "number" }),
  tool("github", "add_issue_comment", "Add a comment to an existing issue.", A, { ...repo, issue_number: "number", body: "string" }),
  tool("github", "search_issues", "Search issues and pull requests across GitHub repositories.", R, { q: "string" }),
  tool("github", "list_pull_requests", "List pull requests in a GitHub repository.", R, { ...repo, "state?": "string" }),
  tool("github", "get_pull_request", "Get the details of a specific pull request.", R, { ...repo, pull_number: "number" }),
  tool("github", "create_pull_request", "Create a new pull request in a GitHub repository.", A, { ...repo, title: "string", head: "string", base: "string" }),
  tool("github", "merge_pull_request", "Merge a pull request.", A, { ...repo, pull_number: "number", "merge_method?": "string" }),
  tool("github", "get_pull_request_files", "Get the list of files changed in a pull request.", R, { ...repo, pull_number: "number" }),
  tool("github", "search_code", "Search for code across GitHub repositories.", R, { q: "string" }),
  tool("github", "search_repositories", "Search for GitHub repositories.", R, { query: "string" }),
  tool("github", "get_file_contents", "Get the contents of a file or directory from a GitHub repository.", R, { ...repo, path: "string" }),
  tool("github", "create_or_update_file", "Create or update a single file in a GitHub repository.", A, { ...repo, path: "string", content: "string" }),
  tool("github", "list_commits", "Get a list of commits of a branch in a GitHub repository.", R, { ...repo, "sha?": "string" }),
  tool("github", "create_branch", "Create a new branch in a GitHub repository.", A, { ...repo, branch: "string" }),
  tool("github", "fork_repository", "Fork a GitHub repository to your account or an organization.", A, { ...repo }),
  tool("github", "push_files", "Push multiple files to a GitHub repository in a single commit.", A, { ...repo, branch: "string", files: "array" }),
  tool("github", "create_repository", "Create a new GitHub repository in your account.", A, { name: "string" }),

  tool("desk", "list_incidents", "List incidents, newest first, optionally filtered by status or service.", R, { "status?": "string", "service?": "string" }),
  tool("desk", "get_incident", "Get one incident by id, with its timeline and responders.", R, { id: "string" }),
  tool("desk", "get_service_metrics", "Get latency, error rate and traffic metrics for a service over a time window.", R, { service: "string", "window?": "string" }),
  tool("desk", "list_services", "List the services the desk monitors, with their owners.", R),
  tool("desk", "close_incident", "Close (resolve) an incident with a resolution note.", A, { id: "string", note: "string" }),
  tool("desk", "acknowledge_incident", "Acknowledge an incident so the pager stops escalating.", A, { id: "string" }),

  tool("fs", "read_file", "Read the complete contents of a file from the file system.", R, { path: "string" }),
  tool("fs", "read_text_file", "Read the complete contents of a file as text, optionally only the head or tail.", R, { path: "string", "head?": "number", "tail?": "number" }),
  tool("fs", "read_media_file", "Read an image or audio file and return base64 data with its MIME type.", R, { path: "string" }),
  tool("fs", "read_multiple_files", "Read the contents of multiple files simultaneously.", R, { paths: "array" }),
  tool("fs", "write_file", "Create a new file or completely overwrite an existing file with new content.", A, { path: "string", content: "string" }),
  tool("fs", "edit_file", "Make line-based edits to a text file and return a git-style diff.", A, { path: "string", edits: "array" }),
  tool("fs", "create_directory", "Create a new directory or ensure a directory exists.", A, { path: "string" }),
  tool("fs", "list_directory", "Get a detailed listing of all files and directories in a specified path.", R, { path: "string" }),
  tool("fs", "list_directory_with_sizes", "Get a detailed listing of all files and directories in a path, with sizes.", R, { path: "string" }),
  tool("fs", "directory_tree", "Get a recursive tree view of files and directories as a JSON structure.", R, { path: "string" }),
  tool("fs", "move_file", "Move or rename files and directories.", A, { source: "string", destination: "string" }),
  tool("fs", "search_files", "Recursively search for files and directories matching a pattern.", R, { path: "string", pattern: "string" }),
  tool("fs", "get_file_info", "Retrieve detailed metadata about a file or directory: size, times, permissions.", R, { path: "string" }),
  tool("fs", "list_allowed_directories", "Returns the list of directories this server is allowed to access.", R),

  tool("memory", "create_entities", "Create multiple new entities in the knowledge graph.", A, { entities: "array" }),
  tool("memory", "create_relations", "Create multiple new relations between entities in the knowledge graph.", A, { relations: "array" }),
  tool("memory", "add_observations", "Add new observations to existing entities in the knowledge graph.", A, { observations: "array" }),
  tool("memory", "delete_entities", "Delete multiple entities and their associated relations from the knowledge graph.", A, { entityNames: "array" }),
  tool("memory", "delete_observations", "Delete specific observations from entities in the knowledge graph.", A, { deletions: "array" }),
  tool("memory", "delete_relations", "Delete multiple relations from the knowledge graph.", A, { relations: "array" }),
  tool("memory", "read_graph", "Read the entire knowledge graph.", R),
  tool("memory", "search_nodes", "Search for nodes in the knowledge graph based on a query.", R, { query: "string" }),
  tool("memory", "open_nodes", "Open specific nodes in the knowledge graph by their names.", R, { names: "array" }),

  tool("slack", "list_channels", "List public channels in the workspace with pagination.", R, { "limit?": "number", "cursor?": "string" }),
  tool("slack", "get_channel_history", "Get recent messages from a channel.", R, { channel_id: "string", "limit?": "number" }),
  tool("slack", "post_message", "Post a new message to a Slack channel.", A, { channel_id: "string", text: "string" }),
  tool("slack", "reply_to_thread", "Reply to a specific message thread in Slack.", A, { channel_id: "string", thread_ts: "string", text: "string" }),
  tool("slack", "add_reaction", "Add a reaction emoji to a message.", A, { channel_id: "string", timestamp: "string", reaction: "string" }),
  tool("slack", "get_users", "Get a list of all users in the workspace with their basic profile information.", R, { "cursor?": "string" }),
  tool("slack", "get_user_profile", "Get detailed profile information for a specific user.", R, { user_id: "string" }),
  tool("slack", "search_messages", "Search messages across channels the user can see.", R, { query: "string" }),

  tool("linear", "list_issues", "List issues in the workspace, filtered by team, assignee or state.", R, { "teamId?": "string", "assigneeId?": "string" }),
  tool("linear", "get_issue", "Retrieve a Linear issue by its identifier, with comments.", R, { id: "string" }),
  tool("linear", "create_issue", "Create a new Linear issue in a team.", A, { teamId: "string", title: "string" }),
  tool("linear", "update_issue", "Update a Linear issue's state, assignee, priority or estimate.", A, { id: "string" }),
  tool("linear", "list_projects", "List projects in the Linear workspace.", R),
  tool("linear", "list_teams", "List teams in the Linear workspace.", R),
  tool("linear", "search_documentation", "Search Linear's product documentation.", R, { query: "string" }),
  tool("linear", "create_comment", "Create a comment on a Linear issue.", A, { issueId: "string", body: "string" }),
];

const INDEX = buildSearchIndex(CATALOG);
const addresses = (query: string, extra: Partial<Parameters<typeof searchIndex>[1]> = {}): string[] =>
  searchIndex(INDEX, { query, limit: SEARCH_PAGE_MAX, ...extra }).rows.map((r) => r.entry.address);

// ---- tokenize -----------------------------------------------------------------------------

/** The search terms of a text as the index builds them: its words, stemmed. */
const tokenize = (text: string): string[] => words(text).map(stem);

describe("tokenize", () => {
  it("splits camelCase and PascalCase, keeping acronyms whole", () => {
    expect(tokenize("getHTTPResponse")).toEqual(["get", "http", "response"]);
    expect(tokenize("ListOpenPullRequests")).toEqual(["list", "open", "pull", "request"]);
  });

  it("splits snake_case, kebab-case, dots and slashes", () => {
    expect(tokenize("list_open_incidents")).toEqual(["list", "open", "incident"]);
    expect(tokenize("get-service-metrics")).toEqual(["get", "service", "metric"]);
    expect(tokenize("desk.list_incidents")).toEqual(["desk", "list", "incident"]);
    expect(tokenize("repos/owner/issues")).toEqual(["repo", "owner", "issue"]);
  });

  it("keeps letter-digit runs like v2 together and splits a camel hump after digits", () => {
    expect(tokenize("v2")).toEqual(["v2"]);
    expect(tokenize("listV2Issues")).toEqual(["list", "v2", "issue"]);
    expect(tokenize("oauth2_token sha256")).toEqual(["oauth2", "token", "sha256"]);
  });

  it("drops one-character terms and stop words, lowercasing everything", () => {
    expect(tokenize("Get a list of the Issues in X")).toEqual(["get", "list", "issue"]);
    expect(tokenize("  ")).toEqual([]);
  });

  it("stems plurals the same way for index and query", () => {
    expect(stem("incidents")).toBe("incident");
    expect(stem("entities")).toBe("entity");
    expect(stem("branches")).toBe("branch");
    expect(stem("addresses")).toBe("address");
    expect(stem("status")).toBe("status");
    expect(stem("access")).toBe("access");
    expect(stem("aws")).toBe("aws");
    expect(stem("analysis")).toBe("analysis");
    expect(stem("apis")).toBe("api");
    expect(tokenize("listIncidents")).toEqual(tokenize("list incident"));
  });
});

// ---- ranking ------------------------------------------------------------------------------

describe("searchIndex ranking", () => {
  it("ranks desk.list_incidents first for 'incidents'", () => {
    const found = addresses("incidents");
    expect(found[0]).toBe("desk.list_incidents");
    expect(found).toEqual(expect.arrayContaining(["desk.get_incident", "desk.close_incident", "desk.acknowledge_incident"]));
  });

  it("ranks an exact tool name first, and an exact address above same-named tools", () => {
    expect(addresses("get_pull_request")[0]).toBe("github.get_pull_request");
    expect(addresses("merge_pull_request")[0]).toBe("github.merge_pull_request");
    expect(addresses("desk.list_incidents")[0]).toBe("desk.list_incidents");
    expect(addresses("linear.list_issues")[0]).toBe("linear.list_issues");
    // A bare name shared by two connectors puts both above everything else.
    expect(addresses("list_issues").slice(0, 2).sort()).toEqual(["github.list_issues", "linear.list_issues"]);
  });

  it("boosts a name that holds every query word over one that holds some", () => {
    const found = addresses("read file");
    expect(found.indexOf("fs.read_file")).toBe(0);
    expect(found.indexOf("fs.read_text_file")).toBeLessThan(found.indexOf("fs.write_file"));
  });

  it("lets a rare term outrank a common one", () => {
    // "list" names many tools; "metrics" names one. A doc with only the rare term wins.
    const found = addresses("list metrics");
    expect(found[0]).toBe("desk.get_service_metrics");
    const rows = searchIndex(INDEX, { query: "list metrics", limit: SEARCH_PAGE_MAX }).rows;
    const metrics = rows.find((r) => r.entry.address === "desk.get_service_metrics")!;
    const listOnly = rows.find((r) => r.entry.address === "linear.list_teams")!;
    expect(metrics.score).toBeGreaterThan(listOnly.score);
  });

  it("ranks one list across connectors by score, ties by address", () => {
    const rows = searchIndex(INDEX, { query: "knowledge graph search", limit: SEARCH_PAGE_MAX }).rows;
    expect(rows[0]!.entry.address).toBe("memory.search_nodes");
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      expect(a.score > b.score || (a.score === b.score && a.entry.address < b.entry.address)).toBe(true);
    }
    expect(new Set(rows.map((r) => r.entry.connectorId)).size).toBeGreaterThan(1);
  });

  it("finds tools by schema property names, weakly", () => {
    expect(addresses("thread_ts")).toEqual(["slack.reply_to_thread"]);
  });

  it("returns nothing for unknown or stop-word-only queries", () => {
    expect(searchIndex(INDEX, { query: "zebra" })).toEqual({ total: 0, rows: [] });
    expect(searchIndex(INDEX, { query: "the of" })).toEqual({ total: 0, rows: [] });
  });

  // Word order still matters for one thing: a lexicon phrase ("pull request") matches only in order.
  it("gives deterministic scores rounded to 3 decimals, independent of the order of words that form no lexicon phrase", () => {
    const a = searchIndex(INDEX, { query: "request files pull", limit: SEARCH_PAGE_MAX });
    const b = searchIndex(buildSearchIndex(CATALOG), { query: "pull files request", limit: SEARCH_PAGE_MAX });
    expect(b).toEqual(a);
    for (const r of a.rows) expect(Math.round(r.score * 1000) / 1000).toBe(r.score);
    // Reordering the input catalog changes nothing either.
    const c = searchIndex(buildSearchIndex([...CATALOG].reverse()), { query: "request files pull", limit: SEARCH_PAGE_MAX });
    expect(c.rows.map((r) => [r.entry.address, r.score])).toEqual(a.rows.map((r) => [r.entry.address, r.score]));
  });
});

// ---- filters and paging -------------------------------------------------------------------

describe("searchIndex filters and paging", () => {
  it("filters by exact connector id", () => {
    const found = addresses("issue", { connector: "linear" });
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((a) => a.startsWith("linear."))).toBe(true);
    expect(addresses("issue", { connector: "line" })).toEqual([]);
  });

  it("filters by safety class, 'any' being the default", () => {
    const ro = searchIndex(INDEX, { query: "issue", safety: "read_only", limit: SEARCH_PAGE_MAX });
    const ap = searchIndex(INDEX, { query: "issue", safety: "approval", limit: SEARCH_PAGE_MAX });
    const any = searchIndex(INDEX, { query: "issue", limit: SEARCH_PAGE_MAX });
    expect(ro.rows.every((r) => r.entry.safety === "read_only")).toBe(true);
    expect(ap.rows.every((r) => r.entry.safety === "approval")).toBe(true);
    expect(ro.total + ap.total).toBe(any.total);
    expect(searchIndex(INDEX, { query: "issue", safety: "any", limit: SEARCH_PAGE_MAX })).toEqual(any);
  });

  it("pages a stable partition of the full ranked list", () => {
    for (const query of ["file", "issue", "", "create new"]) {
      const full = searchIndex(INDEX, { query, limit: SEARCH_PAGE_MAX });
      const pieces: string[] = [];
      for (let offset = 0; offset < full.total; offset += 3) {
        const page = searchIndex(INDEX, { query, offset, limit: 3 });
        expect(page.total).toBe(full.total);
        pieces.push(...page.rows.map((r) => r.entry.address));
      }
      const expected = full.rows.map((r) => r.entry.address);
      expect(pieces.slice(0, expected.length)).toEqual(expected);
      expect(new Set(pieces).size).toBe(pieces.length);
      expect(pieces.length).toBe(full.total);
    }
  });

  it("defaults limit to 10, caps it at 50 and clamps a bad offset", () => {
    expect(searchIndex(INDEX, { query: "" }).rows).toHaveLength(10);
    expect(searchIndex(INDEX, { query: "", limit: 500 }).rows).toHaveLength(50);
    expect(searchIndex(INDEX, { query: "", limit: 0 }).rows).toHaveLength(1);
    expect(searchIndex(INDEX, { query: "", offset: -5 }).rows[0]!.entry.address).toBe("desk.acknowledge_incident");
    expect(searchIndex(INDEX, { query: "file", offset: 10_000 }).rows).toEqual([]);
  });

  it("browses every filtered entry in connector then name order on an empty query", () => {
    const all = searchIndex(INDEX, { query: "   ", limit: SEARCH_PAGE_MAX });
    expect(all.total).toBe(CATALOG.length);
    const rest = searchIndex(INDEX, { query: "", offset: SEARCH_PAGE_MAX, limit: SEARCH_PAGE_MAX });
    const order = [...all.rows, ...rest.rows].map((r) => r.entry);
    const expected = [...CATALOG].sort((a, b) =>
      a.connectorId === b.connectorId ? (a.name < b.name ? -1 : 1) : a.connectorId < b.connectorId ? -1 : 1,
    );
    expect(order.map((e) => e.address)).toEqual(expected.map((e) => e.address));
    expect(all.rows.every((r) => r.score === 0)).toBe(true);
    const slackRo = searchIndex(INDEX, { query: "", connector: "slack", safety: "read_only", limit: SEARCH_PAGE_MAX });
    expect(slackRo.rows.map((r) => r.entry.name)).toEqual([
      "get_channel_history", "get_user_profile", "get_users", "list_channels", "search_messages",
    ]);
  });
});

// ---- describe -----------------------------------------------------------------------------

describe("shortDescription", () => {
  const base = { name: "list_incidents", description: "" };
  it("keeps the first sentence with whitespace collapsed", () => {
    expect(shortDescription({ ...base, description: "  List   incidents,\n newest first. Supports paging." })).toBe(
      "List incidents, newest first.",
    );
    expect(shortDescription({ ...base, description: "Lists items, e.g. files. Slow." })).toBe("Lists items, e.g. files.");
    expect(shortDescription({ ...base, description: "Lists incidents\n\nArgs:\n  status: filter" })).toBe("Lists incidents");
  });

  it("clamps to 160 characters with an ellipsis", () => {
    const s = shortDescription({ ...base, description: "word ".repeat(100) });
    expect(s.length).toBeLessThanOrEqual(160);
    expect(s.endsWith("…")).toBe(true);
  });

  it("falls back to the title, then the name", () => {
    expect(shortDescription({ ...base, title: "List Incidents" })).toBe("List Incidents");
    expect(shortDescription(base)).toBe("list_incidents");
  });
});

// ---- compact schemas ----------------------------------------------------------------------

describe("compactSchema", () => {
  it("drops noise and keeps what builds valid arguments", () => {
    const out = compactSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: "urn:x",
      title: "Args",
      type: "object",
      additionalProperties: false,
      examples: [{ status: "open" }],
      properties: {
        status: { type: "string", title: "Status", enum: ["open", "closed"], default: "open", examples: ["open"] },
        limit: { type: "integer", minimum: 1, maximum: 100, description: "Page   size." },
        tags: { type: "array", items: { type: "string", title: "Tag" } },
        when: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      },
      required: ["status"],
    });
    expect(out).toEqual({
      type: "object",
      properties: {
        status: { type: "string", enum: ["open", "closed"], default: "open" },
        limit: { type: "integer", minimum: 1, maximum: 100, description: "Page size." },
        tags: { type: "array", items: { type: "string" } },
        when: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      },
      required: ["status"],
    });
  });

  it("caps long enums at 20 values with a count of the dropped ones", () => {
    const values = Array.from({ length: 35 }, (_, i) => `v${i}`);
    const out = compactSchema({ type: "string", enum: values }) as Record<string, unknown>;
    expect(out.enum).toEqual(values.slice(0, 20));
    expect(out[ENUM_OMITTED]).toBe(15);
  });

  it("clamps descriptions to 160 characters", () => {
    const out = compactSchema({ type: "string", description: "x".repeat(500) }) as { description: string };
    expect(Array.from(out.description)).toHaveLength(160);
    expect(out.description.endsWith("…")).toBe(true);
  });

  it("replaces nesting deeper than the cap with {}", () => {
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 50_000; i++) deep = { type: "object", properties: { a: deep } };
    let node = compactSchema(deep) as { properties?: { a: unknown } };
    let depth = 0;
    while (node.properties) {
      node = node.properties.a as typeof node;
      depth++;
    }
    expect(depth).toBe(SCHEMA_DEPTH_MAX);
    expect(node).toEqual({});
  });

  it("resists __proto__ keys without touching any prototype", () => {
    const hostile = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","polluted":true},"ok":{"type":"string","default":{"__proto__":{"polluted":true},"x":1}}},"required":["__proto__","ok"]}',
    );
    const out = compactSchema(hostile) as { properties: Record<string, { default?: object }>; required: string[] };
    expect(Object.getPrototypeOf(out.properties)).toBe(Object.prototype);
    expect(Object.keys(out.properties)).toEqual(["ok"]);
    expect(out.required).toEqual(["ok"]);
    expect(Object.getPrototypeOf(out.properties.ok!.default)).toBe(Object.prototype);
    expect(out.properties.ok!.default).toEqual({ x: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("never throws on hostile or odd input", () => {
    const trap = new Proxy({}, { ownKeys: () => { throw new Error("boom"); }, get: () => { throw new Error("boom"); } });
    for (const input of [null, undefined, 42, "s", [], true, trap, { properties: trap }, { type: 7, enum: "x", items: 3 }]) {
      expect(() => compactSchema(input)).not.toThrow();
    }
    expect(compactSchema(null)).toEqual({});
    expect(compactSchema(true)).toBe(true);
  });

  it("inlines local $refs and stops at recursion", () => {
    const out = compactSchema({
      type: "object",
      properties: { node: { $ref: "#/$defs/Node" } },
      $defs: { Node: { type: "object", title: "Node", properties: { child: { $ref: "#/$defs/Node" }, name: { type: "string" } } } },
    });
    expect(out).toEqual({
      type: "object",
      properties: { node: { type: "object", properties: { child: {}, name: { type: "string" } } } },
    });
  });
});

// ---- scale --------------------------------------------------------------------------------

describe("searchIndex at 10,000 entries", () => {
  it("builds and answers ranked, filtered and browsing queries", () => {
    const verbs = ["list", "get", "create", "update", "delete", "search", "sync", "export"];
    const nouns = ["issue", "incident", "invoice", "customer", "order", "ticket", "report", "deployment", "alert", "user"];
    const big: CatalogEntry[] = [];
    for (let i = 0; i < 10_000; i++) {
      const connectorId = `svc${i % 40}`;
      const verb = verbs[i % verbs.length]!;
      const noun = nouns[Math.floor(i / verbs.length) % nouns.length]!;
      const name = `${verb}_${noun}s_${i}`;
      big.push(tool(connectorId, name, `${verb} ${noun} records in service ${connectorId}, variant ${i}.`, verb === "list" || verb === "get" || verb === "search" ? R : A, { id: "string" }));
    }
    const idx = buildSearchIndex(big);
    const hit = searchIndex(idx, { query: "list invoices", limit: 5 });
    expect(hit.total).toBeGreaterThan(1000);
    expect(hit.rows).toHaveLength(5);
    for (const r of hit.rows) expect(r.entry.name).toMatch(/^list_invoices_/);
    const target = big[4321]!; // get_issues_4321, one of ~1,250 "get … issues" tools
    expect(searchIndex(idx, { query: target.name }).rows[0]!.entry).toBe(target);
    expect(searchIndex(idx, { query: target.address }).rows[0]!.entry).toBe(target);
    const filtered = searchIndex(idx, { query: "deployment", connector: "svc7", safety: "approval", limit: 50 });
    expect(filtered.rows.every((r) => r.entry.connectorId === "svc7" && r.entry.safety === "approval")).toBe(true);
    expect(searchIndex(idx, { query: "" }).total).toBe(10_000);
  });
});
