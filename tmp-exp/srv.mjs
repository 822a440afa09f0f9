import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
serveStdio((ctx) => {
  const s = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
  s.setRequestHandler("tools/list", async (req, c) => { process.stderr.write(`era=${ctx.era} env=${JSON.stringify(c.mcpReq.envelope)} caps=${JSON.stringify(s.getClientCapabilities())}\n`); return { tools: [{ name: "t", inputSchema: { type: "object" } }] }; });
  s.setRequestHandler("tools/call", async (req, c) => ({ content: [{ type: "text", text: "hi " + JSON.stringify(c.mcpReq.envelope?.clientCapabilities ?? null) }] }));
  return s;
});
