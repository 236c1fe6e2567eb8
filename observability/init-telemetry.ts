import { context, metrics, propagation, trace, type Tracer } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type SpanExporter, type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { join } from 'node:path';
import type { RecurConfig } from '../config';
import { TRACER_NAME } from './attributes';
import { JsonlMetricExporter } from './jsonl-metric-exporter';
import { JsonlSpanExporter } from './jsonl-span-exporter';
import { createRecurMetrics, type RecurMetrics } from './metrics';
import { resolveTelemetryOptions, type TelemetryMode } from './telemetry-options';

export interface Telemetry {
  readonly service: string;
  readonly mode: TelemetryMode;
  readonly tracer: Tracer;
  readonly metrics: RecurMetrics;
  readonly resource: Resource;
  /** Where finished spans go; the worker's workflow sink feeds workflow spans to it too. Null when off. */
  readonly spanProcessor: SpanProcessor | null;
  /** The exporters' buffers in `memory` mode, for tests to read. */
  readonly memory: { spans: InMemorySpanExporter; metrics: InMemoryMetricExporter } | null;
  /** Exports everything recorded so far (metrics included). */
  flush(): Promise<void>;
  /** Exports what is pending, stops exporting and unregisters the globals, so another init may follow. */
  shutdown(): Promise<void>;
}

export interface InitTelemetryOptions {
  /** `service.name` of this process: recur-cli, recur-daemon, recur-worker. */
  service: string;
  config: Pick<RecurConfig, 'home'>;
  env?: NodeJS.ProcessEnv;
  /** Overrides the mode the environment selects (tests pass `memory`). */
  mode?: TelemetryMode;
}

/**
 * Sets up tracing and metrics for one process and registers them as the OTel globals, with the
 * W3C trace-context propagator and an AsyncLocalStorage context manager: Temporal's interceptors
 * and every `trace.getTracer()` caller then record into it. Call once per process, early.
 */
export function initTelemetry(opts: InitTelemetryOptions): Telemetry {
  const env = opts.env ?? process.env;
  const o = resolveTelemetryOptions(opts.config, env, opts.mode);
  const resource = resourceFromAttributes({ 'service.name': opts.service, 'service.instance.id': String(process.pid) });
  if (o.mode === 'off') return disabled(opts.service, resource);

  const memory = o.mode === 'memory'
    ? { spans: new InMemorySpanExporter(), metrics: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE) }
    : null;
  const file = (kind: string) => join(o.dir, `${kind}-${opts.service}.jsonl`);
  const otlp = o.otlp && otlpExporters(o.otlp);
  const spanExporter: SpanExporter = memory?.spans ?? otlp?.spans ?? new JsonlSpanExporter(file('spans'));
  const metricExporter: PushMetricExporter = memory?.metrics ?? otlp?.metrics ?? new JsonlMetricExporter(file('metrics'));
  // Tests read spans as soon as they end; elsewhere batching keeps exports off the hot path.
  const spanProcessor = memory ? new SimpleSpanProcessor(spanExporter) : new BatchSpanProcessor(spanExporter);
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  tracerProvider.register();
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    // In memory mode only flush() exports, so what a test reads does not depend on timing.
    exportIntervalMillis: memory ? 2 ** 31 - 1 : o.metricIntervalMs,
  });
  const meterProvider = new MeterProvider({ resource, readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);

  const flush = async () => {
    await tracerProvider.forceFlush();
    await meterProvider.forceFlush();
  };
  return {
    service: opts.service,
    mode: o.mode,
    tracer: trace.getTracer(TRACER_NAME),
    metrics: createRecurMetrics(meterProvider.getMeter(TRACER_NAME)),
    resource,
    spanProcessor,
    memory,
    flush,
    async shutdown() {
      // Each provider's shutdown exports what is pending once (a flush first would export metrics twice).
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      context.disable();
      propagation.disable();
      metrics.disable();
    },
  };
}

/** Loaded only when a collector is configured: they would add ~80 modules to every CLI start. */
function otlpExporters(urls: { traces: string; metrics: string }): { spans: SpanExporter; metrics: PushMetricExporter } {
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-http') as typeof import('@opentelemetry/exporter-metrics-otlp-http');
  return { spans: new OTLPTraceExporter({ url: urls.traces }), metrics: new OTLPMetricExporter({ url: urls.metrics }) };
}

function disabled(service: string, resource: Resource): Telemetry {
  return {
    service,
    mode: 'off',
    tracer: trace.getTracer(TRACER_NAME),
    metrics: createRecurMetrics(metrics.getMeter(TRACER_NAME)),
    resource,
    spanProcessor: null,
    memory: null,
    flush: async () => undefined,
    shutdown: async () => undefined,
  };
}
