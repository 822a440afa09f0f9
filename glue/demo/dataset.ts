// The demo connector's service desk: fixed data, so every process (and every test run) sees the
// same bytes. Times are fixed ISO strings; Date is only used to add minutes to them.

export const DEMO_NOW = "2025-06-12T15:00:00.000Z";

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

export const services: Service[] = [
  { id: "checkout-api", name: "Checkout API", team: "Payments", tier: 1, status: "degraded" },
  { id: "identity", name: "Identity & Login", team: "Platform Identity", tier: 1, status: "operational" },
  { id: "catalog-search", name: "Catalog Search", team: "Discovery", tier: 2, status: "degraded" },
  { id: "notifications", name: "Notifications", team: "Messaging", tier: 2, status: "operational" },
  { id: "billing-ledger", name: "Billing Ledger", team: "Finance Engineering", tier: 1, status: "operational" },
  { id: "media-cdn", name: "Media CDN", team: "Content Infrastructure", tier: 3, status: "outage" },
];

export function addMinutes(iso: string, minutes: number): string {
  return new Date(Date.parse(iso) + minutes * 60_000).toISOString();
}

// [number, service, severity, status, assignee, opened, minutes, title, description, finding?, fix?]
// `minutes` is time to resolution (resolved/closed) or to the latest update (investigating).
type Row = [number, string, Severity, IncidentStatus, string | null, string, number, string, string, string?, string?];

