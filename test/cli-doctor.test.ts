// `atrium doctor` as an operator uses it: the report is the command's output (stdout, so
// `atrium doctor > report.txt` keeps it), operator lists naming tools a server does not have are
// problems, an empty config is not "healthy", and unannotated tools come with a readOnlyTools
// line to review. Real processes of the built CLI against real stdio servers.
import { describe, it, expect, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, demoServer, fixture, nodeServer, npmBin } from "./harness/atrium-client.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-cli-doctor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const doctor = (config: unknown) => {
  const p = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, JSON.stringify(config));
  return spawnSync(process.execPath, [atriumBin, "doctor", "--config", p], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "" }, encoding: "utf8", timeout: 30_000 });
};
const unannotated = fixture("cli-unannotated-server");

describe("atrium doctor", () => {
  it("writes its report to stdout, so `atrium doctor > report.txt` captures it", () => {
    const r = spawnSync("sh", ["-c", `"${process.execPath}" "${atriumBin}" doctor > report.txt`], { cwd: dir, env: { ...process.env, ATRIUM_CONFIG: "" }, encoding: "utf8", timeout: 30_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const report = readFileSync(join(dir, "report.txt"), "utf8");
    expect(report).toMatch(/^ok   desk /m);
    expect(report).toContain("all connectors healthy");
  });

  it("suggests the data-flow guard's settings for a files server and a fetching one, as a suggestion that keeps the report healthy; none once they are set", () => {
    const r = doctor({ mcpServers: { files: { command: npmBin("mcp-server-filesystem"), args: [dir] }, web: { command: process.execPath, args: [fixture("web-server")] } } });
    expect(r.stdout).toContain(`data-flow guard: this looks like a server that holds private data; if so, set in mcpServers.files: "data": "private"`);
    expect(r.stdout).toContain(`data-flow guard: this looks like a server that can send data out; if so, set in mcpServers.web: "egress": true`);
    expect(r.status).toBe(0);
    const set = doctor({ mcpServers: { files: { command: npmBin("mcp-server-filesystem"), args: [dir], data: "private" }, web: { command: process.execPath, args: [fixture("web-server")], egress: true } } });
    expect(set.stdout).not.toContain("data-flow guard");
    expect(set.status).toBe(0);
  });

  it("flags a readOnlyTools or approvalTools name the connector does not list, with the nearest real names, and exits 1", () => {
    const r = doctor({ mcpServers: { desk: nodeServer(demoServer, { readOnlyTools: ["nosuchtool"], approvalTools: ["list_incident"] }) } });
    expect(r.stdout).toMatch(/^warn desk /m);
    expect(r.stdout).toContain(`! readOnlyTools lists "nosuchtool", but desk has no tool by that name, so the entry has no effect`);
    expect(r.stdout).not.toMatch(/"nosuchtool".*did you mean/);
    expect(r.stdout).toContain(`! approvalTools lists "list_incident", but desk has no tool by that name, so the entry has no effect; did you mean "list_incidents"?`);
    expect(r.stdout).toContain("1 connector(s) with a readOnlyTools/approvalTools entry that has no effect");
    expect(r.stdout).not.toContain("all connectors healthy");
    expect(r.status).toBe(1);
  });

  it("shows a connector that failed to start with its problem under the FAIL line, and exits 1", () => {
    const r = doctor({ mcpServers: { desk: nodeServer(demoServer), gone: { command: join(dir, "no-such-server") } } });
    const out = r.stdout.split("\n");
    const at = out.findIndex((l) => l.startsWith("FAIL gone "));
    expect(at, r.stdout).toBeGreaterThan(0);
    expect(out[at + 1]).toMatch(/^ {5}\S/); // the connector's own problem text, whatever its wording
    expect(r.stdout).toMatch(/^ok   desk /m);
    expect(r.stdout).toContain("1 connector(s) failed");
    expect(r.status).toBe(1);
  });

  it("with an empty mcpServers says no connectors are configured, how to add one, and exits 1", () => {
    const r = doctor({ mcpServers: {} });
    expect(r.stdout).not.toContain("healthy");
    expect(r.stdout).toContain("no connectors configured");
    expect(r.stdout).toMatch(/add one under "mcpServers" in .*config-.*\.json/);
    expect(r.stdout).toContain(`"mcpServers": { "files": { "command": "npx"`);
    expect(r.status).toBe(1);
  });

  it("with every connector disabled says atrium would serve no tools, and exits 1", () => {
    const r = doctor({ mcpServers: { desk: nodeServer(demoServer, { disabled: true }) } });
    expect(r.stdout).toMatch(/^off  desk /m);
    expect(r.stdout).toContain("every connector is disabled: atrium would serve no tools");
    expect(r.status).toBe(1);
  });

  it("says how many tools lack a readOnlyHint and suggests, labelled as a suggestion, the readOnlyTools line for those named like reads", () => {
    const r = doctor({ mcpServers: { notes: nodeServer(unannotated) } });
    expect(r.stdout).toMatch(/^ok   notes /m);
    expect(r.stdout).toContain("7 tools: 0 read-only, 7 approval-required");
    expect(r.stdout).toContain("7 tools have no readOnlyHint annotation and need approval");
    expect(r.stdout).toContain("suggestion to review (not applied)");
    // Named like reads, except get_and_purge_note, which the server marks destructive.
    expect(r.stdout).toContain(`"readOnlyTools": ["get_note", "list_notes", "searchNotes", "stat-notes"]`);
    expect(r.stdout).toContain("all connectors healthy");
    expect(r.status).toBe(0);
  });

  it("builds the suggested readOnlyTools line on the operator's existing list, which stays applied and first", () => {
    const r = doctor({ mcpServers: { notes: nodeServer(unannotated, { readOnlyTools: ["send_digest", "list_notes"] }) } });
    expect(r.stdout).toContain("7 tools: 2 read-only, 5 approval-required");
    expect(r.stdout).toContain("5 tools have no readOnlyHint annotation and need approval");
    expect(r.stdout).toContain(`"readOnlyTools": ["send_digest", "list_notes", "get_note", "searchNotes", "stat-notes"]`);
    expect(r.status).toBe(0);
  });
});
