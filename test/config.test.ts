import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { core, type Core } from "../glue/decisions/core.js";
import { Budget, LimitCheck } from "../glue/decisions/generated/spec.js";
import { validateConfig } from "../glue/config/validate.js";
import { findConfig, loadConfig, parseJson } from "../glue/config/load.js";
import { formatConfigErrors } from "../glue/config/format.js";
import { SANDBOX_LIMITS, RESULTS_LIMITS, type AtriumConfig, type ConfigError } from "../glue/config/schema.js";

const c = core();
const gh = (entry: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({ mcpServers: { github: { command: "npx", ...entry } }, ...rest });

/** The config of an accepted input; fails the test with the errors otherwise. */
function accepted(raw: unknown, withCore: Core = c): AtriumConfig {
  const r = validateConfig(raw, withCore);
  if (!r.ok) expect.fail(formatConfigErrors("atrium.json", r.errors));
  return r.config;
}
/** The errors of a refused input. */
function refused(raw: unknown, withCore: Core = c): ConfigError[] {
  const r = validateConfig(raw, withCore);
  if (r.ok) expect.fail("expected the config to be refused");
  return r.errors;
}
const tmp = () => mkdtempSync(join(tmpdir(), "atrium-config-"));

describe("validateConfig: file and connector shape", () => {
  it("accepts a stdio connector and fills every unset value from the core's defaults", () => {
    const config = accepted({ mcpServers: { github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { K: "V" }, cwd: "/srv" } } });
    expect(config.connectors).toEqual([
      {
        id: "github", kind: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { K: "V" }, cwd: "/srv", inheritEnv: true,
        readOnlyTools: [], approvalTools: [], keepOutsidePrograms: [], disabled: false, appWrites: false, protocol: "auto", pins: "pin", privateData: false, egress: false, redactSecrets: true,
        timeoutMs: c.limitDefault(Budget.host_call_deadline_ms), startTimeoutMs: c.limitDefault(Budget.connector_start_ms), maxResultBytes: c.limitDefault(Budget.direct_result_bytes),
      },
    ]);
    for (const [key, budget] of Object.entries(SANDBOX_LIMITS)) expect(config.sandbox[key as keyof typeof SANDBOX_LIMITS]).toBe(c.limitDefault(budget));
    for (const [key, budget] of Object.entries(RESULTS_LIMITS)) expect(config.results[key as keyof typeof RESULTS_LIMITS]).toBe(c.limitDefault(budget));
    expect(config.sandbox.workers).toBe(2);
    expect(config.views).toEqual({ delivery: "auto", fileFallback: true, directory: null });
    expect(config.warnings).toEqual([]);
  });

  it("start deadline: atrium.connectors sets it for all, a connector's startTimeoutMs for itself; ranges from the core", () => {
    const config = accepted({ mcpServers: { a: { command: "x" }, b: { command: "y", startTimeoutMs: 2000 } }, atrium: { connectors: { startTimeoutMs: 90_000, startRetries: 3, restartMaxMs: 5000 } } });
    expect(config.connectors.map((x) => x.startTimeoutMs)).toEqual([90_000, 2000]);
    expect(config.lifecycle).toEqual({ startTimeoutMs: 90_000, startRetries: 3, restartMaxMs: 5000 });
    const max = c.limitRange(Budget.connector_start_ms).max;
    const errors = refused({ mcpServers: { a: { command: "x", startTimeoutMs: max + 1 } }, atrium: { connectors: { startRetries: -1, retries: 2 } } });
    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining(["mcpServers.a.startTimeoutMs", "atrium.connectors.startRetries", "atrium.connectors.retries"]));
  });

  it("accepts a remote Streamable HTTP connector with headers", () => {
    const config = accepted({ mcpServers: { linear: { url: "https://mcp.linear.app/mcp", headers: { Authorization: "Bearer x" } } } });
    expect(config.connectors[0]).toMatchObject({ id: "linear", kind: "http", url: "https://mcp.linear.app/mcp", headers: { Authorization: "Bearer x" } });
    expect(config.connectors[0]).not.toHaveProperty("command");
  });

  it("data-flow settings (spec/data-flow.md): \"data\": \"private\" and \"egress\": true are read per connector; a value of another type or word is refused naming its key", () => {
    const [files, web, plain] = accepted({ mcpServers: { files: { command: "a", data: "private" }, web: { command: "b", egress: true }, plain: { command: "c" } } }).connectors;
    expect([files!.privateData, files!.egress, web!.privateData, web!.egress, plain!.privateData, plain!.egress]).toEqual([true, false, false, true, false, false]);
    const errors = refused({ mcpServers: { a: { command: "a", data: true, egress: "yes" }, b: { command: "b", data: "secret" } } });
    expect(errors.map((e) => e.path)).toEqual(["mcpServers.a.data", "mcpServers.a.egress", "mcpServers.b.data"]);
    expect(errors[0]!.message).toMatch(/expected a string, got boolean/);
    expect(errors[2]!.message).toMatch(/must be "private"/);
  });

  it("keeps connectors in file order", () => {
    const config = accepted(JSON.parse('{"mcpServers": {"zeta": {"command": "z"}, "alpha": {"command": "a"}, "mid": {"url": "http://localhost:3000/mcp"}}}'));
    expect(config.connectors.map((x) => x.id)).toEqual(["zeta", "alpha", "mid"]);
  });

  it("refuses a root that is not an object, naming the actual type", () => {
    expect(refused([])).toEqual([{ path: "", message: "expected an object, got array" }]);
    expect(refused(null)).toEqual([{ path: "", message: "expected an object, got null" }]);
  });

  it("requires mcpServers, and points a VS Code servers block at the right name", () => {
    expect(refused({})).toEqual([{ path: "", message: 'missing "mcpServers"' }]);
    expect(refused({ servers: {} })).toEqual([{ path: "", message: `missing "mcpServers" (VS Code's "servers" block is not read; rename it to "mcpServers")` }]);
    expect(refused({ mcpServers: [] })).toEqual([{ path: "mcpServers", message: "expected an object, got array" }]);
  });

  it("accepts an empty mcpServers with a warning that nothing will be served", () => {
    const r = validateConfig({ mcpServers: {} }, c);
    expect(r).toMatchObject({ ok: true, warnings: [{ path: "mcpServers", message: "no connectors; atrium will serve no tools" }] });
  });

  it("accepts lowercase connector ids with digits, _ and -, and refuses others with a suggestion", () => {
    expect(accepted({ mcpServers: { "my-server_2": { command: "x" }, "0x": { command: "y" } } }).connectors.map((x) => x.id)).toEqual(["my-server_2", "0x"]);
    const [upper] = refused({ mcpServers: { GitHub: { command: "x" } } });
    expect(upper.path).toBe("mcpServers.GitHub");
    expect(upper.message).toMatch(/^invalid connector id: .*; did you mean "github"\?$/);
    expect(refused({ mcpServers: { "my server": { command: "x" } } })[0].path).toBe('mcpServers["my server"]');
    expect(refused({ mcpServers: { ["a".repeat(65)]: { command: "x" } } })[0].message).toMatch(/^invalid connector id/);
    expect(accepted({ mcpServers: { ["a".repeat(64)]: { command: "x" } } }).connectors).toHaveLength(1);
  });

  it("refuses an entry that is not an object", () => {
    expect(refused({ mcpServers: { github: "npx" } })).toEqual([{ path: "mcpServers.github", message: "expected an object, got string" }]);
  });

  it("refuses an entry with neither command nor url", () => {
    expect(refused({ mcpServers: { github: { args: [] } } })).toEqual([{ path: "mcpServers.github", message: 'missing "command" (or "url" for a remote server)' }]);
  });

  it("refuses an entry with both command and url", () => {
    const errors = refused(gh({ url: "https://x.test/mcp" }));
    expect(errors).toEqual([{ path: "mcpServers.github", message: expect.stringMatching(/^has both "command" and "url"/) }]);
  });

  it("refuses fields that belong to the other kind of connector", () => {
    expect(refused(gh({ headers: { A: "b" } }))).toEqual([{ path: "mcpServers.github.headers", message: 'applies only to a remote server (one with "url")' }]);
    expect(refused({ mcpServers: { r: { url: "https://x.test/mcp", args: [] } } })).toEqual([{ path: "mcpServers.r.args", message: 'applies only to a stdio server (one with "command")' }]);
  });
});

