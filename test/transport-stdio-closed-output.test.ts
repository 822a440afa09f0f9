// A host that closes atrium's stdout while a big result is being written (it crashed, or gave
// up on the server): atrium exits cleanly, code 0 and no stack trace, and ends its connector
// children first. The ~4 MB result is a program's emitted blocks (the emit_bytes budget).
import { describe, it, expect } from "vitest";
import { RawStdioPeer, waitForChildren, allEnded } from "./fixtures/raw-stdio.js";
import { atriumBin } from "./harness/atrium-client.js";
import { core } from "../glue/decisions/core.js";
import { Budget } from "../glue/decisions/generated/spec.js";

describe("the host closes atrium's stdout mid-result", () => {
  it("atrium exits with code 0, no stack trace, and no connector child left running", async () => {
    const peer = new RawStdioPeer(atriumBin);
    try {
      await peer.initialize();
      const kids = await waitForChildren(peer.child.pid!);
      expect(kids.length).toBeGreaterThan(0);

      // Four text blocks that together fill most of emit_bytes (~4 MB with the default).
      const blocks = 4;
      const blockChars = Math.floor(core().limitDefault(Budget.emit_bytes) / blocks) - 1_000;
      const code = `async () => { const t = "x".repeat(${blockChars}); for (let i = 0; i < ${blocks}; i++) atrium.emit({ type: "text", text: t }); return "done"; }`;
      const firstBytes = new Promise<void>((resolve) => peer.child.stdout.once("data", () => resolve()));
      peer.send({ jsonrpc: "2.0", id: "big", method: "tools/call", params: { name: "execute_code", arguments: { code } } });
      await firstBytes;
      peer.child.stdout.destroy(); // the host stops reading: atrium's next write fails with EPIPE

      const exit = await peer.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(peer.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
      expect(await allEnded(kids)).toBe(true);
    } finally {
      await peer.close();
    }
  });
});