const rows: Row[] = [
  [1011, "billing-ledger", "sev3", "closed", "Lena Fischer", "2025-05-20T08:14:00Z", 95, "Nightly reconciliation job overran its window", "The ledger reconciliation batch finished 70 minutes late, delaying finance reports.", "Batch contended with a backfill running on the same replica.", "Moved the backfill to its own replica; the job completed."],
  [1012, "media-cdn", "sev4", "closed", "Keiko Tanaka", "2025-05-20T13:40:00Z", 45, "Stale thumbnails for updated product images", "Product pages showed old thumbnails after merchants replaced images.", "The cache key omitted the image revision.", "Added the revision to the cache key and purged affected paths."],
  [1013, "identity", "sev2", "closed", "Marcus Lee", "2025-05-21T02:05:00Z", 130, "SSO logins failing for EU tenants", "SAML logins for EU tenants failed with signature validation errors.", "The IdP certificate rotation was not picked up by the EU cluster.", "Reloaded the trust store and added a rotation alert."],
  [1014, "checkout-api", "sev3", "closed", "Priya Raman", "2025-05-21T16:22:00Z", 60, "Promo code validation slow at peak", "Applying a promo code took several seconds during the lunchtime peak.", "Missing index on promotions.code_normalized.", "Added the index; p95 is back under 200 ms."],
  [1015, "notifications", "sev3", "closed", "Daniel Okafor", "2025-05-22T09:10:00Z", 180, "Order confirmation emails delayed", "Confirmation emails arrived up to 40 minutes late.", "The email provider throttled our sending domain.", "Raised the provider quota and split sends across two pools."],
  [1016, "catalog-search", "sev4", "closed", "Tomasz Nowak", "2025-05-22T11:30:00Z", 240, "No results for Polish queries typed without diacritics", "Searching 'zolty' found nothing while 'żółty' worked.", "The pl analyzer lacked ASCII folding.", "Enabled folding and reindexed the pl catalog."],
  [1017, "checkout-api", "sev1", "closed", "Priya Raman", "2025-05-23T18:47:00Z", 52, "All card payments failing with 502", "Every card payment failed with 502 from the payment gateway proxy.", "An expired TLS intermediate certificate on the gateway proxy.", "Deployed the renewed chain; payments recovered."],
  [1018, "billing-ledger", "sev2", "closed", "Lena Fischer", "2025-05-24T07:00:00Z", 210, "Duplicate invoice lines for annual plans", "Some annual-plan customers saw the same line item twice on invoices.", "A retry after a timeout was not idempotent.", "Added an idempotency key and voided 312 duplicate lines."],
  [1019, "media-cdn", "sev3", "closed", "Keiko Tanaka", "2025-05-25T21:15:00Z", 75, "Resize errors for large PNG uploads", "PNG uploads over 20 MB produced no resized variants.", "Resizer workers hit their memory limit.", "Switched to streamed decoding and raised worker memory to 1 GiB."],
  [1020, "identity", "sev3", "closed", "Ana Sousa", "2025-05-26T10:05:00Z", 40, "Password reset links expire immediately", "Reset links showed 'expired' on the first click for some users.", "Clock skew on one token-signing node.", "Resynced NTP and drained the node until stable."],
  [1021, "catalog-search", "sev2", "closed", "Tomasz Nowak", "2025-05-27T14:30:00Z", 95, "New arrivals missing from search", "Products added in the last day did not appear in search results.", "The indexer consumer was stuck on a poison message.", "Moved the message to the dead-letter queue; the consumer caught up."],
  [1022, "notifications", "sev4", "closed", "Daniel Okafor", "2025-05-28T08:45:00Z", 30, "Push notifications show raw template keys", "Some Android pushes displayed {{order.number}} instead of the number.", "The template shipped before its translation bundle.", "Deployed the bundle and added an ordering check to the pipeline."],
  [1023, "checkout-api", "sev2", "closed", "Sam Rivera", "2025-05-29T12:10:00Z", 88, "Tax calculation timeouts for Canadian addresses", "Checkout for Canadian addresses timed out at the tax step.", "The tax provider's CA endpoint was degraded.", "Failed over to cached rates until the provider recovered."],
  [1024, "billing-ledger", "sev3", "closed", "Lena Fischer", "2025-05-30T15:20:00Z", 150, "Refund export missing currency column", "The daily refund export to finance lacked the currency column.", "An export schema change skipped finance review.", "Restored the column and re-sent the exports."],
  [1025, "identity", "sev4", "closed", "Marcus Lee", "2025-05-31T09:00:00Z", 35, "MFA enrollment page misaligned on Safari", "The QR code overlapped the form on Safari 16.", "A CSS grid fallback was missing.", "Shipped the fallback styles."],
  [1026, "media-cdn", "sev2", "resolved", "Keiko Tanaka", "2025-06-01T04:30:00Z", 115, "Elevated 5xx from CDN origin in ap-southeast", "The origin returned 5xx for about 8% of image requests in Singapore.", "Origin autoscaling lagged behind a traffic spike.", "Raised minimum capacity; errors are back to baseline."],
  [1027, "checkout-api", "sev3", "resolved", "Priya Raman", "2025-06-02T13:05:00Z", 70, "Saved cards not shown to returning customers", "Returning customers had to re-enter card details.", "The wallet service cache returned empty lists after a deploy.", "Rolled back the cache client."],
  [1028, "notifications", "sev2", "resolved", "Daniel Okafor", "2025-06-03T07:50:00Z", 160, "SMS one-time codes not delivered in Brazil", "Users in Brazil did not receive login codes by SMS.", "Carriers filtered our alphanumeric sender ID.", "Switched Brazil traffic to a registered short code."],
  [1029, "catalog-search", "sev3", "resolved", "Tomasz Nowak", "2025-06-04T10:40:00Z", 55, "Facet counts wrong after price update", "Price facets counted products at their old prices.", "Facet cache was not invalidated by the price feed.", "Hooked the price feed into cache invalidation."],
  [1030, "billing-ledger", "sev1", "resolved", "Lena Fischer", "2025-06-05T01:12:00Z", 140, "Card charges posted twice to the ledger", "A subset of card charges were recorded twice, inflating balances.", "Events were replayed after a broker failover.", "Deduplicated by charge id and corrected balances."],
  [1031, "identity", "sev2", "resolved", "Ana Sousa", "2025-06-06T16:25:00Z", 65, "Session tokens rejected after deploy", "Users were logged out and could not sign back in for 20 minutes.", "New pods loaded a stale signing key set.", "Forced a key set refresh on start-up."],
  [1032, "checkout-api", "sev4", "resolved", "Sam Rivera", "2025-06-07T11:00:00Z", 25, "Shipping estimate shows the wrong weekday", "Delivery estimates were one day off for users west of UTC.", "The date was formatted in UTC, not the user's zone.", "Formatted estimates in the shopper's time zone."],
  [1033, "media-cdn", "sev3", "resolved", "Keiko Tanaka", "2025-06-08T19:30:00Z", 85, "Video previews fail to autoplay on iOS", "Product video previews stayed blank on iPhones.", "The new encoder dropped the playsinline-compatible profile.", "Re-encoded previews with the baseline profile."],
  [1034, "notifications", "sev3", "resolved", "Daniel Okafor", "2025-06-09T08:15:00Z", 45, "Weekly digest emails sent twice", "Subscribers received the weekly digest twice on Monday.", "Two scheduler replicas both held the lock.", "Fixed the lock lease and paused the second replica."],
  [1035, "catalog-search", "sev2", "investigating", "Tomasz Nowak", "2025-06-10T09:20:00Z", 180, "Search latency p95 above 800 ms", "Search p95 climbed from 600 ms to over 800 ms since Tuesday's reindex.", "Shard sizes are uneven after the reindex; two nodes are hot."],
  [1036, "checkout-api", "sev2", "investigating", "Priya Raman", "2025-06-10T14:55:00Z", 240, "Intermittent 504s on order submission", "About 3% of order submissions time out at the edge.", "Timeouts correlate with inventory reservation calls over 2 s."],
  [1037, "identity", "sev3", "investigating", "Marcus Lee", "2025-06-11T06:40:00Z", 90, "OAuth consent screen slow to load", "Third-party app consent takes 4-6 s to render.", "Scope descriptions are fetched one by one from the registry."],
  [1038, "billing-ledger", "sev3", "investigating", "Lena Fischer", "2025-06-11T10:05:00Z", 120, "Rounding differences on JPY invoices", "JPY invoice totals differ from line sums by one yen.", "Line amounts are rounded before tax instead of after."],
  [1039, "media-cdn", "sev1", "investigating", "Keiko Tanaka", "2025-06-12T12:18:00Z", 95, "Product images failing to load site-wide", "Around 18% of image requests fail and pages render without product photos.", "A bad origin config push disabled the fallback bucket."],
  [1040, "notifications", "sev4", "investigating", "Daniel Okafor", "2025-06-11T15:30:00Z", 60, "Unsubscribe link returns 404 in legacy emails", "Emails sent before March link to a retired unsubscribe path.", "The redirect for /u/legacy was dropped in the router migration."],
  [1041, "checkout-api", "sev3", "investigating", "Sam Rivera", "2025-06-12T09:45:00Z", 150, "Apple Pay button missing on some browsers", "The Apple Pay button does not render on Safari 17.4.", "Feature detection fails when the payment sheet script loads late."],
  [1042, "checkout-api", "sev2", "open", "Priya Raman", "2025-06-12T13:02:00Z", 0, "Payment retries spiking for Visa debit", "Retry rate for Visa debit cards rose from 2% to 11% in the last hour."],
  [1043, "identity", "sev4", "open", null, "2025-06-12T13:30:00Z", 0, "Audit log CSV export uses wrong time zone", "Timestamps in the audit export are local time but labelled UTC."],
  [1044, "billing-ledger", "sev3", "open", "Lena Fischer", "2025-06-12T13:48:00Z", 0, "Proration wrong for mid-cycle downgrades", "Customers downgrading mid-cycle are credited for the full month."],
  [1045, "media-cdn", "sev2", "open", "Keiko Tanaka", "2025-06-12T14:05:00Z", 0, "Origin storage nearing capacity in eu-west", "The eu-west origin bucket is at 91% of its quota."],
  [1046, "notifications", "sev3", "open", null, "2025-06-12T14:12:00Z", 0, "Merchant webhooks retrying with 401", "Webhook deliveries to about 40 merchants fail with 401 and retry."],
  [1047, "catalog-search", "sev4", "open", "Tomasz Nowak", "2025-06-12T14:20:00Z", 0, "Autocomplete suggests discontinued products", "Autocomplete still offers products removed from the catalog."],
  [1048, "checkout-api", "sev4", "open", null, "2025-06-12T14:31:00Z", 0, "Gift message truncated at 120 characters", "Gift messages are cut at 120 characters though the form allows 250."],
  [1049, "identity", "sev3", "open", "Ana Sousa", "2025-06-12T14:40:00Z", 0, "Spike in failed logins from one ASN", "Failed logins from a single hosting provider rose tenfold."],
  [1050, "catalog-search", "sev3", "open", null, "2025-06-12T14:52:00Z", 0, "Sort by rating ignores review count threshold", "Products with one five-star review outrank well-reviewed ones."],
];