describe("validateConfig: host type field", () => {
  it("accepts type stdio with command, and http or streamable-http with url", () => {
    expect(accepted(gh({ type: "stdio" })).connectors[0].kind).toBe("stdio");
    expect(accepted({ mcpServers: { a: { type: "http", url: "https://a.test/mcp" }, b: { type: "streamable-http", url: "http://b.test/mcp" } } }).connectors.map((x) => x.kind)).toEqual(["http", "http"]);
  });

  it("refuses sse with a message that only Streamable HTTP is supported", () => {
    const [e] = refused({ mcpServers: { old: { type: "sse", url: "https://x.test/sse" } } });
    expect(e.path).toBe("mcpServers.old.type");
    expect(e.message).toMatch(/^"sse" is not supported: atrium reaches remote servers over Streamable HTTP only/);
  });

  it("refuses a type that contradicts the entry's fields", () => {
    expect(refused({ mcpServers: { r: { type: "stdio", url: "https://x.test/mcp" } } })).toEqual([{ path: "mcpServers.r.type", message: '"stdio" does not match an entry with "url"' }]);
    expect(refused(gh({ type: "http" }))).toEqual([{ path: "mcpServers.github.type", message: '"http" does not match an entry with "command"' }]);
  });

  it("refuses an unknown or non-string type", () => {
    expect(refused(gh({ type: "websocket" }))).toEqual([{ path: "mcpServers.github.type", message: 'must be one of "stdio", "http", "streamable-http", "streamableHttp", got "websocket"' }]);
    expect(refused(gh({ type: 1 }))).toEqual([{ path: "mcpServers.github.type", message: "expected a string, got number" }]);
  });
});

