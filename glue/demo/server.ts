// atrium's embedded demo connector: a small service desk served over stdio MCP, so a newcomer
// (and the test suites) have a real downstream server with read-only and destructive tools.
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import {
  DEMO_NOW,
  INCIDENT_STATUSES,
  SERVICE_STATUSES,
  SEVERITIES,
  addMinutes,
  incidents as seedIncidents,
  metrics,
  services,
  type Incident,
} from "./dataset.js";
import { DEMO_DESK_PAGE_DEFAULT, DEMO_DESK_PAGE_MAX, DEMO_DESK_RESOLUTION_CHARS_MAX } from "../decisions/generated/spec.js";

export const DEMO_SERVER_NAME = "atrium-demo-desk";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const serviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  team: z.string(),
  tier: z.number(),
  status: z.enum(SERVICE_STATUSES),
});
const summaryShape = {
  id: z.string(),
  title: z.string(),
  service: z.string(),
  severity: z.enum(SEVERITIES),
  status: z.enum(INCIDENT_STATUSES),
  assignee: z.string().nullable(),
  opened: z.string(),
  updated: z.string(),
};
const incidentShape = {
  ...summaryShape,
  description: z.string(),
  resolution: z.string().nullable(),
  timeline: z.array(
    z.object({
      at: z.string(),
      kind: z.enum(["opened", "acknowledged", "update", "resolved", "closed"]),
      author: z.string(),
      note: z.string(),
    }),
  ),
};
const metricsShape = {
  service: z.string(),
  asOf: z.string(),
  latencyP50Ms: z.number(),
  latencyP95Ms: z.number(),
  errorRate: z.number(),
  requestsPerMinute: z.number(),
  availability: z.number(),
  latencySeries: z.array(z.object({ at: z.string(), p50Ms: z.number(), p95Ms: z.number() })),
};

