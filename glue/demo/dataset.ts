// The demo connector's service desk: fixed data (dataset.json, content rather than code), so
// every process (and every test run) sees the same bytes. Times are fixed ISO strings; Date is
// only used to add minutes to them. The data is checked as it loads: a typo in a severity or a
// service id fails at once, not in a test's expectations.
import data from "./dataset.json" with { type: "json" };
import { MS_PER_MINUTE } from "../support/format.js";

export const DEMO_NOW = data.now;

export const SEVERITIES = ["sev1", "sev2", "sev3", "sev4"] as const;
export const INCIDENT_STATUSES = ["open", "investigating", "resolved", "closed"] as const;
export const SERVICE_STATUSES = ["operational", "degraded", "outage"] as const;

type Severity = (typeof SEVERITIES)[number];
type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
type ServiceStatus = (typeof SERVICE_STATUSES)[number];

export interface Service {
  id: string;
  name: string;
  team: string;
  tier: number;
  status: ServiceStatus;
}

interface TimelineEntry {
  at: string;
  kind: "opened" | "acknowledged" | "update" | "resolved" | "closed";
  author: string;
  note: string;
}

export interface Incident {
  id: string;
  title: string;
  service: string;
  severity: Severity;
  status: IncidentStatus;
  assignee: string | null;
  opened: string;
  updated: string;
  description: string;
  resolution: string | null;
  timeline: TimelineEntry[];
}

interface LatencyPoint {
  at: string;
  p50Ms: number;
  p95Ms: number;
}

export interface ServiceMetrics {
  service: string;
  asOf: string;
  latencyP50Ms: number;
  latencyP95Ms: number;
  errorRate: number;
  requestsPerMinute: number;
  availability: number;
  latencySeries: LatencyPoint[];
}

const TIMELINE = data.timeline;

function oneOf<T extends string>(values: readonly T[], v: unknown, what: string): T {
  if (!values.includes(v as T)) throw new Error(`dataset.json: ${what} ${JSON.stringify(v)} is not one of ${values.join(", ")}`);
  return v as T;
}
const text = (v: unknown, what: string): string => {
  if (typeof v !== "string") throw new Error(`dataset.json: ${what} is not a string`);
  return v;
};
const count = (v: unknown, what: string): number => {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`dataset.json: ${what} is not a number`);
  return v;
};

export const services: Service[] = data.services.map((s) => ({ ...s, status: oneOf(SERVICE_STATUSES, s.status, `service ${s.id} status`) }));

export function addMinutes(iso: string, minutes: number): string {
  return new Date(Date.parse(iso) + minutes * MS_PER_MINUTE).toISOString();
}

// dataset.json "incidents": [number, service, severity, status, assignee, opened, minutes, title, description, finding?, fix?]
// `minutes` is time to resolution (resolved/closed) or to the latest update (investigating).
type Row = [number, string, Severity, IncidentStatus, string | null, string, number, string, string, string?, string?];

function toRow(r: readonly unknown[]): Row {
  const [n, service, severity, status, assignee, opened, minutes, title, description, finding, fix] = r;
  const where = `incident ${JSON.stringify(n)}`;
  if (!services.some((s) => s.id === service)) throw new Error(`dataset.json: ${where} names no known service`);
  return [
    count(n, where), text(service, where), oneOf(SEVERITIES, severity, `${where} severity`), oneOf(INCIDENT_STATUSES, status, `${where} status`),
    assignee === null ? null : text(assignee, `${where} assignee`), text(opened, `${where} opened`), count(minutes, `${where} minutes`),
    text(title, `${where} title`), text(description, `${where} description`),
    finding === undefined ? undefined : text(finding, `${where} finding`), fix === undefined ? undefined : text(fix, `${where} fix`),
  ];
}

function toIncident([n, service, severity, status, assignee, openedAt, minutes, title, description, finding, fix]: Row): Incident {
  const opened = new Date(Date.parse(openedAt)).toISOString();
  const serviceName = services.find((s) => s.id === service)!.name;
  const timeline: TimelineEntry[] = [
    { at: opened, kind: "opened", author: "alerting", note: `Opened from a ${severity} alert on ${serviceName}.` },
  ];
  if (assignee) {
    // Acknowledge a few minutes in; the spread just keeps the data from looking stamped out.
    timeline.push({ at: addMinutes(opened, TIMELINE.acknowledgedAfterMinutes + (n % TIMELINE.acknowledgedSpreadMinutes)), kind: "acknowledged", author: assignee, note: "Acknowledged, looking now." });
  }
  if (finding) {
    const at = status === "investigating" ? minutes : Math.round(minutes * TIMELINE.updateAtShareOfMinutes);
    timeline.push({ at: addMinutes(opened, at), kind: "update", author: assignee ?? "alerting", note: finding });
  }
  if (fix) timeline.push({ at: addMinutes(opened, minutes), kind: "resolved", author: assignee ?? "alerting", note: fix });
  if (status === "closed") {
    timeline.push({ at: addMinutes(opened, minutes + TIMELINE.closedAfterMinutes), kind: "closed", author: assignee ?? "alerting", note: "Closed after the post-incident review." });
  }
  return {
    id: `INC-${n}`,
    title,
    service,
    severity,
    status,
    assignee,
    opened,
    updated: timeline[timeline.length - 1]!.at,
    description,
    resolution: fix ?? null,
    timeline,
  };
}

export const incidents: Incident[] = data.incidents.map((r) => toIncident(toRow(r)));

// dataset.json "p95Series": latest p95 samples per service, oldest first, latencySampleMinutes
// apart, ending at DEMO_NOW. "current": [p50 ms, error rate, requests per minute, availability %].
const p95Series: Record<string, number[]> = data.p95Series;
const current: Record<string, number[]> = data.current;

function toMetrics(service: string): ServiceMetrics {
  const p95 = p95Series[service]!;
  const [p50, errorRate, requestsPerMinute, availability] = current[service]!.map((v, i) => count(v, `current ${service}[${i}]`));
  const latest = p95[p95.length - 1]!;
  return {
    service,
    asOf: DEMO_NOW,
    latencyP50Ms: p50!,
    latencyP95Ms: latest,
    errorRate: errorRate!,
    requestsPerMinute: requestsPerMinute!,
    availability: availability!,
    // p50 follows p95 at the service's current ratio: plausible shape without a second table.
    latencySeries: p95.map((v, i) => ({
      at: addMinutes(DEMO_NOW, (i - (p95.length - 1)) * TIMELINE.latencySampleMinutes),
      p50Ms: Math.round((v * p50!) / latest),
      p95Ms: v,
    })),
  };
}

export const metrics: Record<string, ServiceMetrics> = Object.fromEntries(services.map((s) => [s.id, toMetrics(s.id)]));