describe("validateConfig: stdio and http fields", () => {
  it("names the path and the expected and actual type of a wrong argument", () => {
    expect(refused(gh({ args: ["-y", "pkg", 3] }))).toEqual([{ path: "mcpServers.github.args[2]", message: "expected a string, got number" }]);
    expect(refused(gh({ args: "-y pkg" }))).toEqual([{ path: "mcpServers.github.args", message: "expected an array, got string" }]);
  });

  it("accepts an empty argument but refuses an empty command", () => {
    expect(accepted(gh({ args: [""] })).connectors[0]).toMatchObject({ args: [""] });
    expect(refused(gh({ command: " " }))).toEqual([{ path: "mcpServers.github.command", message: "must not be empty" }]);
    expect(refused(gh({ command: 7 }))).toEqual([{ path: "mcpServers.github.command", message: "expected a string, got number" }]);
  });

  it("requires env values to be strings and env names to be valid", () => {
    expect(refused(gh({ env: { TOKEN: true } }))).toEqual([{ path: "mcpServers.github.env.TOKEN", message: "expected a string, got boolean" }]);
    expect(refused(gh({ env: { "A=B": "x" } }))).toEqual([{ path: 'mcpServers.github.env["A=B"]', message: "not a valid environment variable name" }]);
    expect(refused(gh({ env: ["K=V"] }))).toEqual([{ path: "mcpServers.github.env", message: "expected an object, got array" }]);
  });

  it("requires cwd to be a non-empty string", () => {
    expect(accepted(gh({ cwd: "/tmp" })).connectors[0]).toMatchObject({ cwd: "/tmp" });
    expect(refused(gh({ cwd: "" }))).toEqual([{ path: "mcpServers.github.cwd", message: "must not be empty" }]);
  });

  it("requires url to be an http or https URL", () => {
    expect(refused({ mcpServers: { r: { url: "not a url" } } })).toEqual([{ path: "mcpServers.r.url", message: 'is not a valid URL: "not a url"' }]);
    expect(refused({ mcpServers: { r: { url: "ws://x.test/mcp" } } })).toEqual([{ path: "mcpServers.r.url", message: 'must be an http:// or https:// URL (Streamable HTTP), got "ws:"' }]);
  });

  it("requires header names to be HTTP tokens and values to be single-line strings", () => {
    const r = (headers: unknown) => ({ mcpServers: { r: { url: "https://x.test/mcp", headers } } });
    expect(refused(r({ "Bad Name": "x" }))).toEqual([{ path: 'mcpServers.r.headers["Bad Name"]', message: "not a valid HTTP header name" }]);
    expect(refused(r({ "X-Key": "a\r\nInjected: 1" }))).toEqual([{ path: "mcpServers.r.headers.X-Key", message: "must not contain a line break" }]);
    expect(refused(r({ "X-Key": 1 }))).toEqual([{ path: "mcpServers.r.headers.X-Key", message: "expected a string, got number" }]);
  });
});

