// Everything a connector needs of the MCP client SDK, behind one dynamic import (connector.ts
// loads it with a connector's first start, which serve holds until initialize is answered): the
// SDK, its transports, cross-spawn and the OAuth client are never parsed before that answer.
// Opening a connection, the requests of a ready one, and the words for a failed start.
export { openConnection } from "./connection.js";
export { callTool, readResource, askPrompts } from "./requests.js";
export { explainStartFailure, sdk1Message } from "./start-failure.js";