function toIncident([n, service, severity, status, assignee, openedAt, minutes, title, description, finding, fix]: Row): Incident {
  const opened = new Date(Date.parse(openedAt)).toISOString();
  const serviceName = services.find((s) => s.id === service)!.name;
  const timeline: TimelineEntry[] = [
    { at: opened, kind: "opened", author: "alerting", note: `Opened from a ${severity} alert on ${serviceName}.` },
  ];
  if (assignee) {
    // Acknowledge a few minutes in; the spread just keeps the data from looking stamped out.
    timeline.push({ at: addMinutes(opened, 3 + (n % 9)), kind: "acknowledged", author: assignee, note: "Acknowledged, looking now." });
  }
  if (finding) {
    const at = status === "investigating" ? minutes : Math.round(minutes / 2);
    timeline.push({ at: addMinutes(opened, at), kind: "update", author: assignee ?? "alerting", note: finding });
  }
  if (fix) timeline.push({ at: addMinutes(opened, minutes), kind: "resolved", author: assignee ?? "alerting", note: fix });
  if (status === "closed") {
    timeline.push({ at: addMinutes(opened, minutes + 1440), kind: "closed", author: assignee ?? "alerting", note: "Closed after the post-incident review." });
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

export const incidents: Incident[] = rows.map(toIncident);

// Latest p95 samples, oldest first, 5 minutes apart, ending at DEMO_NOW.
const p95Series: Record<string, number[]> = {
  "checkout-api": [310, 325, 318, 340, 402, 515, 640, 720, 805, 880, 930, 910],
  identity: [92, 95, 90, 94, 98, 101, 97, 93, 96, 99, 94, 96],
  "catalog-search": [610, 640, 700, 760, 820, 790, 810, 860, 900, 870, 830, 845],
  notifications: [230, 228, 245, 236, 250, 241, 233, 238, 247, 252, 244, 240],
  "billing-ledger": [300, 305, 298, 312, 320, 308, 302, 315, 311, 306, 309, 310],
  "media-cdn": [120, 118, 125, 122, 130, 940, 2600, 3900, 4400, 4300, 4100, 4200],
};

// [p50 ms, error rate, requests per minute, availability %]
const current: Record<string, [number, number, number, number]> = {
  "checkout-api": [142, 0.031, 18400, 99.12],
  identity: [38, 0.0012, 52200, 99.98],
  "catalog-search": [210, 0.004, 31000, 99.71],
  notifications: [65, 0.0035, 7600, 99.93],
  "billing-ledger": [88, 0.0008, 2100, 99.99],
  "media-cdn": [480, 0.184, 96000, 94.6],
};

function toMetrics(service: string): ServiceMetrics {
  const p95 = p95Series[service]!;
  const [p50, errorRate, requestsPerMinute, availability] = current[service]!;
  const latest = p95[p95.length - 1]!;
  return {
    service,
    asOf: DEMO_NOW,
    latencyP50Ms: p50,
    latencyP95Ms: latest,
    errorRate,
    requestsPerMinute,
    availability,
    // p50 follows p95 at the service's current ratio: plausible shape without a second table.
    latencySeries: p95.map((v, i) => ({
      at: addMinutes(DEMO_NOW, (i - (p95.length - 1)) * 5),
      p50Ms: Math.round((v * p50) / latest),
      p95Ms: v,
    })),
  };
}

export const metrics: Record<string, ServiceMetrics> = Object.fromEntries(services.map((s) => [s.id, toMetrics(s.id)]));
