import { join } from 'node:path';
import type { RecurConfig } from '../config';

/**
 * Where a process's spans and metric points go.
 * `otlp`: OTLP/HTTP to a collector; `file`: JSON lines under <home>/telemetry; `memory`: kept in
 * process for tests to read; `off`: nothing is recorded (the OTel API stays a no-op).
 */
export type TelemetryMode = 'otlp' | 'file' | 'memory' | 'off';

export interface TelemetryOptions {
  mode: TelemetryMode;
  /** Folder of the JSON-lines files (`file` mode). */
  dir: string;
  /** Milliseconds between metric exports (`memory` mode exports only on flush). */
  metricIntervalMs: number;
  /** OTLP/HTTP URLs (`otlp` mode), per the spec: a base endpoint gets `/v1/<signal>` appended. */
  otlp: { traces: string; metrics: string } | null;
}

/**
 * Picks the mode from the standard OTel variables, so any collector setup works unchanged:
 * OTEL_SDK_DISABLED=true turns telemetry off; OTEL_EXPORTER_OTLP_ENDPOINT (or the per-signal
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) selects OTLP/HTTP; otherwise files under the home. Pure.
 */
export function resolveTelemetryOptions(
  config: Pick<RecurConfig, 'home'>,
  env: NodeJS.ProcessEnv,
  mode?: TelemetryMode,
): TelemetryOptions {
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const chosen: TelemetryMode = mode
    ?? (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' ? 'off'
      : env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp'
        : 'file');
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '');
  return {
    mode: chosen,
    dir: join(config.home, 'telemetry'),
    metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 10_000,
    otlp: chosen === 'otlp'
      ? {
        traces: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${base}/v1/traces`,
        metrics: env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || `${base}/v1/metrics`,
      }
      : null,
  };
}
