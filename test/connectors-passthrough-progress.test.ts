// A direct call's downstream progress reaches the host (issue 18 item 10): the real
// server-everything's long-running operation reports its steps through call_tool, before the answer.
import { describe, it, expect, afterEach } from "vitest";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { atriumBin, npmBin } from "./harness/atrium-client.js";
import { RawStdioPeer } from "./fixtures/raw-stdio.js";
import { progressRelay, type DownstreamProgress } from "../glue/calls/downstream-progress.js";
import { PROGRESS_MESSAGE_CHARS_MAX, PROGRESS_RELAYED_MAX } from "../glue/decisions/generated/spec.js";

describe("call_tool passes downstream progress on", () => {
  let dir: string;
  let peer: RawStdioPeer | undefined;
  afterEach(async () => {
    if (peer) { peer.child.stdin.end(); await peer.exited; }
    rmSync(dir, { recursive: true, force: true });
  });

  it("server-everything's long-running operation reports each step to the host, every one before the answer", async () => {
    dir = mkdtempSync(join(tmpdir(), "atrium-progress-"));
    writeFileSync(join(dir, "atrium.json"), JSON.stringify({ mcpServers: { everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] } } }));
    // A raw peer reads the wire itself: the SDK client can drop a progress that shares a stdout read with the result.
    peer = new RawStdioPeer(atriumBin, { ATRIUM_CONFIG: join(dir, "atrium.json"), ATRIUM_STATE_DIR: join(dir, "state") });
    await peer.initialize();
    const res = await peer.request("tools/call", { name: "call_tool", arguments: { address: "everything.trigger-long-running-operation", args: { duration: 0.3, steps: 3 } }, _meta: { progressToken: "op" } }, 60_000);
    expect((res.result as any)?.isError).toBeFalsy();
    const wire = peer.lines.map((l) => JSON.parse(l));
    const progress = wire.filter((m) => m.method === "notifications/progress" && m.params.progressToken === "op").map((m) => ({ progress: m.params.progress, total: m.params.total }));
    expect(progress).toEqual([{ progress: 1, total: 3 }, { progress: 2, total: 3 }, { progress: 3, total: 3 }]);
    expect(wire.findLastIndex((m) => m.method === "notifications/progress")).toBeLessThan(wire.findIndex((m) => m.id === res.id && m.result));
  }, 90_000);

  it("a call without a progress token sends no progress", async () => {
    dir = mkdtempSync(join(tmpdir(), "atrium-progress-"));
    writeFileSync(join(dir, "atrium.json"), JSON.stringify({ mcpServers: { everything: { command: npmBin("mcp-server-everything"), args: ["stdio"] } } }));
    peer = new RawStdioPeer(atriumBin, { ATRIUM_CONFIG: join(dir, "atrium.json"), ATRIUM_STATE_DIR: join(dir, "state") });
    await peer.initialize();
    const res = await peer.request("tools/call", { name: "call_tool", arguments: { address: "everything.trigger-long-running-operation", args: { duration: 0.2, steps: 2 } } }, 60_000);
    expect((res.result as any)?.isError).toBeFalsy();
    expect(peer.lines.map((l) => JSON.parse(l)).filter((m) => m.method === "notifications/progress")).toEqual([]);
  }, 90_000);
});

describe("a downstream's progress is checked before it is passed on", () => {
  it("drops a progress that is not a finite number or does not increase, leaves out a bad total, cuts a long message", () => {
    const sent: DownstreamProgress[] = [];
    const relay = progressRelay((p) => sent.push(p));
    relay({ progress: "1" });
    relay({ progress: Number.NaN });
    relay({ progress: 1, total: Number.POSITIVE_INFINITY, message: 7 });
    relay({ progress: 1, total: 4 });
    relay({ progress: 0.5 });
    relay({ progress: 2, total: 4, message: "x".repeat(PROGRESS_MESSAGE_CHARS_MAX * 2) });
    expect(sent.map((p) => p.progress)).toEqual([1, 2]);
    expect(sent[0]).toEqual({ progress: 1 });
    expect(sent[1].total).toBe(4);
    expect(sent[1].message!.length).toBe(PROGRESS_MESSAGE_CHARS_MAX);
  });

  it("passes on no more than PROGRESS_RELAYED_MAX notifications for one call", () => {
    let sent = 0;
    const relay = progressRelay(() => sent++);
    for (let i = 1; i <= PROGRESS_RELAYED_MAX + 5; i++) relay({ progress: i });
    expect(sent).toBe(PROGRESS_RELAYED_MAX);
  });
});