type Result = { content: { type: "text"; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

function ok(obj: object): Result {
  return { structuredContent: obj as Record<string, unknown>, content: [{ type: "text", text: JSON.stringify(obj) }] };
}

function fail(message: string): Result {
  return { isError: true, content: [{ type: "text", text: message }] };
}

function summary(i: Incident) {
  const { id, title, service, severity, status, assignee, opened, updated } = i;
  return { id, title, service, severity, status, assignee, opened, updated };
}

// Cursors carry the offset and the query they belong to, so a cursor replayed against other
// filters is refused instead of silently skipping rows.
function encodeCursor(offset: number, query: string): string {
  return Buffer.from(JSON.stringify({ o: offset, q: query })).toString("base64url");
}

function decodeCursor(cursor: string, query: string): number | string {
  try {
    const { o, q } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Number.isInteger(o) || o < 0) return "Invalid cursor.";
    if (q !== query) return "This cursor belongs to a different filter; start again without a cursor.";
    return o;
  } catch {
    return "Invalid cursor.";
  }
}

export function createDemoServer(): McpServer {
  // Each server instance owns its copy, so a close in one process never leaks into another.
  const incidents: Incident[] = structuredClone(seedIncidents);
  // A fixed clock that ticks one minute per write keeps results deterministic.
  let clock = DEMO_NOW;
  const serviceIds = services.map((s) => s.id);
  const unknownService = (id: string) => fail(`Unknown service "${id}". Known services: ${serviceIds.join(", ")}.`);
  const unknownIncident = (id: string) => fail(`No incident with id "${id}". Use list_incidents to find ids.`);

  const server = new McpServer(
    { name: DEMO_SERVER_NAME, version: "1.0.0" },
    { instructions: "A demo service desk: services, their live metrics, and incidents you can list, read and close." },
  );

  server.registerTool(
    "list_services",
    {
      title: "List services",
      description: "List every service with its owning team, tier and current status.",
      inputSchema: {},
      outputSchema: { services: z.array(serviceSchema) },
      annotations: READ_ONLY,
    },
    async () => ok({ services }),
  );

  server.registerTool(
    "list_incidents",
    {
      title: "List incidents",
      description: `List incidents newest first, optionally filtered by status (${INCIDENT_STATUSES.join(", ")}), service or severity, one page at a time.`,
      inputSchema: {
        status: z.enum(INCIDENT_STATUSES).optional().describe("Only incidents in this status."),
        service: z.string().optional().describe("Only incidents for this service id (see list_services)."),
        severity: z.enum(SEVERITIES).optional().describe("Only incidents of this severity; sev1 is the most severe."),
        cursor: z.string().optional().describe("Opaque nextCursor from the previous page; omit for the first page."),
        limit: z.number().int().min(1).max(DEMO_DESK_PAGE_MAX).optional().describe(`Page size, 1-${DEMO_DESK_PAGE_MAX}; default ${DEMO_DESK_PAGE_DEFAULT}.`),
      },
      outputSchema: { incidents: z.array(z.object(summaryShape)), total: z.number(), nextCursor: z.string().optional() },
      annotations: READ_ONLY,
    },
    async ({ status, service, severity, cursor, limit = DEMO_DESK_PAGE_DEFAULT }) => {
      if (service !== undefined && !serviceIds.includes(service)) return unknownService(service);
      const query = JSON.stringify([status ?? null, service ?? null, severity ?? null]);
      let offset = 0;
      if (cursor !== undefined) {
        const decoded = decodeCursor(cursor, query);
        if (typeof decoded === "string") return fail(decoded);
        offset = decoded;
      }
      const matching = incidents
        .filter((i) => (!status || i.status === status) && (!service || i.service === service) && (!severity || i.severity === severity))
        .sort((a, b) => (a.opened === b.opened ? b.id.localeCompare(a.id) : b.opened.localeCompare(a.opened)));
      const page = matching.slice(offset, offset + limit).map(summary);
      const next = offset + limit;
      return ok({ incidents: page, total: matching.length, ...(next < matching.length ? { nextCursor: encodeCursor(next, query) } : {}) });
    },
  );

  server.registerTool(
    "get_incident",
    {
      title: "Get incident",
      description: "Get one incident in full, with its description, resolution and timeline.",
      inputSchema: { id: z.string().describe('Incident id, for example "INC-1042".') },
      outputSchema: incidentShape,
      annotations: READ_ONLY,
    },
    async ({ id }) => {
      const incident = incidents.find((i) => i.id === id);
      return incident ? ok(incident) : unknownIncident(id);
    },
  );

  server.registerTool(
    "get_service_metrics",
    {
      title: "Get service metrics",
      description: "Get a service's current latency, error rate, traffic, availability and recent latency series.",
      inputSchema: { service: z.string().describe('Service id from list_services, for example "checkout-api".') },
      outputSchema: metricsShape,
      annotations: READ_ONLY,
    },
    async ({ service }) => {
      const m = metrics[service];
      return m ? ok(m) : unknownService(service);
    },
  );

  server.registerTool(
    "close_incident",
    {
      title: "Close incident",
      description: "Close an incident with a resolution note; this changes its status for everyone.",
      inputSchema: {
        id: z.string().describe('Incident id to close, for example "INC-1042".'),
        resolution: z.string().min(1).max(DEMO_DESK_RESOLUTION_CHARS_MAX).describe(`What fixed it or why it is being closed (1-${DEMO_DESK_RESOLUTION_CHARS_MAX} characters).`),
      },
      outputSchema: incidentShape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ id, resolution }) => {
      const incident = incidents.find((i) => i.id === id);
      if (!incident) return unknownIncident(id);
      if (incident.status === "closed") return fail(`${id} is already closed.`);
      clock = addMinutes(clock, 1);
      incident.status = "closed";
      incident.resolution = resolution;
      incident.updated = clock;
      incident.timeline.push({ at: clock, kind: "closed", author: "atrium-demo", note: resolution });
      return ok(incident);
    },
  );

  return server;
}

async function main(): Promise<void> {
  await createDemoServer().connect(new StdioServerTransport());
}

// Serve only when run as a script, so importing createDemoServer has no side effects.
function isEntryPoint(): boolean {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false; // argv[1] is not a file (e.g. `node -e`): we were imported.
  }
}

if (isEntryPoint()) {
  main().catch((err) => {
    process.stderr.write(`${DEMO_SERVER_NAME}: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