describe("validateConfig: unknown keys", () => {
  it("refuses an unknown connector key and suggests the close known one", () => {
    expect(refused(gh({ comand: "npx" }))).toEqual([{ path: "mcpServers.github.comand", message: 'unknown key; did you mean "command"?' }]);
    expect(refused(gh({ ReadOnlyTool: [] }))[0].message).toBe('unknown key; did you mean "readOnlyTools"?');
  });

  it("refuses an unknown connector key that is close to nothing, listing the known keys", () => {
    const [e] = refused(gh({ zzzzzz: 1 }));
    expect(e.path).toBe("mcpServers.github.zzzzzz");
    expect(e.message).toMatch(/^unknown key \(expected one of: type, command, args, env, cwd, inheritEnv, url, headers, oauth, auth, readOnlyTools/);
  });

  it("refuses unknown keys in the atrium block and its sections", () => {
    expect(refused(gh({}, { atrium: { sandbx: {} } }))).toEqual([{ path: "atrium.sandbx", message: 'unknown key; did you mean "sandbox"?' }]);
    expect(refused(gh({}, { atrium: { sandbox: { hostCall: 5 } } }))).toEqual([{ path: "atrium.sandbox.hostCall", message: 'unknown key; did you mean "hostCalls"?' }]);
    expect(refused(gh({}, { atrium: { views: { mode: "inline" } } }))[0].path).toBe("atrium.views.mode");
    expect(refused(gh({}, { atrium: { results: { ttl: 1 } } }))[0].path).toBe("atrium.results.ttl");
  });

  it("refuses a top-level key that is a near miss of a known one", () => {
    expect(refused({ mcpServer: {}, mcpServers: {} })).toEqual([{ path: "mcpServer", message: 'unknown key; did you mean "mcpServers"?' }]);
    expect(refused({ mcpServers: {}, atrum: {} })).toEqual([{ path: "atrum", message: 'unknown key; did you mean "atrium"?' }]);
  });

  it("accepts a top-level key far from every known one, with a warning", () => {
    const r = validateConfig({ mcpServers: { github: { command: "npx" } }, globalShortcut: "Ctrl+Space" }, c);
    expect(r).toEqual(expect.objectContaining({ ok: true, warnings: [{ path: "globalShortcut", message: 'unknown key, ignored (atrium reads only "mcpServers" and "atrium")' }] }));
    if (r.ok) expect(r.config.warnings).toEqual(r.warnings);
  });
});

describe("validateConfig: operator tool lists", () => {
  it("accepts read-only and approval lists of distinct names", () => {
    expect(accepted(gh({ readOnlyTools: ["list_repos", "get_issue"], approvalTools: ["merge_pr"] })).connectors[0]).toMatchObject({ readOnlyTools: ["list_repos", "get_issue"], approvalTools: ["merge_pr"] });
  });

  it("refuses a tool listed twice in one list, naming both places", () => {
    expect(refused(gh({ readOnlyTools: ["a", "b", "a"] }))).toEqual([{ path: "mcpServers.github.readOnlyTools[2]", message: '"a" is listed twice (also at mcpServers.github.readOnlyTools[0])' }]);
  });

  it("refuses empty names and non-string names and a non-array list", () => {
    expect(refused(gh({ approvalTools: ["", 4] }))).toEqual([
      { path: "mcpServers.github.approvalTools[0]", message: "must not be empty" },
      { path: "mcpServers.github.approvalTools[1]", message: "expected a string, got number" },
    ]);
    expect(refused(gh({ readOnlyTools: "list_repos" }))).toEqual([{ path: "mcpServers.github.readOnlyTools", message: "expected an array, got string" }]);
  });

  it("keepOutsidePrograms: a list of distinct tool names, checked like the other lists", () => {
    expect(accepted(gh({ approvalTools: ["merge_pr"], keepOutsidePrograms: ["merge_pr", "delete_repo"] })).connectors[0]).toMatchObject({ keepOutsidePrograms: ["merge_pr", "delete_repo"] });
    expect(refused(gh({ keepOutsidePrograms: ["a", "", "a", 3] }))).toEqual([
      { path: "mcpServers.github.keepOutsidePrograms[1]", message: "must not be empty" },
      { path: "mcpServers.github.keepOutsidePrograms[2]", message: '"a" is listed twice (also at mcpServers.github.keepOutsidePrograms[0])' },
      { path: "mcpServers.github.keepOutsidePrograms[3]", message: "expected a string, got number" },
    ]);
    expect(refused(gh({ keepOutsidePrograms: "merge_pr" }))).toEqual([{ path: "mcpServers.github.keepOutsidePrograms", message: "expected an array, got string" }]);
  });

  it("refuses a tool that is both read-only and behind approval, naming both paths", () => {
    expect(refused(gh({ readOnlyTools: [7, "x", "merge_pr"], approvalTools: ["merge_pr"] }))).toEqual([
      { path: "mcpServers.github.readOnlyTools[0]", message: "expected a string, got number" },
      { path: "mcpServers.github.approvalTools[0]", message: '"merge_pr" is also in mcpServers.github.readOnlyTools[2]; a tool is either read-only or behind approval, not both' },
    ]);
  });
});

describe("validateConfig: numeric limits are the core's to judge", () => {
  it("accepts an operator timeout and result cap the core accepts, and carries them", () => {
    const config = accepted(gh({ timeoutMs: 60_000, maxResultBytes: 2_000, disabled: true }));
    expect(config.connectors[0]).toMatchObject({ timeoutMs: 60_000, maxResultBytes: 2_000, disabled: true });
  });

  it("states the range the core accepts and the default when a value is out of it", () => {
    expect(refused(gh({ timeoutMs: 0 }))).toEqual([{ path: "mcpServers.github.timeoutMs", message: "0 is below the minimum (accepted: whole numbers from 100 to 600000; default 15000)" }]);
    expect(refused(gh({ timeoutMs: 600_001 }))).toEqual([{ path: "mcpServers.github.timeoutMs", message: "600001 is above the maximum (accepted: whole numbers from 100 to 600000; default 15000)" }]);
    expect(refused(gh({ maxResultBytes: 2.5 }))).toEqual([{ path: "mcpServers.github.maxResultBytes", message: "must be a whole number, got 2.5 (accepted: whole numbers from 1000 to 10000000; default 50000)" }]);
    expect(refused(gh({ timeoutMs: "15000" }))).toEqual([{ path: "mcpServers.github.timeoutMs", message: "expected a whole number, got string" }]);
  });

  it("checks every sandbox and results limit through the core", () => {
    // approvalGrantCalls accepts 0 (it never offers "the rest of this run"), so it is given -1.
    const sandbox = Object.fromEntries(Object.keys(SANDBOX_LIMITS).map((k) => [k, k === "approvalGrantCalls" ? -1 : 0]));
    const results = Object.fromEntries(Object.keys(RESULTS_LIMITS).map((k) => [k, 1e12]));
    const errors = refused(gh({}, { atrium: { sandbox, results } }));
    expect(errors.map((e) => e.path)).toEqual([...Object.keys(SANDBOX_LIMITS).map((k) => `atrium.sandbox.${k}`), ...Object.keys(RESULTS_LIMITS).map((k) => `atrium.results.${k}`)]);
    expect(errors.slice(0, -3).every((e) => /^-?[01] is below the minimum/.test(e.message))).toBe(true);
    expect(errors.slice(-3).every((e) => e.message.startsWith("1000000000000 is above the maximum"))).toBe(true);
  });

  it("carries operator sandbox and results values the core accepts", () => {
    const config = accepted(gh({}, { atrium: { sandbox: { hostCalls: 50, queue: 8, heapBytes: 134217728 }, results: { stashTtlMs: 60_000 } } }));
    expect(config.sandbox).toMatchObject({ hostCalls: 50, queue: 8, heapBytes: 134217728, batchCalls: c.limitDefault(Budget.batch_calls) });
    expect(config.results.stashTtlMs).toBe(60_000);
  });

  it("follows the core, not a literal: a core with another range and default changes the verdict", () => {
    // host_calls narrowed to 1..5 with default 3; everything else delegates to the real core.
    const narrow: Core = {
      ...c,
      limitDefault: (b) => (b === Budget.host_calls ? 3 : c.limitDefault(b)),
      limitRange: (b) => (b === Budget.host_calls ? { min: 1, max: 5 } : c.limitRange(b)),
      limitAccepts: (b, v) => (b !== Budget.host_calls ? c.limitAccepts(b, v) : !Number.isInteger(v) ? LimitCheck.not_integer : v < 1 ? LimitCheck.below_min : v > 5 ? LimitCheck.above_max : LimitCheck.ok),
    };
    expect(accepted(gh({}), narrow).sandbox.hostCalls).toBe(3);
    expect(refused(gh({}, { atrium: { sandbox: { hostCalls: 6 } } }), narrow)).toEqual([{ path: "atrium.sandbox.hostCalls", message: "6 is above the maximum (accepted: whole numbers from 1 to 5; default 3)" }]);
  });

  it("gives a connector without its own cap the atrium-wide direct result cap", () => {
    const config = accepted({ mcpServers: { a: { command: "a" }, b: { command: "b", maxResultBytes: 3_000 } }, atrium: { results: { directResultBytes: 9_000 } } });
    expect(config.connectors.map((x) => x.maxResultBytes)).toEqual([9_000, 3_000]);
  });

  it("B2: accepts the sandbox_workers range and refuses anything else", () => {
    expect(accepted(gh({}, { atrium: { sandbox: { workers: 16 } } })).sandbox.workers).toBe(16);
    expect(accepted(gh({}, { atrium: { sandbox: { workers: 1 } } })).sandbox.workers).toBe(1);
    expect(refused(gh({}, { atrium: { sandbox: { workers: 0 } } }))).toEqual([{ path: "atrium.sandbox.workers", message: "0 is below the minimum (accepted: whole numbers from 1 to 16; default 2)" }]);
    expect(refused(gh({}, { atrium: { sandbox: { workers: 17 } } }))).toEqual([{ path: "atrium.sandbox.workers", message: "17 is above the maximum (accepted: whole numbers from 1 to 16; default 2)" }]);
    expect(refused(gh({}, { atrium: { sandbox: { workers: "2" } } }))[0].message).toBe("expected a whole number, got string");
  });

  it("redactSecrets: on unless false; anything but a boolean is refused at its path", () => {
    expect(accepted(gh({})).connectors[0].redactSecrets).toBe(true);
    expect(accepted(gh({ redactSecrets: false })).connectors[0].redactSecrets).toBe(false);
    expect(accepted(gh({ redactSecrets: true })).connectors[0].redactSecrets).toBe(true);
    expect(refused(gh({ redactSecrets: "false" }))).toEqual([{ path: "mcpServers.github.redactSecrets", message: "expected a boolean, got string" }]);
    expect(refused(gh({ redactSecrets: 0 }))).toEqual([{ path: "mcpServers.github.redactSecrets", message: "expected a boolean, got number" }]);
    expect(refused(gh({ redactSecret: false }))).toEqual([{ path: "mcpServers.github.redactSecret", message: 'unknown key; did you mean "redactSecrets"?' }]);
  });

  it("appWrites: a connector's app may write only when it is true (default false); anything but a boolean is refused at its path", () => {
    expect(accepted(gh({})).connectors[0].appWrites).toBe(false);
    expect(accepted(gh({ appWrites: true })).connectors[0].appWrites).toBe(true);
    expect(refused(gh({ appWrites: "true" }))).toEqual([{ path: "mcpServers.github.appWrites", message: "expected a boolean, got string" }]);
    expect(refused(gh({ appWrite: true }))).toEqual([{ path: "mcpServers.github.appWrite", message: 'unknown key; did you mean "appWrites"?' }]);
  });

  it("requires disabled to be a boolean", () => {
    expect(refused(gh({ disabled: "yes" }))).toEqual([{ path: "mcpServers.github.disabled", message: "expected a boolean, got string" }]);
  });

  it("protocol: auto by default; 2025-11-25 or 2026-07-28 carried for stdio and http; anything else refused at its path", () => {
    expect(accepted(gh({})).connectors[0].protocol).toBe("auto");
    for (const protocol of ["auto", "2025-11-25", "2026-07-28"]) {
      expect(accepted(gh({ protocol })).connectors[0].protocol).toBe(protocol);
      expect(accepted({ mcpServers: { r: { url: "https://example.com/mcp", protocol } } }).connectors[0].protocol).toBe(protocol);
    }
    expect(refused(gh({ protocol: "2025-06-18" }))).toEqual([{ path: "mcpServers.github.protocol", message: `must be one of "auto", "2025-11-25", "2026-07-28", got "2025-06-18" ("auto" probes with server/discover and falls back to initialize)` }]);
    expect(refused(gh({ protocol: 2026 }))).toEqual([{ path: "mcpServers.github.protocol", message: "expected a string, got number" }]);
    expect(refused(gh({ protocl: "auto" }))).toEqual([{ path: "mcpServers.github.protocl", message: `unknown key; did you mean "protocol"?` }]);
  });
});

describe("validateConfig: views block", () => {
  it("accepts every delivery mode, a fallback flag and a directory", () => {
    for (const delivery of ["auto", "inline", "file", "none"]) expect(accepted(gh({}, { atrium: { views: { delivery } } })).views.delivery).toBe(delivery);
    expect(accepted(gh({}, { atrium: { views: { fileFallback: false, directory: "/tmp/views" } } })).views).toEqual({ delivery: "auto", fileFallback: false, directory: "/tmp/views" });
    expect(accepted(gh({}, { atrium: { views: { directory: null } } })).views.directory).toBeNull();
  });

  it("refuses an unknown delivery, a non-boolean fallback and an empty directory", () => {
    expect(refused(gh({}, { atrium: { views: { delivery: "inlin", fileFallback: 1, directory: "" } } }))).toEqual([
      { path: "atrium.views.delivery", message: 'must be one of "auto", "inline", "file", "none", got "inlin"' },
      { path: "atrium.views.fileFallback", message: "expected a boolean, got number" },
      { path: "atrium.views.directory", message: "must not be empty" },
    ]);
  });

  it("refuses an atrium block or section that is not an object", () => {
    expect(refused(gh({}, { atrium: [] }))).toEqual([{ path: "atrium", message: "expected an object, got array" }]);
    expect(refused(gh({}, { atrium: { views: "inline" } }))).toEqual([{ path: "atrium.views", message: "expected an object, got string" }]);
  });
});

describe("validateConfig: robustness", () => {
  it("collects every error in one pass instead of stopping at the first", () => {
    const errors = refused({ mcpServers: { github: { comand: "npx", args: [1] }, Bad: { command: "" } }, atrium: { sandbox: { workers: 0 } } });
    expect(errors.map((e) => e.path)).toEqual([
      "mcpServers.github.comand", "mcpServers.github", "mcpServers.github.args[0]", "mcpServers.Bad", "mcpServers.Bad.command", "atrium.sandbox.workers",
    ]);
  });

  it("never throws on hostile inputs", () => {
    const deep: Record<string, unknown> = {};
    let cur = deep;
    for (let i = 0; i < 100_000; i++) cur = (cur.x = {}) as Record<string, unknown>;
    const throwing = new Proxy({}, { ownKeys: () => { throw new Error("boom"); } });
    const inputs: unknown[] = [
      undefined, null, 0, NaN, "atrium", true, [], [[]], () => 1, Symbol("s"), 10n, new Map(), new Date(), Object.create(null), throwing,
      { mcpServers: null }, { mcpServers: { x: null } }, { mcpServers: { x: [] } }, { mcpServers: deep }, { mcpServers: { x: deep } },
      { mcpServers: { x: { command: "a", env: deep, args: deep, headers: deep } }, atrium: deep },
      { mcpServers: { x: { command: "a", args: new Array(5) } } }, { mcpServers: { x: { command: "a", timeoutMs: NaN } } },
      { mcpServers: { x: { command: "a", timeoutMs: Infinity, maxResultBytes: -0 } } }, { mcpServers: { x: { command: "a", get args() { throw new Error("getter"); } } } },
    ];
    for (const raw of inputs) expect(() => validateConfig(raw, c)).not.toThrow();
    expect(validateConfig(throwing, c)).toEqual({ ok: false, errors: [{ path: "", message: "the config could not be read as plain data" }], warnings: [] });
  });

  it("never throws on arbitrary values, including ones built from the known keys", () => {
    const keys = fc.constantFrom("mcpServers", "atrium", "sandbox", "views", "results", "command", "url", "args", "env", "headers", "type", "readOnlyTools", "approvalTools", "timeoutMs", "workers", "delivery", "__proto__", "constructor", "github");
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, fc.anything(), fc.array(tie("node")), fc.dictionary(keys, tie("node"))),
    })).node;
    fc.assert(fc.property(fc.oneof(fc.anything(), tree), (raw) => {
      const r = validateConfig(raw, c);
      expect(r.ok ? r.config : r.errors.length).toBeTruthy();
    }), { numRuns: 500, seed: 20261129 });
  });

  it("treats a JSON __proto__ key as plain data and accepts constructor as a connector id", () => {
    const raw = JSON.parse('{"__proto__": {"polluted": true}, "mcpServers": {"constructor": {"command": "x", "env": {"__proto__": "v"}}}}');
    const r = validateConfig(raw, c);
    expect(r).toMatchObject({ ok: true, warnings: [{ path: "__proto__", message: expect.stringMatching(/^unknown key, ignored/) }] });
    if (!r.ok || r.config.connectors[0].kind !== "stdio") return expect.fail("expected a stdio connector");
    expect(r.config.connectors[0].id).toBe("constructor");
    expect(Object.getOwnPropertyDescriptor(r.config.connectors[0].env, "__proto__")?.value).toBe("v");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(refused(JSON.parse('{"mcpServers": {"__proto__": {"command": "x"}}}'))[0]).toMatchObject({ path: "mcpServers.__proto__", message: expect.stringMatching(/^invalid connector id/) });
  });

  it("clamps user text echoed in paths and messages to the core's echo budget", () => {
    const huge = "k".repeat(10_000);
    const [e] = refused(gh({ [huge]: 1, type: huge }));
    const clamp = c.limitDefault(Budget.echo_clamp_chars);
    expect(e.path.length).toBeLessThan(clamp + 40);
    expect(refused(gh({ type: huge }))[0].message.length).toBeLessThan(clamp + 100);
  });
});

