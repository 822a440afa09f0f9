import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
for (const mode of ["legacy", { pin: "2026-07-28" }, "auto"]) {
  const c = new Client({ name: "c", version: "1" }, { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } }, versionNegotiation: { mode } });
  await c.connect(new StdioClientTransport({ command: "node", args: ["srv.mjs"], stderr: "inherit" }));
  console.log(JSON.stringify(mode), c.getProtocolEra?.(), c.getNegotiatedProtocolVersion?.());
  console.log((await c.listTools()).tools.map(t => t.name));
  console.log(JSON.stringify((await c.callTool({ name: "t", arguments: {} })).content));
  await c.close();
}
