// Builds a process's observer from what it is asked for: metrics (`serve --http`, unless
// atrium.http.metrics is false) and traces (only when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and OTEL_SDK_DISABLED is not "true"). prom-client and
// the OpenTelemetry SDK are imported here, lazily, and only for what is on: stdio without an
// endpoint loads neither.
import { createObserver, noObserver, type Observer } from "./observer.js";
import type { Metrics } from "./metrics.js";

/** Whether the environment asks for traces (the OpenTelemetry SDK's own variables). @internal exported for its tests. */
export function tracesWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

export async function startObserver(opts: { version: string; transport: "http" | "stdio"; metrics: boolean; env?: NodeJS.ProcessEnv }): Promise<{ observer: Observer; metrics?: Metrics }> {
  const traces = tracesWanted(opts.env);
  if (!opts.metrics && !traces) return { observer: noObserver };
  const [m, t] = await Promise.all([opts.metrics ? import("./metrics.js") : undefined, traces ? import("./tracing.js") : undefined]);
  const metrics = m?.createMetrics();
  const spans = t?.startTracing(opts.version);
  return { observer: createObserver({ metrics, spans, transport: opts.transport, routeOf: m?.routeOf }), metrics };
}