describe("findConfig: lookup order", () => {
  const withLocal = () => {
    const dir = tmp();
    writeFileSync(join(dir, "atrium.json"), "{}");
    return dir;
  };

  it("prefers --config FILE over ATRIUM_CONFIG and ./atrium.json, resolved against cwd", () => {
    const cwd = withLocal();
    expect(findConfig({ argv: ["serve", "--config", "my.json"], env: { ATRIUM_CONFIG: "/env.json" }, cwd })).toEqual({ source: "flag", path: join(cwd, "my.json") });
  });

  it("accepts the --config=FILE spelling", () => {
    expect(findConfig({ argv: ["--config=/abs/a.json"], env: {}, cwd: "/" })).toEqual({ source: "flag", path: "/abs/a.json" });
  });

  it("uses ATRIUM_CONFIG when there is no --config, before ./atrium.json", () => {
    const cwd = withLocal();
    expect(findConfig({ argv: ["serve"], env: { ATRIUM_CONFIG: "conf/atrium.json" }, cwd })).toEqual({ source: "env", path: join(cwd, "conf/atrium.json") });
  });

  it("uses ./atrium.json in cwd when neither flag nor env names a file", () => {
    const cwd = withLocal();
    expect(findConfig({ argv: [], env: { ATRIUM_CONFIG: "" }, cwd })).toEqual({ source: "cwd", path: join(cwd, "atrium.json") });
  });

  it("falls back to the demo when nothing names or holds a config", () => {
    expect(findConfig({ argv: ["serve"], env: {}, cwd: tmp() })).toEqual({ source: "demo" });
  });

  it("reports --config without a file, or given twice, instead of guessing", () => {
    expect(findConfig({ argv: ["--config"], env: {}, cwd: "/" })).toEqual({ source: "invalid", message: "--config needs a file: --config FILE" });
    expect(findConfig({ argv: ["--config", "--help"], env: {}, cwd: "/" })).toMatchObject({ source: "invalid" });
    expect(findConfig({ argv: ["--config="], env: {}, cwd: "/" })).toEqual({ source: "invalid", message: "--config needs a file: --config=FILE" });
    expect(findConfig({ argv: ["--config", "a.json", "--config=b.json"], env: {}, cwd: "/" })).toEqual({ source: "invalid", message: "--config is given more than once" });
  });
});

