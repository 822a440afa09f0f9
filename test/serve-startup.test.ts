// `atrium serve` answers initialize before it starts what initialize does not need (the
// connectors, the sandbox workers): a host that writes its first requests in the same breath as
// initialize gets them answered as if everything had been up, each waiting for what it needs.
import { describe, it, expect } from "vitest";
import { RawStdioPeer } from "./fixtures/raw-stdio.js";
import { atriumBin } from "./harness/atrium-client.js";

describe("requests written with initialize, before the connectors and sandbox workers start", () => {
  it("a direct call and a program that calls the connector wait for its start and a worker, then succeed", async () => {
    const peer = new RawStdioPeer(atriumBin);
    try {
      // One write, as the process starts: nothing of the connector or the sandbox is up yet.
      const lines = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "eager-host", version: "0" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "call_tool", arguments: { address: "desk.get_incident", args: { id: "INC-1042" }, resultMode: "value" } } },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "execute_code", arguments: { code: "async () => (await desk.list_services({})).services.length > 0" } } },
      ];
      peer.writeRaw(lines.map((l) => JSON.stringify(l) + "\n").join(""));
      const [init, call, program] = await Promise.all([peer.answerTo(1), peer.answerTo(2), peer.answerTo(3)]);
      expect(init.result?.serverInfo).toMatchObject({ name: "atrium" });
      expect(call.result?.isError, JSON.stringify(call.result)).toBeFalsy();
      expect(call.result?.structuredContent).toMatchObject({ ok: true, data: { id: "INC-1042" } });
      expect(program.result?.structuredContent, JSON.stringify(program.result)).toMatchObject({ ok: true, value: true });
    } finally {
      await peer.close();
    }
  });
});
