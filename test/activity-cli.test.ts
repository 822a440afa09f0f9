// `atrium log` as a child process over a log written by the real writer: readable lines, the
// --connector filter, --lines, garbled, foreign and overlong lines skipped, control characters
// never reaching the terminal, and --follow printing lines added after it started, across a rotation.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, rmSync, appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { execFileSync, spawn } from "node:child_process";
import { openActivityLog } from "../glue/activity/log.js";
import { ACTIVITY_LINE_BYTES_MAX } from "../glue/decisions/generated/spec.js";
import { atriumBin } from "./harness/atrium-client.js";
import { waitFor } from "./harness/until.js";

let state: string;
const env = () => ({ ...process.env, ATRIUM_STATE_DIR: state });
const atriumLog = (...args: string[]) => execFileSync(process.execPath, [atriumBin, "log", ...args], { env: env(), encoding: "utf8" });

beforeAll(async () => {
  state = mkdtempSync(join(tmpdir(), "atrium-log-cli-"));
  const log = openActivityLog(state);
  log.connector("start", "desk", "ready", 1);
  log.metaTool("call_tool", "ok", 7);
  log.call({ connector: "desk", tool: "list_tickets", path: "direct", outcome: "ok", durationMs: 5, resultBytes: 120 });
  log.call({ connector: "mail", tool: "send", path: "program", outcome: "approval_declined", durationMs: 0, resultBytes: 0 });
  log.approval("declined", "mail", "send", "declined");
  await log.flush();
  const file = join(state, "activity", "activity.log");
  // Lines atrium did not write: garbage, a JSON array, an object without an event, an overlong line, a terminal escape.
  appendFileSync(file, "not json at all\n[1,2]\n{\"ts\":\"x\"}\n");
  appendFileSync(file, `${JSON.stringify({ ts: "2026-01-01T00:00:00.000Z", event: "call", connector: "desk", tool: "x".repeat(ACTIVITY_LINE_BYTES_MAX) })}\n`);
  appendFileSync(file, `${JSON.stringify({ ts: "2026-01-01T00:00:00.000Z", event: "call", connector: "desk", tool: "evil\u001b]0;pwned\u0007" })}\n`);
  const later = openActivityLog(state);
  later.call({ connector: "desk", tool: "get_ticket", path: "view", outcome: "ok", durationMs: 3, resultBytes: 40 });
  await later.flush();
});
afterAll(() => { rmSync(state, { recursive: true, force: true }); });

describe("atrium log", () => {
  it("prints one readable line per event, skipping lines atrium did not write", () => {
    const out = atriumLog().trimEnd().split("\n");
    expect(out).toHaveLength(7);
    expect(out[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z {2}connector_start {2}desk {2}state ready {2}attempt 1$/);
    expect(out[1]).toMatch(/ meta_tool {2}call_tool {2}ok {2}7 ms$/);
    expect(out[2]).toMatch(/ call {2}desk\.list_tickets {2}via direct {2}ok {2}5 ms {2}120 B$/);
    expect(out[4]).toMatch(/ approval_declined {2}mail\.send {2}declined$/);
    expect(out[5]).toBe("2026-01-01T00:00:00.000Z  call  desk.evil?]0;pwned?");
    expect(out[6]).toMatch(/ call {2}desk\.get_ticket {2}via view {2}ok {2}3 ms {2}40 B$/);
    expect(out.join("\n")).not.toContain("\u001b");
    expect(out.join("\n")).not.toContain("xxxx");
  });

  it("--connector keeps one connector's events; --lines keeps the last N", () => {
    const mail = atriumLog("--connector", "mail").trimEnd().split("\n");
    expect(mail).toHaveLength(2);
    expect(mail.every((l) => l.includes("mail.send"))).toBe(true);
    const last = atriumLog("--lines", "2").trimEnd().split("\n");
    expect(last).toHaveLength(2);
    expect(last[1]).toContain("desk.get_ticket");
    expect(atriumLog("--connector", "desk", "--lines", "1").trim()).toContain("desk.get_ticket");
  });

  it("refuses a --lines that is not a whole number in range", () => {
    expect(() => execFileSync(process.execPath, [atriumBin, "log", "--lines", "0"], { env: env(), encoding: "utf8", stdio: "pipe" })).toThrow(/--lines must be a whole number from 1/);
  });

  it("--follow prints an event added after it started", async () => {
    const first = openActivityLog(state);
    first.connector("start", "late", "ready", 1);
    await first.flush();
    const child = spawn(process.execPath, [atriumBin, "log", "--follow", "--connector", "late"], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
    const seen = (what: string) => waitFor(() => out.includes(what), `${what} printed by --follow`);
    try {
      // Its first print comes after it took the file's end: what is written next is new.
      await seen("connector_start");
      const log = openActivityLog(state);
      log.connector("crash", "late", "restarting", 1);
      log.call({ connector: "other", tool: "t", path: "direct", outcome: "ok", durationMs: 1, resultBytes: 1 });
      await log.flush();
      await seen("connector_crash");
      // A rotation under it: the next event lands in a new activity.log, read from its start.
      const small = openActivityLog(state, { fileBytes: ACTIVITY_LINE_BYTES_MAX });
      small.connector("restart", "late", "ready", 1);
      await small.flush();
      expect(existsSync(join(state, "activity", "activity.1.log"))).toBe(true);
      await seen("connector_restart");
      const lines = out.trimEnd().split("\n");
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/ connector_start {2}late {2}state ready {2}attempt 1$/);
      expect(lines[1]).toMatch(/ connector_crash {2}late {2}state restarting {2}attempt 1$/);
      expect(lines[2]).toMatch(/ connector_restart {2}late {2}state ready {2}attempt 1$/);
    } finally {
      child.kill();
    }
  }, 30_000);
});