describe("loadConfig", () => {
  it("reads, parses and validates a file", () => {
    const dir = tmp();
    const file = join(dir, "atrium.json");
    writeFileSync(file, JSON.stringify(gh({ args: ["-y", "x"] })));
    expect(loadConfig(file, c)).toMatchObject({ ok: true, path: file, config: { connectors: [{ id: "github", args: ["-y", "x"] }] } });
  });

  it("reports a missing file named by --config or ATRIUM_CONFIG instead of falling back to the demo", () => {
    const cwd = tmp();
    const flag = findConfig({ argv: ["--config", "nope.json"], env: {}, cwd });
    expect(flag).toEqual({ source: "flag", path: join(cwd, "nope.json") });
    if (flag.source !== "flag") return;
    expect(loadConfig(flag.path, c, flag.source)).toEqual({ ok: false, path: flag.path, warnings: [], errors: [{ path: "", message: `cannot read ${flag.path} (named by --config): file not found` }] });
    const env = findConfig({ argv: [], env: { ATRIUM_CONFIG: "gone.json" }, cwd });
    if (env.source !== "env") return expect.fail("expected the env source");
    expect(loadConfig(env.path, c, env.source)).toMatchObject({ ok: false, errors: [{ path: "", message: expect.stringMatching(/\(named by ATRIUM_CONFIG\): file not found$/) }] });
  });

  it("reports a directory where a file was expected", () => {
    const dir = tmp();
    mkdirSync(join(dir, "atrium.json"));
    expect(loadConfig(join(dir, "atrium.json"), c)).toMatchObject({ ok: false, errors: [{ path: "", message: expect.stringMatching(/it is a directory, not a file$/) }] });
  });

  it("reports a JSON syntax error as one error naming the file, line and column", () => {
    const file = join(tmp(), "atrium.json");
    writeFileSync(file, '{\n  "mcpServers": {\n    "github": { "command": "npx", }\n  }\n}\n');
    expect(loadConfig(file, c)).toEqual({ ok: false, path: file, warnings: [], errors: [{ path: "", message: `invalid JSON at line 3, column 35 of ${file}: trailing comma before "}"` }] });
  });

  it("accepts a Claude Desktop config with extra top-level keys, warning about each", () => {
    const file = join(tmp(), "claude_desktop_config.json");
    writeFileSync(file, JSON.stringify({
      globalShortcut: "Ctrl+Space",
      preferences: { quickEntryShortcut: "off" },
      mcpServers: {
        filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"] },
        github: { command: "docker", args: ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_x" } },
      },
    }, null, 2));
    const r = loadConfig(file, c);
    expect(r.ok).toBe(true);
    expect(r.warnings.map((w) => w.path)).toEqual(["globalShortcut", "preferences"]);
    if (r.ok) expect(r.config.connectors.map((x) => x.id)).toEqual(["filesystem", "github"]);
  });

  it("accepts a file that starts with a byte order mark", () => {
    const file = join(tmp(), "atrium.json");
    writeFileSync(file, "\uFEFF" + JSON.stringify(gh({})));
    expect(loadConfig(file, c).ok).toBe(true);
  });
});

describe("parseJson: syntax errors are located", () => {
  const cases: [string, number, number, string][] = [
    ['{"a": }', 1, 7, 'expected a value, got "}"'],
    ['{"a": 1,}', 1, 9, 'trailing comma before "}"'],
    ["[1, 2,]", 1, 7, 'trailing comma before "]"'],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, 'expected "," or "}", got "\\""'],
    ["// note\n{}", 1, 1, 'expected a value, got "/" (comments are not allowed in JSON)'],
    ['{"a": tru}', 1, 7, 'expected a value, got "t"'],
    ['{"a": 01}', 1, 8, 'unexpected "1" in a literal'],
    ['{\n  "a": "unterminated\n}', 2, 21, "a control character in a string must be written as an escape such as \\n"],
    ['{"a": "x', 1, 7, "unterminated string"],
    ['{"a": "\\q"}', 1, 9, "invalid escape in a string"],
    ['{"a" 1}', 1, 6, 'expected ":" after a property name, got "1"'],
    ["{a: 1}", 1, 2, 'expected a property name in double quotes, got "a"'],
    ["", 1, 1, "expected a value, got end of file"],
    ['{"a": [1, 2', 1, 12, 'expected "," or "]", got end of file'],
    ["{} {}", 1, 4, 'unexpected "{" after the JSON value'],
  ];
  for (const [text, line, column, reason] of cases) {
    it(`locates ${JSON.stringify(text)} at ${line}:${column}`, () => {
      expect(parseJson(text)).toEqual({ ok: false, line, column, reason });
    });
  }

  it("locates an error after deep nesting without overflowing", () => {
    expect(parseJson("[".repeat(200_000) + "x")).toMatchObject({ ok: false, line: 1, column: 200_001 });
  });

  it("parses valid JSON, long numbers included", () => {
    expect(parseJson(`{"n": ${"9".repeat(500)}}`).ok).toBe(true);
  });
});

describe("formatConfigErrors", () => {
  it("prints one line per error, file then path then message", () => {
    const r = validateConfig(gh({ args: ["-y", "x", 2], comand: "npx" }), c);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatConfigErrors("atrium.json", r.errors)).toBe(
      'atrium.json: mcpServers.github.comand: unknown key; did you mean "command"?\natrium.json: mcpServers.github.args[2]: expected a string, got number',
    );
  });

  it("omits the path of an error about the whole file", () => {
    expect(formatConfigErrors("a.json", [{ path: "", message: 'missing "mcpServers"' }])).toBe('a.json: missing "mcpServers"');
  });
});
