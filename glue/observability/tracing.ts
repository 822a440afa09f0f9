// OpenTelemetry traces through the official SDK, loaded only when an OTLP endpoint is set
// (start.ts imports this file then, never otherwise: no SDK cost at start-up without it). Spans go
// out by OTLP/HTTP (JSON by default; the exporter reads the standard OTEL_EXPORTER_OTLP_* variables)
// through a batch processor; the service is "atrium" unless OTEL_SERVICE_NAME says otherwise.
// The AsyncLocalStorage context manager carries the active span: the meta-tool span is the
// parent of a program's run span and of a direct call's downstream span; the run's span is the
// parent of its host calls' (the pool binds each run's messages to the run's context).
// A span gets only what observer.ts hands it (ids, codes, hashes) and its outcome: never an
// exception's message or stack, which may quote a program, an argument or a server's answer.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { boundedOutcome, type SpanKindName, type SpanSink } from "./observer.js";
import { outcomeOf } from "../activity/events.js";

const KINDS: Record<SpanKindName, SpanKind> = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL };

export function startTracing(version: string): SpanSink {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "atrium", "service.version": version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // The context manager (AsyncLocalStorage) and the W3C trace-context propagator.
  provider.register();
  const tracer = provider.getTracer("atrium", version);
  return {
    span(name, kind, facts, run, outcome, parent) {
      // A caller that sent a traceparent in params._meta (MCP semantic conventions) gets this span in
      // its trace. Only traceparent is read: a tracestate is the caller's free text, and would be exported.
      const traceparent = parent?.traceparent;
      const base = typeof traceparent === "string" && trace.getSpan(context.active()) === undefined ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();
      return tracer.startActiveSpan(name, { kind: KINDS[kind], attributes: facts }, base, async (span) => {
        const end = (code: string) => {
          span.setAttribute("atrium.outcome", code);
          if (code !== "ok") {
            span.setAttribute("error.type", code);
            span.setStatus({ code: SpanStatusCode.ERROR, message: code });
          }
          span.end();
        };
        try {
          const value = await run();
          end(outcome(value));
          return value;
        } catch (e) {
          end(boundedOutcome(outcomeOf(e)));
          throw e;
        }
      });
    },
    shutdown: () => provider.shutdown(),
  };
}
